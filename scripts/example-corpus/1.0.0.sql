-- Notes 1.0.0: notes with a title and a body.
-- Representative data: thousands of rows, NULLs and limit values, long texts,
-- Cyrillic, CJK, Arabic and emoji, archived rows, stable business keys (K1..K5).
PRAGMA page_size = 4096;
PRAGMA journal_mode = DELETE;
PRAGMA user_version = 1;
CREATE TABLE notes (
    id INTEGER PRIMARY KEY,
    uuid TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    body TEXT,
    author_email TEXT,
    archived INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE drafts (id INTEGER PRIMARY KEY, note_uuid TEXT, text TEXT);

INSERT INTO notes (uuid, title, body, author_email, archived) VALUES
    ('K1', 'Groceries', 'milk, eggs, bread', 'ada@example.com', 0),
    ('K2', 'Заметки о встрече', 'Обсудили план на квартал.', 'boris@example.com', 0),
    ('K3', '会议记录', '下周一提交报告。', 'chen@example.com', 1),
    ('K4', 'ملاحظات', 'اجتماع يوم الأحد', 'dalia@example.com', 0),
    ('K5', 'Trip 🏔️🚆', '🎒 pack boots, 🧦 socks', NULL, 0);

-- Limit values: a 64 KiB body; an empty title, a NULL body and the largest rowid
-- (inserted last: once it is taken, SQLite picks new rowids at random).
INSERT INTO notes (id, uuid, title, body, author_email, archived)
    VALUES (50, 'K-LONG', 'Long text', printf('%.65536c', 'x'), 'long@example.com', 0);

-- Thousands of ordinary notes, deterministic.
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
INSERT INTO notes (id, uuid, title, body, author_email, archived)
SELECT 100 + i, printf('N%05d', i), printf('Note %d', i),
       CASE WHEN i % 10 = 0 THEN NULL ELSE printf('Body of note %d: %s', i, substr('lorem ipsum dolor sit amet consectetur adipiscing elit sed do', 1 + i % 30)) END,
       printf('user%d@example.com', i % 250), i % 7 = 0
FROM n;

INSERT INTO notes (id, uuid, title, body, author_email, archived) VALUES
    (9223372036854775807, 'K-MAX', '', NULL, 'max@example.com', 0);
