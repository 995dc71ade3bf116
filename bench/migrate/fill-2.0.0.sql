-- A few rows of a fresh 2.0.0 store, as a new user of that version would have.
BEGIN;
INSERT INTO customers VALUES (1, '5F0C8E2A-1B7D-4C3E-9A61-0D2B7E4F8A10', 'Ada Martin', 'ada.martin.1@example.com', 'Lyon',
                              '2025-03-01T09:00:00Z', 'First customer of a fresh install.');
INSERT INTO orders VALUES (1, 1, 'paid', 4200, '2025-03-01T09:05:00Z', NULL, 'EUR');
INSERT INTO messages VALUES (1, 1, 'Welcome', 'Thanks for your order.', '2025-03-01T09:06:00Z');
INSERT INTO events VALUES (1, 'open', '{"screen":"home","ms":120,"note":"first start"}', '2025-03-01T09:00:00Z');
INSERT INTO labels VALUES (1, 'urgent', 'red'), (2, 'gift', 'green');
COMMIT;
