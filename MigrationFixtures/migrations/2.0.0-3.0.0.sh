#!/bin/sh
# Notes 2.0.0 -> 3.0.0, a custom stage: created_at changes from ISO 8601 text to
# INTEGER seconds, which ALTER TABLE cannot do, so notes is rebuilt; notes whose
# folder does not exist (incomplete relations of 2.0.0) move to the Inbox; drafts
# go away. fixturekit runs it on a temporary copy, with the store's path in
# FIXTUREKIT_STORE; an app would run its own migration code here instead.
set -eu
sqlite3 -bail "$FIXTUREKIT_STORE" <<'SQL'
PRAGMA foreign_keys = OFF;
BEGIN;
CREATE TABLE notes_new (
    id INTEGER PRIMARY KEY,
    uuid TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    body TEXT,
    author_email TEXT,
    archived INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER,
    folder_id INTEGER REFERENCES folders(id)
);
INSERT INTO notes_new (id, uuid, title, body, author_email, archived, created_at, folder_id)
SELECT id, uuid, title, body, author_email, archived,
       CAST(strftime('%s', created_at) AS INTEGER),
       CASE WHEN folder_id IN (SELECT id FROM folders) THEN folder_id ELSE 1 END
FROM notes;
DROP TABLE notes;
ALTER TABLE notes_new RENAME TO notes;
CREATE INDEX notes_by_folder ON notes(folder_id);
DROP TABLE drafts;
PRAGMA user_version = 3;
COMMIT;
SQL
