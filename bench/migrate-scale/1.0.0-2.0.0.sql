-- The stage from 1.0.0 to 2.0.0: notes rewritten with a new column (SQLite's
-- twelve steps of ALTER TABLE: a new table, the rows copied with their ids, the
-- old one dropped), a new index, and tags rewritten with a primary key.
-- fixturekit runs it in one transaction (it holds no BEGIN/COMMIT).
CREATE TABLE notes_new (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL, folder_id INTEGER NOT NULL REFERENCES folders(id),
                        title TEXT NOT NULL, body TEXT, created_at TEXT NOT NULL, pinned INTEGER NOT NULL DEFAULT 0);
INSERT INTO notes_new (id, uuid, folder_id, title, body, created_at) SELECT id, uuid, folder_id, title, body, created_at FROM notes;
DROP TABLE notes;
ALTER TABLE notes_new RENAME TO notes;
CREATE INDEX notes_by_folder ON notes (folder_id, created_at);
CREATE TABLE tags_new (note_uuid TEXT NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (note_uuid, tag)) WITHOUT ROWID;
INSERT INTO tags_new (note_uuid, tag) SELECT note_uuid, tag FROM tags;
DROP TABLE tags;
ALTER TABLE tags_new RENAME TO tags;
PRAGMA user_version = 2;
