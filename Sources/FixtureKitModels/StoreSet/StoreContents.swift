import FixtureKitSystem
import FixtureKitCrypto
import FixtureKitSQLite

/// What is inside a store, read through SQLite from a copy: schema, row counts,
/// model identity.
public struct StoreContents: Codable, Equatable, Sendable {
    public package(set) var schemaHash: String
    public package(set) var objectCount: Int
    /// Row count of every table (internal `sqlite_` tables and virtual tables aside).
    public package(set) var tables: [String: Int]
    public package(set) var model: CoreDataModel?
    public package(set) var userVersion: Int
    /// Rows that violate a foreign key (`PRAGMA foreign_key_check`): stores from
    /// the field often have some, and a fixture keeps them as they were.
    public package(set) var foreignKeyViolations: Int
    /// The full structure, for comparisons; not part of the JSON reports.
    public package(set) var schema: SchemaSnapshot
    /// The content hash (``Database/contentHash()``), when it was asked for.
    public package(set) var contentHash: String?

    enum CodingKeys: String, CodingKey { case schemaHash, objectCount, tables, model, userVersion, foreignKeyViolations, contentHash }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        schemaHash = try container.decode(String.self, forKey: .schemaHash)
        objectCount = try container.decode(Int.self, forKey: .objectCount)
        tables = try container.decode([String: Int].self, forKey: .tables)
        model = try container.decodeIfPresent(CoreDataModel.self, forKey: .model)
        userVersion = try container.decode(Int.self, forKey: .userVersion)
        foreignKeyViolations = try container.decodeIfPresent(Int.self, forKey: .foreignKeyViolations) ?? 0
        schema = SchemaSnapshot(tables: [], indexes: [], views: [], triggers: [])
        contentHash = try container.decodeIfPresent(String.self, forKey: .contentHash)
    }

    /// Reads everything from an open connection.
    /// - Parameter countingForeignKeys: `false` leaves ``foreignKeyViolations``
    ///   at 0 without looking (one look-up per row of every child table), for a
    ///   reader that does not use it.
    /// - Parameter countingRows: `false` leaves ``tables`` empty, for a reader
    ///   that has the counts from elsewhere (``countRows(_:known:)``).
    /// - Throws: ``StoreError``: ``StoreError/Problem/sqlite(_:)`` when SQLite
    ///   cannot read it, ``StoreError/Problem/metadata(_:)`` for Core Data metadata
    ///   that does not follow its format.
    package init(reading database: Database, countingForeignKeys: Bool = true, countingRows: Bool = true) throws(StoreError) {
        do {
            schema = try SchemaSnapshot(database: database)
            tables = [:]
            userVersion = Int(try database.scalar("PRAGMA user_version")?.integer ?? 0)
            foreignKeyViolations = countingForeignKeys ? try Self.countForeignKeyViolations(database, schema: schema) : 0
        } catch {
            throw StoreError(store: database.path, problem: .sqlite(error))
        }
        schemaHash = schema.structuralHash
        objectCount = schema.objectCount
        do { model = try CoreDataModel.read(from: database) } catch {
            throw StoreError(store: database.path, problem: .metadata(error))
        }
        if countingRows { try countRows(database, known: [:]) }
    }

    /// The contents of `database` and its content hash, in one scan of its rows:
    /// the row counts and the violations of the foreign keys to a parent's rowid
    /// are read from the content hash's scan (``ForeignKeyTally``), the other
    /// keys counted by their anti-joins. The same contents as
    /// ``init(reading:countingForeignKeys:countingRows:)``, with ``contentHash``.
    /// - Throws: ``StoreError``; a failure of the content hash's scan with the operation `hash`.
    package init(readingAndHashing database: Database) throws(StoreError) {
        try self.init(reading: database, countingForeignKeys: false, countingRows: false)
        let tally = ForeignKeyTally(schema: schema)
        let rowCounts: [String: Int]
        do throws(SQLiteError) {
            let hashed = try database.contentHashAndRowCounts(observing: tally.observer)
            contentHash = hashed.digest.hex
            rowCounts = hashed.rowCounts
        } catch {
            throw StoreError(store: database.path, problem: .sqlite(error), operation: "hash")
        }
        do {
            let candidates = tally.candidates
            foreignKeyViolations = try Self.countForeignKeyViolations(database, schema: schema, excluding: candidates)
                + Self.countForeignKeyViolations(database, of: candidates, counted: tally.counts(), schema: schema)
        } catch {
            throw StoreError(store: database.path, problem: .sqlite(error))
        }
        try countRows(database, known: rowCounts)
    }

    /// The row count of every table of ``schema``: those in `known` (counted on
    /// the same snapshot), the others with `count(*)` on `database`.
    /// - Throws: ``StoreError/Problem/sqlite(_:)`` when SQLite cannot count.
    package mutating func countRows(_ database: Database, known: [String: Int]) throws(StoreError) {
        var counts: [String: Int] = [:]
        do {
            for table in schema.tables where table.kind == "table" {
                if let count = known[table.name] {
                    counts[table.name] = count
                    continue
                }
                counts[table.name] = Int(try database.scalar("SELECT count(*) FROM \(quotedIdentifier(table.name))")?.integer ?? 0)
            }
        } catch {
            throw StoreError(store: database.path, problem: .sqlite(error))
        }
        tables = counts
    }

    /// The rows `PRAGMA foreign_key_check` would report, counted with one
    /// anti-join per single-column key (SQLite plans these far better than the
    /// pragma on large tables); composite keys, keys to a missing table and keys
    /// to a table's primary key by omission go through the pragma.
    ///
    /// A child value is compared as the pragma compares it: the parent column's
    /// affinity applied to it, and the parent column's collation (`p.x = +c.y`),
    /// so the parent's index finds it. A parent column without such an index (a
    /// key SQLite itself would call a mismatch) is not looked up row by row: its
    /// values are gathered once (`IN` builds a temporary index of them).
    /// - Parameter excluded: keys left out (counted elsewhere): single-column keys
    ///   of tables whose keys are all single-column (``ForeignKeyTally``).
    package static func countForeignKeyViolations(_ database: Database, schema: SchemaSnapshot, excluding excluded: Set<ForeignKeyID> = []) throws(SQLiteError) -> Int {
        var total = 0
        for table in schema.tables where table.kind == "table" && !table.foreignKeys.isEmpty {
            total += try foreignKeyViolations(database, of: table, schema: schema, excluding: excluded).values.reduce(0, +)
        }
        return total
    }

    /// The violations of `keys` (of tables with ``hasSimpleKeys(_:schema:)``):
    /// each key's from `counted` (a ``ForeignKeyTally``'s, of the same schema)
    /// when it is there, else by its anti-join.
    package static func countForeignKeyViolations(_ database: Database, of keys: Set<ForeignKeyID>, counted: [ForeignKeyID: Int], schema: SchemaSnapshot) throws(SQLiteError) -> Int {
        var total = 0
        for table in schema.tables {
            for (index, key) in table.foreignKeys.enumerated() {
                let id = ForeignKeyID(table: table.name, index: index)
                guard keys.contains(id) else { continue }
                if let count = counted[id] { total += count } else { total += try violations(database, of: key, in: table, schema: schema) }
            }
        }
        return total
    }

    /// A foreign key: its table, and its place among the table's keys in a ``SchemaSnapshot``.
    package struct ForeignKeyID: Hashable, Sendable {
        /// The table's ``Swift/String/identifierKey``.
        package let table: String
        package let index: Int

        package init(table: String, index: Int) {
            self.table = table.identifierKey
            self.index = index
        }
    }

    /// Whether every key of `table` is counted by an anti-join of its own (one
    /// child column, a named parent column of a table that exists); otherwise
    /// the table's rows are counted by the pragma.
    package static func hasSimpleKeys(_ table: SchemaSnapshot.Table, schema: SchemaSnapshot) -> Bool {
        table.foreignKeys.allSatisfy { key in
            key.from.count == 1 && key.to.count == 1 && key.to[0] != nil && schema.tables.contains { $0.name.identifierKey == key.table.identifierKey }
        }
    }

    /// The rows of `table` (of the main schema, as `schema` describes it) that
    /// violate each of its foreign keys, counted as ``countForeignKeyViolations(_:schema:excluding:)``
    /// counts them; by key, named `(from, ...) REFERENCES parent`, keys no row
    /// violates left out. `PRAGMA foreign_key_check(table)` takes about five times
    /// as long on a large table (1.1 million rows: 2.08 s against 0.39 s).
    package static func foreignKeyViolations(_ database: Database, of table: SchemaSnapshot.Table, schema: SchemaSnapshot, excluding excluded: Set<ForeignKeyID> = []) throws(SQLiteError) -> [String: Int] {
        var found: [String: Int] = [:]
        guard hasSimpleKeys(table, schema: schema) else {
            for row in try database.rows("SELECT fkid, parent, count(*) FROM pragma_foreign_key_check(?1, 'main') GROUP BY fkid, parent", [.text(table.name)]) {
                let columns = try database.rows("SELECT \"from\" FROM pragma_foreign_key_list(?1, 'main') WHERE id = ?2 ORDER BY seq", [.text(table.name), row[0]])
                found[keyName(columns.compactMap { $0.first?.text }, row[1].text ?? ""), default: 0] += Int(row[2].integer ?? 0)
            }
            return found
        }
        for (index, key) in table.foreignKeys.enumerated() where !excluded.contains(ForeignKeyID(table: table.name, index: index)) {
            let count = try violations(database, of: key, in: table, schema: schema)
            if count > 0 { found[keyName(key.from, key.table), default: 0] += count }
        }
        return found
    }

    /// The rows of `table` that violate `key`, a key of one child column to a
    /// named parent column (``hasSimpleKeys(_:schema:)``): one anti-join.
    package static func violations(_ database: Database, of key: SchemaSnapshot.ForeignKey, in table: SchemaSnapshot.Table, schema: SchemaSnapshot) throws(SQLiteError) -> Int {
        guard let parentColumn = key.to.first ?? nil, let childColumn = key.from.first else { return 0 }
        let childTable = "main.\(quotedIdentifier(table.name))"
        let parent = "main." + quotedIdentifier(key.table)
        let column = quotedIdentifier(parentColumn)
        let sql: String
        if schema.isRowid(parentColumn, of: key.table),
           schema.findsRows(of: table.name, by: [childColumn], collations: [try database.collation(of: childColumn, in: table.name)]) {
            // A parent found by its rowid, a child value read in order from an
            // index: each distinct value is looked up once, its rows counted
            // together. Two values GROUP BY takes as one (equal numbers, texts
            // equal under the child's collation) find the same rowid or none.
            let value = quotedIdentifier(childColumn)
            let groups = "SELECT \(value) AS v, count(*) AS n FROM \(childTable) WHERE \(value) IS NOT NULL GROUP BY \(value)"
            sql = "SELECT coalesce(sum(g.n), 0) FROM (\(groups)) AS g WHERE NOT EXISTS (SELECT 1 FROM \(parent) AS p WHERE p.\(column) = +g.v)"
        } else {
            let child = "c." + quotedIdentifier(childColumn)
            let collation = try database.collation(of: parentColumn, in: key.table)
            let missing = schema.findsRows(of: key.table, by: [parentColumn], collations: [collation])
                ? "NOT EXISTS (SELECT 1 FROM \(parent) AS p WHERE p.\(column) = +\(child))"
                : "(+\(child)) COLLATE \(quotedIdentifier(collation)) NOT IN (SELECT p.\(column) FROM \(parent) AS p WHERE p.\(column) IS NOT NULL)"
            sql = "SELECT count(*) FROM \(childTable) AS c WHERE \(child) IS NOT NULL AND \(missing)"
        }
        return Int(try database.scalar(sql)?.integer ?? 0)
    }

    /// `(from, ...) REFERENCES parent`: a foreign key as the counts name it.
    private static func keyName(_ from: [String], _ parent: String) -> String {
        "(\(from.joined(separator: ", "))) REFERENCES \(parent)"
    }
}
