import Foundation
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitArchiveIO
import FixtureKitModels

/// Whether each table's key is unique in a fixture's reference copy, found once
/// for every path that compares with it, on a thread of its own while the first
/// path copies the fixture and runs its stages (the source does not change; the
/// stages keep one core busy). A key that no index finds costs a sort of all its
/// values, as long as a pass over the table: off the paths' way.
///
/// That sort is the one ``RowPairing`` needs to pair a table's rows by key when
/// the migration gave them other rowids: the keys and where each row is are
/// copied into a store of their own and indexed there (``Prebuilt``), and the
/// index answers whether the key is unique. A comparison that pairs its rows by
/// key then attaches that store instead of copying and sorting the keys itself,
/// after the stage; one that pairs them by rowid does not use it.
///
/// The reference copy is only read. A table whose answer could not be found
/// (an error, a key column that does not exist) is left out: the check then
/// finds out for itself, or reports the problem. A copy of the keys that could
/// not be made (no room, a collation SQLite does not know) is left out too: the
/// comparison makes its own, as without this.
final class SourceKeys: Sendable {
    struct Table: Sendable, Equatable {
        /// The table's key (its declared key, or its primary key).
        var key: [String]
        /// Whether no two source rows share the key's values (NULLs as one value).
        var unique: Bool
        /// The copy of the keys, when one was made.
        var prebuilt: Prebuilt? = nil
    }

    /// A table of the keys store (``SourceKeys/store``) holding a source table's
    /// key columns and where each row is, as ``RowPairing/copyKeys(_:of:from:key:collations:into:)``
    /// makes it, indexed by the key under `collations`.
    struct Prebuilt: Sendable, Equatable {
        let table: String
        let collations: [String]
    }

    /// The store the copies of the keys are made in (in a folder the caller
    /// removes); nil: none is made.
    let store: String?
    /// By table name (by `identifierKey`).
    private let tables: ThreadedValue<[String: Table]>

    /// Starts finding the answers for `reference`, a store whose schema is `schema`.
    /// - Parameter folder: where to make the store of the copies of the keys; nil: none.
    init(reference: String, schema: SchemaSnapshot, keys: [String: [String]], folder: String? = nil) {
        let store = folder?.appendingPath("keys.sqlite")
        self.store = store
        tables = ThreadedValue { (try? Self.find(reference: reference, schema: schema, keys: keys, store: store)) ?? [:] }
    }

    /// Waits for the answers; by table name (by `identifierKey`).
    func wait() -> [String: Table] {
        tables.wait() ?? [:]
    }

    /// A table's key, as ``PreservationCheck`` chooses it: declared (under the
    /// table's name as SQLite matches it), or the primary key.
    static func key(of table: SchemaSnapshot.Table, keys: [String: [String]]) -> [String] {
        keys.value(forName: table.name) ?? table.primaryKey.map(\.name)
    }

    private static func find(reference: String, schema: SchemaSnapshot, keys: [String: [String]], store: String?) throws(SQLiteError) -> [String: Table] {
        // The keys store (or a store in memory, when none can be made) with the
        // reference attached read-only.
        func open(_ path: String?) throws(SQLiteError) -> Database {
            try Database(path: path.map(Database.fileURI) ?? ":memory:", options: .init(create: true, uri: true))
        }
        var store = store
        let database: Database
        do { database = try open(store) } catch {
            store = nil
            database = try open(nil)
        }
        defer { try? database.close() }
        _ = try database.rows("ATTACH DATABASE ?1 AS source", [.text(Database.fileURI(reference) + "?mode=ro")])
        try database.execute("PRAGMA main.journal_mode = OFF; PRAGMA main.synchronous = OFF")
        var found: [String: Table] = [:]
        var copies = 0
        for table in schema.tables where table.kind == "table" {
            let key = Self.key(of: table, keys: keys)
            let columns = Set(table.columns.map { $0.name.identifierKey })
            guard !key.isEmpty, key.allSatisfy({ columns.contains($0.identifierKey) }) else { continue }
            guard !PreservationCheck.isUnique(key, in: table, of: schema) else {
                found[table.name.identifierKey] = Table(key: key, unique: true)
                continue
            }
            if let store, hasRoom(store, reference: reference), let made = try? prebuild(table, key: key, named: "keys_\(copies)", schema: schema, in: database) {
                found[table.name.identifierKey] = made
                copies += 1
                continue
            }
            guard let unique = try? PreservationCheck.isUnique(key, of: table.name, schema: "source", in: database) else { continue }
            found[table.name.identifierKey] = Table(key: key, unique: unique)
        }
        return found
    }

    /// Whether the keys store's file system has room for twice the reference
    /// copy beyond what it holds: a copy of keys, which is smaller than its
    /// store, never takes the room the paths' own copies and stages need.
    private static func hasRoom(_ store: String, reference: String) -> Bool {
        guard let free = try? POSIX.availableSpace(at: store), let size = try? POSIX.lstat(reference).size else { return false }
        return free / 2 >= UInt64(max(0, size))
    }

    /// Copies the keys of `table` into the keys store as `name` and says from
    /// its index whether they are unique; nil when the comparison would not use
    /// the copy (an index of the source finds the rows by key, or a collation is
    /// not SQLite's own).
    private static func prebuild(_ table: SchemaSnapshot.Table, key: [String], named name: String, schema: SchemaSnapshot, in database: Database) throws(SQLiteError) -> Table? {
        var collations: [String] = []
        for column in key { collations.append(try database.collation(of: column, in: table.name, schema: "source")) }
        guard collations.allSatisfy({ AnonymizationSchema.builtinCollations.contains($0.uppercased()) }),
              !schema.findsRows(of: table.name, by: key, collations: collations) else { return nil }
        do {
            try RowPairing.copyKeys(database, of: table, from: "source.\(quotedIdentifier(table.name))", key: key, collations: collations, into: ("main", name))
            // The same groups as GROUP BY over the source's columns: their collations.
            let unique = try PreservationCheck.isUnique(key, of: name, schema: "main", collations: collations, in: database)
            return Table(key: key, unique: unique, prebuilt: Prebuilt(table: name, collations: collations))
        } catch {
            try? database.execute("DROP TABLE IF EXISTS main.\(quotedIdentifier(name))")
            throw error
        }
    }
}
