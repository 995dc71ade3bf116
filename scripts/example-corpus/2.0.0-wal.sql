-- Commits made after the last checkpoint of the 2.0.0 store: they live only in
-- its -wal, which the raw fixture keeps.
INSERT INTO notes (uuid, title, body, author_email, created_at, folder_id) VALUES
    ('W1', 'Written after the checkpoint', 'only in the WAL', 'wal@example.com', '2024-04-01T12:00:00Z', 2);
UPDATE notes SET body = body || ', butter' WHERE uuid = 'K1';
INSERT INTO note_tags (note_id, tag_id) SELECT id, 2 FROM notes WHERE uuid = 'W1';
