-- A few rows of a fresh 2.0.0 store, as a new user of that version would have.
BEGIN;
INSERT INTO folders VALUES (1, 'F0000001-00000001', 'Inbox');
INSERT INTO notes VALUES (1, '5f0c8e2a-1b7d-4c3e-9a61-0d2b7e4f8a10', 1, 'Welcome', 'First note of a fresh install.', '2025-03-01T09:00:00Z', 1);
INSERT INTO tags VALUES ('5f0c8e2a-1b7d-4c3e-9a61-0d2b7e4f8a10', 'welcome');
COMMIT;
