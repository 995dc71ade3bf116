-- The rows of a 1.0.0 store, read by sqlite3 after schema-1.0.0.sql and
-- ../migrate/text.sql, with `.parameter set @notes N`: 1,000 folders, N notes
-- (about 320 bytes each with their share of the tags, so the store's size is
-- about N * 320 bytes) and a tag on every other note. Every value is a
-- function of the row's number.
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
PRAGMA cache_size = -262144;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
INSERT INTO folders (id, uuid, name)
SELECT i, printf('F%07d-%08x', i, (i * 2654435761) % 4294967296), s.s FROM n JOIN temp.sentences AS s ON s.id = (i * 13) % 4096;

WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < @notes)
INSERT INTO notes (id, uuid, folder_id, title, body, created_at)
SELECT i,
       printf('%08x-%04x-4%03x-%04x-%012x', (i * 2654435761) % 4294967296, (i * 40503) % 65536, (i * 977) % 4096,
              32768 + (i * 7) % 16384, (i * 1099511627) % 281474976710656),
       1 + (i * 7919) % 1000,
       substr(s.s, 1, 60),
       CASE WHEN i % 11 = 0 THEN NULL ELSE substr(p.p, 1, 120 + (i * 31) % 280) END,
       strftime('%Y-%m-%dT%H:%M:%SZ', 1672531200 + i * 53, 'unixepoch')
FROM n
JOIN temp.sentences AS s ON s.id = (i * 37 + 3) % 4096
JOIN temp.paragraphs AS p ON p.id = (i * 389) % 4096;

INSERT INTO tags (note_uuid, tag)
SELECT uuid, (SELECT w FROM temp.words WHERE temp.words.id = (notes.id * 17) % 100) FROM notes WHERE id % 2 = 0;
COMMIT;
