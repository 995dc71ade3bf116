-- Version 1.0.0 of the matrix benchmark's app: one table of notes whose business
-- key (uuid, declared in fixturekit.json) has no index. Each later version adds
-- a column or a table (stage.sh writes the stages).
PRAGMA page_size = 4096;
CREATE TABLE notes (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL, title TEXT NOT NULL, body TEXT, created_at TEXT NOT NULL);
PRAGMA user_version = 1;
