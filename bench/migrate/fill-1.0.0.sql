-- The rows of the benchmark's 1.0.0 store (about 500 MiB with its indexes), read by
-- sqlite3 after schema-1.0.0.sql and text.sql: 100,000 customers, 1,100,000 orders,
-- 360,000 messages and 700,000 events, from recursive CTEs. Every value is a
-- function of the row's number.
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
PRAGMA cache_size = -1048576;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000),
     first(k, v) AS (SELECT key, value FROM json_each('["Ada","Ben","Chloe","David","Emma","Farid","Grace","Hugo","Ines","Jonas","Kira","Liam","Maya","Noah","Olga","Paul","Quinn","Rosa","Sven","Tara"]')),
     last(k, v) AS (SELECT key, value FROM json_each('["Martin","Bernard","Dubois","Thomas","Robert","Richard","Petit","Durand","Leroy","Moreau","Simon","Laurent","Lefebvre","Michel","Garcia","Muller"]')),
     city(k, v) AS (SELECT key, value FROM json_each('["Lyon","Paris","Berlin","Madrid","Rome","Lisbon","Vienna","Prague","Oslo","Dublin","Brussels","Warsaw","Athens","Helsinki","Zurich","Porto","Milan"]'))
INSERT INTO customers (id, uuid, name, email, city, created_at, bio)
SELECT i,
       printf('%08X-%04X-4%03X-%04X-%012X', (i * 2654435761) % 4294967296, (i * 40503) % 65536, (i * 977) % 4096,
              32768 + (i * 7) % 16384, (i * 1099511627) % 281474976710656),
       first.v || ' ' || last.v,
       lower(first.v) || '.' || lower(last.v) || '.' || i || '@example.com',
       city.v,
       strftime('%Y-%m-%dT%H:%M:%SZ', 1672531200 + i * 617, 'unixepoch'),
       CASE WHEN i % 10 = 0 THEN NULL ELSE s1.s || ' ' || s2.s || ' ' || s3.s END
FROM n
JOIN first ON first.k = i % 20
JOIN last ON last.k = (i / 20) % 16
JOIN city ON city.k = (i * 7) % 17
JOIN temp.sentences AS s1 ON s1.id = (i * 31) % 4096
JOIN temp.sentences AS s2 ON s2.id = (i * 131 + 7) % 4096
JOIN temp.sentences AS s3 ON s3.id = (i * 1031 + 11) % 4096;

WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1100000),
     status(k, v) AS (SELECT key, value FROM json_each('["pending","paid","shipped","delivered","returned","cancelled"]'))
INSERT INTO orders (id, customer_id, status, total_cents, created_at, note)
SELECT i, 1 + (i * 7919) % 100000, status.v, 100 + (i * 104729) % 500000,
       strftime('%Y-%m-%dT%H:%M:%SZ', 1672531200 + i * 53, 'unixepoch'),
       CASE WHEN i % 3 = 0 THEN NULL ELSE s1.s END
FROM n
JOIN status ON status.k = (i * 13) % 6
JOIN temp.sentences AS s1 ON s1.id = (i * 37 + 3) % 4096;

WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 360000)
INSERT INTO messages (id, customer_id, subject, body, sent_at)
SELECT i, 1 + (i * 104723) % 100000, substr(s1.s, 1, 60), p.p || ' ' || s2.s,
       strftime('%Y-%m-%dT%H:%M:%SZ', 1672531200 + i * 157, 'unixepoch')
FROM n
JOIN temp.sentences AS s1 ON s1.id = (i * 53 + 5) % 4096
JOIN temp.sentences AS s2 ON s2.id = (i * 769 + 1) % 4096
JOIN temp.paragraphs AS p ON p.id = (i * 389) % 4096;

WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 700000),
     kind(k, v) AS (SELECT key, value FROM json_each('["open","close","view","search","add_to_cart","checkout","login","logout","sync"]'))
INSERT INTO events (id, kind, payload, at)
SELECT i, kind.v,
       json_object('screen', w.w, 'ms', 1 + (i * 7907) % 9999, 'note', substr(s1.s, 1, 40)),
       strftime('%Y-%m-%dT%H:%M:%SZ', 1672531200 + i * 79, 'unixepoch')
FROM n
JOIN kind ON kind.k = (i * 5) % 9
JOIN temp.words AS w ON w.id = (i * 17) % (SELECT count(*) FROM temp.words)
JOIN temp.sentences AS s1 ON s1.id = (i * 211 + 9) % 4096;
COMMIT;
