-- The schema of version 2.0.0, as a fresh install of the new build creates it:
-- notes gained a column and an index, tags a primary key (WITHOUT ROWID).
PRAGMA page_size = 4096;
CREATE TABLE folders (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL, name TEXT NOT NULL);
CREATE TABLE notes (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL, folder_id INTEGER NOT NULL REFERENCES folders(id),
                    title TEXT NOT NULL, body TEXT, created_at TEXT NOT NULL, pinned INTEGER NOT NULL DEFAULT 0);
CREATE TABLE tags (note_uuid TEXT NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (note_uuid, tag)) WITHOUT ROWID;
CREATE INDEX notes_by_folder ON notes (folder_id, created_at);
PRAGMA user_version = 2;
