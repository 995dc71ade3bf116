-- A new index on the rewritten notes.
CREATE INDEX notes_by_folder ON notes (folder_id, created_at);
