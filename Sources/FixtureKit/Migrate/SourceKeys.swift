import Foundation
import Synchronization

/// The keys of a fixture's reference copy, prepared once for every path that
/// compares with it, on a thread of their own while the first path copies the
/// fixture and runs its stages (the source does not change; the stages keep
/// one core busy): whether each table's key is unique in the source, and, for
/// a key that no index of the source finds, the key's values with each row's
/// rowid, indexed: the key table of ``RowPairing/Method/keyTable``, sorted once
/// rather than by every path.
///
/// They live in a database of their own in the runner's temporary folder; the
/// reference copy is only read. A preparation that fails leaves nothing
/// prepared: each path then finds out for itself.
final class SourceKeys: Sendable {
    struct Table: Sendable, Equatable {
        /// The table's key (its declared key, or its primary key).
        var key: [String]
        /// Whether no two source rows share the key's values.
        var unique: Bool
        /// The table of the key's values and rowids in ``path``, when no index
        /// of the source finds the key.
        var keyTable: String?
    }

    /// The keys database.
    let path: String
    private let done = DispatchGroup()
    /// By lowercased table name; written by the preparing thread before it leaves `done`.
    private let tables = Mutex<[String: Table]>([:])

    static let schemaName = "fixturekit_keys"

    /// Starts preparing the keys of `reference` (a store whose schema is
    /// `schema`) into a new database at `path`.
    init(reference: String, path: String, schema: SchemaSnapshot, keys: [String: [String]]) {
        self.path = path
        done.enter()
        Thread { [self] in
            let prepared = (try? Self.prepare(reference: reference, path: path, schema: schema, keys: keys)) ?? [:]
            tables.withLock { $0 = prepared }
            done.leave()
        }.start()
    }

    /// Waits for the preparation; the tables prepared, by lowercased name.
    func wait() -> [String: Table] {
        done.wait()
        return tables.withLock { $0 }
    }

    /// Each table's key, as ``PreservationCheck`` chooses it: declared, or the primary key.
    static func key(of table: SchemaSnapshot.Table, keys: [String: [String]]) -> [String] {
        keys[table.name] ?? keys[table.name.lowercased()] ?? RowPairing.primaryKey(table)
    }

    private static func prepare(reference: String, path: String, schema: SchemaSnapshot, keys: [String: [String]]) throws(SQLiteError) -> [String: Table] {
        let database = try Database(path: path, options: .init(create: true))
        defer { try? database.close() }
        try database.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
        _ = try database.rows("ATTACH DATABASE ?1 AS source", [.text(reference)])
        var prepared: [String: Table] = [:]
        for (number, table) in schema.tables.enumerated() where table.kind == "table" {
            let key = Self.key(of: table, keys: keys)
            let columns = Set(table.columns.map { $0.name.lowercased() })
            guard !key.isEmpty, key.allSatisfy({ columns.contains($0.lowercased()) }) else { continue }
            if PreservationCheck.isUnique(key, in: table) {
                prepared[table.name.lowercased()] = Table(key: key, unique: true)
                continue
            }
            let source = "source.\(quotedIdentifier(table.name))"
            let quoted = key.map(quotedIdentifier)
            var collations: [String] = []
            for column in key { collations.append(try database.collation(of: column, in: table.name, schema: "source")) }
            let rows = Int(try database.scalar("SELECT count(*) FROM \(source)")?.integer ?? 0)
            if schema.findsRows(of: table.name, by: key, collations: collations) {
                let groups = Int(try database.scalar("SELECT count(*) FROM (SELECT 1 FROM \(source) GROUP BY \(quoted.joined(separator: ", ")))")?.integer ?? 0)
                prepared[table.name.lowercased()] = Table(key: key, unique: groups == rows)
                continue
            }
            let name = "keys_\(number)"
            let location = table.withoutRowID ? RowPairing.primaryKey(table).map(quotedIdentifier) : ["rowid"]
            let selected = quoted.enumerated().map { "s.\($1) AS k\($0)" } + location.enumerated().map { "s.\($1) AS l\($0)" }
            try database.execute("CREATE TABLE \(name) AS SELECT \(selected.joined(separator: ", ")) FROM \(source) AS s")
            let ordered = collations.enumerated().map { "k\($0) COLLATE \(quotedIdentifier($1))" }
            try database.execute("CREATE INDEX \(name)_order ON \(name) (\((ordered + location.indices.map { "l\($0)" }).joined(separator: ", ")))")
            // In the index's order: the groups need no sort.
            let groups = Int(try database.scalar("SELECT count(*) FROM (SELECT 1 FROM \(name) INDEXED BY \(name)_order GROUP BY \(ordered.joined(separator: ", ")))")?.integer ?? 0)
            prepared[table.name.lowercased()] = Table(key: key, unique: groups == rows, keyTable: name)
        }
        try database.execute("DETACH DATABASE source")
        return prepared
    }
}
