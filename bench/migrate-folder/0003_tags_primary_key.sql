-- tags rewritten with a primary key.
CREATE TABLE tags_new (note_uuid TEXT NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (note_uuid, tag)) WITHOUT ROWID;
INSERT INTO tags_new (note_uuid, tag) SELECT note_uuid, tag FROM tags;
DROP TABLE tags;
ALTER TABLE tags_new RENAME TO tags;
