-- The stage of bench/migrate-scale/1.0.0-2.0.0.sql as a folder of migrations,
-- one per step, as an app that keeps numbered files has them (sqlx, GRDB-style).
-- notes rewritten with a new column: SQLite's twelve steps, the rows copied with their ids.
CREATE TABLE notes_new (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL, folder_id INTEGER NOT NULL REFERENCES folders(id),
                        title TEXT NOT NULL, body TEXT, created_at TEXT NOT NULL, pinned INTEGER NOT NULL DEFAULT 0);
INSERT INTO notes_new (id, uuid, folder_id, title, body, created_at) SELECT id, uuid, folder_id, title, body, created_at FROM notes;
DROP TABLE notes;
ALTER TABLE notes_new RENAME TO notes;
