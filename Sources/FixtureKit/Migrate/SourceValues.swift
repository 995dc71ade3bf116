import Foundation
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// Which columns of a fixture's reference copy hold a value (are not NULL in
/// every row): what a path's value checks can see of it
/// (``PreservationCheck/unchecked(version:held:)``). Found once for every path
/// from the fixture, on a thread of its own while the first path copies it and
/// runs its stages, like ``SourceKeys``.
///
/// Each table's first ``probeRows`` rows are read at once; a column NULL in all
/// of them is then looked for in the whole table, one column at a time, up to
/// its first non-NULL value: only a column NULL in every row costs a pass over
/// its table. The reference copy is only read. When the search fails,
/// ``wait()`` answers `nil` and every column of a table with rows counts as
/// holding a value.
final class SourceValues: Sendable {
    static let probeRows = 1000

    /// Column names by table name, both by `identifierKey`.
    private let held: ThreadedValue<[String: Set<String>]?>

    /// Starts reading `reference`, a store no one writes, whose schema is `schema`.
    init(reference: String, schema: SchemaSnapshot) {
        held = ThreadedValue { try? Self.find(reference: reference, schema: schema) }
    }

    /// Waits for the answer: the columns that hold a value, or `nil`.
    func wait() -> [String: Set<String>]? {
        held.wait() ?? nil
    }

    private static func find(reference: String, schema: SchemaSnapshot) throws(SQLiteError) -> [String: Set<String>] {
        let database = try Database(path: reference, options: .init(readOnly: true))
        defer { try? database.close() }
        var found: [String: Set<String>] = [:]
        for table in schema.tables where table.kind == "table" {
            let columns = table.columns.filter { $0.hidden == 0 }.map(\.name)
            let source = "main.\(quotedIdentifier(table.name))"
            var holding: Set<String> = []
            if !columns.isEmpty {
                let quoted = columns.map(quotedIdentifier)
                let probe = "SELECT \(quoted.map { "count(\($0))" }.joined(separator: ", ")) FROM (SELECT \(quoted.joined(separator: ", ")) FROM \(source) LIMIT \(probeRows))"
                let counts = try database.rows(probe).first ?? []
                for (index, column) in columns.enumerated() {
                    var seen = index < counts.count && (counts[index].integer ?? 0) > 0
                    if !seen {
                        seen = try database.scalar("SELECT EXISTS (SELECT 1 FROM \(source) WHERE \(quoted[index]) IS NOT NULL)")?.integer == 1
                    }
                    if seen { holding.insert(column.identifierKey) }
                }
            }
            found[table.name.identifierKey] = holding
        }
        return found
    }
}
