-- The rows of the 1.0.0 store, read after schema-1.0.0.sql and ../migrate/text.sql,
-- with `.parameter set @notes N`: N notes of about 300 bytes. Every value is a
-- function of the row's number.
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < @notes)
INSERT INTO notes (id, uuid, title, body, created_at)
SELECT i,
       printf('%08x-%04x-4%03x-%04x-%012x', (i * 2654435761) % 4294967296, (i * 40503) % 65536, (i * 977) % 4096,
              32768 + (i * 7) % 16384, (i * 1099511627) % 281474976710656),
       substr(s.s, 1, 60),
       substr(p.p, 1, 120 + (i * 31) % 240),
       strftime('%Y-%m-%dT%H:%M:%SZ', 1672531200 + i * 53, 'unixepoch')
FROM n
JOIN temp.sentences AS s ON s.id = (i * 37 + 3) % 4096
JOIN temp.paragraphs AS p ON p.id = (i * 389) % 4096;
COMMIT;
