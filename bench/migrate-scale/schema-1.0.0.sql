-- The schema of version 1.0.0 of the scaling benchmark's app: notes in folders,
-- and tags on notes. fixturekit.json declares business keys that no index
-- backs, as many apps declare them: notes(uuid), folders(uuid) and
-- tags(note_uuid, tag).
PRAGMA page_size = 4096;
CREATE TABLE folders (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL, name TEXT NOT NULL);
CREATE TABLE notes (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL, folder_id INTEGER NOT NULL REFERENCES folders(id),
                    title TEXT NOT NULL, body TEXT, created_at TEXT NOT NULL);
CREATE TABLE tags (note_uuid TEXT NOT NULL, tag TEXT NOT NULL);
PRAGMA user_version = 1;
