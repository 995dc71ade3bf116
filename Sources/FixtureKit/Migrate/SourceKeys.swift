import Foundation
import Synchronization
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
/// The reference copy is only read. A table whose answer could not be found
/// (an error, a key column that does not exist) is left out: the check then
/// finds out for itself, or reports the problem.
final class SourceKeys: Sendable {
    struct Table: Sendable, Equatable {
        /// The table's key (its declared key, or its primary key).
        var key: [String]
        /// Whether no two source rows share the key's values (NULLs as one value).
        var unique: Bool
    }

    private let done = DispatchGroup()
    /// By lowercased table name; written by the thread before it leaves `done`.
    private let tables = Mutex<[String: Table]>([:])

    /// Starts finding the answers for `reference`, a store whose schema is `schema`.
    init(reference: String, schema: SchemaSnapshot, keys: [String: [String]]) {
        done.enter()
        Thread { [self] in
            let found = (try? Self.find(reference: reference, schema: schema, keys: keys)) ?? [:]
            tables.withLock { $0 = found }
            done.leave()
        }.start()
    }

    /// Waits for the answers; by lowercased table name.
    func wait() -> [String: Table] {
        done.wait()
        return tables.withLock { $0 }
    }

    /// A table's key, as ``PreservationCheck`` chooses it: declared, or the primary key.
    static func key(of table: SchemaSnapshot.Table, keys: [String: [String]]) -> [String] {
        keys[table.name] ?? keys[table.name.lowercased()] ?? RowPairing.primaryKey(table)
    }

    private static func find(reference: String, schema: SchemaSnapshot, keys: [String: [String]]) throws(SQLiteError) -> [String: Table] {
        let database = try Database(path: reference, options: .init(readOnly: true))
        defer { try? database.close() }
        var found: [String: Table] = [:]
        for table in schema.tables where table.kind == "table" {
            let key = Self.key(of: table, keys: keys)
            let columns = Set(table.columns.map { $0.name.lowercased() })
            guard !key.isEmpty, key.allSatisfy({ columns.contains($0.lowercased()) }) else { continue }
            guard !PreservationCheck.isUnique(key, in: table) else {
                found[table.name.lowercased()] = Table(key: key, unique: true)
                continue
            }
            guard let unique = try? PreservationCheck.isUnique(key, of: table.name, schema: "main", in: database) else { continue }
            found[table.name.lowercased()] = Table(key: key, unique: unique)
        }
        return found
    }
}
