-- Notes 2.0.0: tags, a creation date, folders. The fixture of this version is
-- captured raw, with committed transactions still in its -wal: see 2.0.0-wal.sql.
PRAGMA page_size = 4096;
PRAGMA journal_mode = DELETE;
PRAGMA user_version = 2;
CREATE TABLE folders (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE notes (
    id INTEGER PRIMARY KEY,
    uuid TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    body TEXT,
    author_email TEXT,
    archived INTEGER NOT NULL DEFAULT 0,
    created_at TEXT,
    folder_id INTEGER REFERENCES folders(id)
);
CREATE TABLE drafts (id INTEGER PRIMARY KEY, note_uuid TEXT, text TEXT);
CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE note_tags (note_id INTEGER NOT NULL REFERENCES notes(id), tag_id INTEGER NOT NULL REFERENCES tags(id), PRIMARY KEY (note_id, tag_id));

INSERT INTO folders (id, name) VALUES (1, 'Inbox'), (2, 'Work'), (3, 'Личное');
INSERT INTO tags (id, name) VALUES (1, 'home'), (2, 'work'), (3, '重要'), (4, '⭐');
INSERT INTO notes (uuid, title, body, author_email, archived, created_at, folder_id) VALUES
    ('K1', 'Groceries', 'milk, eggs, bread', 'ada@example.com', 0, '2024-01-05T09:30:00Z', 1),
    ('K2', 'Заметки о встрече', 'Обсудили план на квартал.', 'boris@example.com', 0, '2024-02-11T14:00:00Z', 3),
    ('K3', '会议记录', '下周一提交报告。', 'chen@example.com', 1, '2024-02-12T08:15:00Z', 2),
    ('K4', 'ملاحظات', 'اجتماع يوم الأحد', 'dalia@example.com', 0, NULL, 1),
    ('K5', 'Trip 🏔️🚆', '🎒 pack boots, 🧦 socks', NULL, 0, '2024-03-01T00:00:00Z', 1);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
INSERT INTO notes (id, uuid, title, body, author_email, archived, created_at, folder_id)
SELECT 100 + i, printf('N%05d', i), printf('Note %d', i),
       CASE WHEN i % 10 = 0 THEN NULL ELSE printf('Body of note %d', i) END,
       printf('user%d@example.com', i % 250), i % 7 = 0,
       printf('2024-%02d-%02dT%02d:%02d:00Z', 1 + i % 12, 1 + i % 28, i % 24, i % 60),
       -- Incomplete relations: folder 9 does not exist; the 3.0.0 stage moves these notes to the Inbox.
       CASE WHEN i % 97 = 0 THEN 9 ELSE 1 + i % 3 END
FROM n;
INSERT INTO note_tags (note_id, tag_id) SELECT id, 1 + id % 4 FROM notes WHERE id % 3 = 0;
