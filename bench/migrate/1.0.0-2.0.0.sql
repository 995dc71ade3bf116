-- The stage from 1.0.0 to 2.0.0: a new column on orders, filled for every row, and
-- a new table. fixturekit runs it in one transaction (it holds no BEGIN/COMMIT).
ALTER TABLE orders ADD COLUMN currency TEXT;
UPDATE orders SET currency = CASE customer_id % 5 WHEN 0 THEN 'USD' WHEN 1 THEN 'GBP' WHEN 2 THEN 'CHF' ELSE 'EUR' END;
CREATE TABLE labels (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, color TEXT NOT NULL);
PRAGMA user_version = 2;
