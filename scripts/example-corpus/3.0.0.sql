-- Notes 3.0.0, a fresh store of the current build: created_at is now INTEGER
-- seconds (a type change that needs a custom stage), drafts are gone, notes are
-- found by folder through an index.
PRAGMA page_size = 4096;
PRAGMA journal_mode = DELETE;
PRAGMA user_version = 3;
CREATE TABLE folders (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE notes (
    id INTEGER PRIMARY KEY,
    uuid TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    body TEXT,
    author_email TEXT,
    archived INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER,
    folder_id INTEGER REFERENCES folders(id)
);
CREATE TABLE note_tags (note_id INTEGER NOT NULL REFERENCES notes(id), tag_id INTEGER NOT NULL REFERENCES tags(id), PRIMARY KEY (note_id, tag_id));
CREATE INDEX notes_by_folder ON notes(folder_id);
INSERT INTO folders (id, name) VALUES (1, 'Inbox');
INSERT INTO tags (id, name) VALUES (1, 'home');
INSERT INTO notes (uuid, title, created_at, folder_id) VALUES ('F1', 'Welcome to Notes 3', 1735689600, 1);
