-- The schema of version 1.0.0 of the benchmark's app: four tables of text rows,
-- two foreign keys, a business key (customers.uuid) and five indexes.
PRAGMA page_size = 4096;
CREATE TABLE customers (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, name TEXT NOT NULL, email TEXT NOT NULL,
                        city TEXT NOT NULL, created_at TEXT NOT NULL, bio TEXT);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), status TEXT NOT NULL,
                     total_cents INTEGER NOT NULL, created_at TEXT NOT NULL, note TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), subject TEXT NOT NULL,
                       body TEXT NOT NULL, sent_at TEXT NOT NULL);
CREATE TABLE events (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, payload TEXT NOT NULL, at TEXT NOT NULL);
CREATE INDEX customers_city ON customers(city, name);
CREATE INDEX orders_customer ON orders(customer_id, created_at);
CREATE INDEX orders_status ON orders(status);
CREATE INDEX messages_customer ON messages(customer_id, sent_at);
CREATE INDEX events_kind_at ON events(kind, at);
PRAGMA user_version = 1;
