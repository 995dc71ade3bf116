-- Notes 1.0.0 -> 2.0.0: folders, tags and a creation date.
-- Runs inside one transaction; existing notes go to the Inbox.
CREATE TABLE folders (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO folders (id, name) VALUES (1, 'Inbox');
ALTER TABLE notes ADD COLUMN created_at TEXT;
ALTER TABLE notes ADD COLUMN folder_id INTEGER REFERENCES folders(id);
UPDATE notes SET folder_id = 1;
CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE note_tags (note_id INTEGER NOT NULL REFERENCES notes(id), tag_id INTEGER NOT NULL REFERENCES tags(id), PRIMARY KEY (note_id, tag_id));
PRAGMA user_version = 2;
