import FixtureKitSystem
import FixtureKitModels

/// A table or a column of the migrated store that a path's value checks
/// could not see: nothing in the path's source fixture holds a value for it,
/// so whatever the stages wrote there, no comparison could find it wrong.
///
/// A migrated column is *seen* when a column of the source stands for it (the
/// same name in the table that becomes its table, by name or `renames`; its
/// name under `renames`; a column declared moved to it, or to the row it
/// keys) and that column holds a non-NULL value in at least one row. Columns
/// SQLite computes (generated columns) and virtual tables are compared
/// nowhere, and not listed.
public struct UncheckedValues: Codable, Equatable, Sendable {
    public enum Reason: String, Codable, Sendable {
        /// Nothing of the source becomes it: the stages made it (a column
        /// added, a table created and filled): `not in 1.0.0`.
        case new
        /// What becomes it has no row in the source: `no rows in 1.0.0`.
        case empty
        /// What becomes it is NULL in every row of the source: `NULL in every row of 1.0.0`.
        case null
        /// Declared so: a table `"excluded"`, or a column `"dropped"` that is still there.
        case declared
    }

    public internal(set) var table: String
    /// The column; `nil` for the whole table (each of its columns unseen for the same reason).
    public internal(set) var column: String?
    public internal(set) var reason: Reason
    /// In plain words: `not in 1.0.0`, `no rows in 1.0.0 (as tags)`,
    /// `NULL in every row of 1.0.0 (as contacts.phone)`, `declared "excluded"`.
    public internal(set) var why: String

    /// `notes.color: not in 1.0.0`: how every report lists it.
    public var line: String { "\(column.map { "\(table).\($0)" } ?? table): \(why)" }
}

extension PreservationCheck {
    /// The migrated store's tables and columns that no value of the source
    /// (the fixture of `version`) stands for, in the migrated schema's order:
    /// a table once when none of its columns is seen, for the table's own
    /// reason (it is new, empty in the source, or excluded), else each column.
    /// - Parameter held: the source's columns that hold a non-NULL value in
    ///   some row, by `identifierKey`, by table name (``SourceValues``);
    ///   `nil` when unknown: every column of a table with rows then counts.
    func unchecked(version: String, held: [String: Set<String>]?) -> [UncheckedValues] {
        typealias Feeder = (table: String, column: String)
        let migratedTables = Dictionary(migrated.tables.map { ($0.name.identifierKey, $0) }, uniquingKeysWith: { first, _ in first })
        // What stands for each migrated table and column (by `identifierKey`: `table`, `table.column`).
        var sourceTables: [String: String] = [:]
        var feeders: [String: [Feeder]] = [:]
        var declared: [String: String] = [:]
        for table in source.tables where table.kind == "table" {
            let name = table.name.identifierKey
            if changes[name] != .excluded {
                for column in table.columns where column.hidden == 0 {
                    guard let move = moves["\(name).\(column.name)".identifierKey] else { continue }
                    for target in [move.movedTo, move.key] { feeders[target.identifierKey, default: []].append((table.name, column.name)) }
                }
            }
            guard let after = migratedTables[name] ?? renames[name].flatMap({ migratedTables[$0.identifierKey] }) else { continue }
            let afterName = after.name.identifierKey
            if changes[name] == .excluded {
                declared[afterName] = "excluded"
                continue
            }
            sourceTables[afterName] = table.name
            let afterColumns = Set(after.columns.map { $0.name.identifierKey })
            for column in table.columns where column.hidden == 0 && moves["\(name).\(column.name)".identifierKey] == nil {
                let targetColumn = migratedName(of: column.name, in: table, afterColumns: afterColumns).identifierKey
                guard afterColumns.contains(targetColumn) else { continue }
                let target = "\(afterName).\(targetColumn)"
                if changes["\(name).\(column.name)".identifierKey] == .dropped {
                    declared[target] = "dropped"
                } else {
                    feeders[target, default: []].append((table.name, column.name))
                }
            }
        }
        func isEmpty(_ table: String) -> Bool { sourceCounts[table] == 0 }
        func holds(_ feeder: Feeder) -> Bool {
            guard !isEmpty(feeder.table) else { return false }
            guard let held else { return true }
            return held[feeder.table.identifierKey]?.contains(feeder.column.identifierKey) ?? false
        }
        func alias(_ name: String, _ own: String) -> String {
            name.identifierKey == own.identifierKey ? "" : " (as \(name))"
        }

        var unchecked: [UncheckedValues] = []
        for table in migrated.tables where table.kind == "table" {
            let name = table.name.identifierKey
            // Why the table's rows are not compared at all, when they are not.
            var whole: (UncheckedValues.Reason, String)?
            if let word = declared[name] {
                whole = (.declared, "declared \"\(word)\"")
            } else if let source = sourceTables[name] {
                if isEmpty(source) { whole = (.empty, "no rows in \(version)" + alias(source, table.name)) }
            } else {
                whole = (.new, "not in \(version)")
            }
            var columns: [UncheckedValues] = []
            var seen = false
            for column in table.columns where column.hidden == 0 {
                let label = "\(table.name).\(column.name)"
                let fed = feeders[label.identifierKey] ?? []
                if fed.contains(where: holds) {
                    seen = true
                    continue
                }
                let first = fed.first.map { alias("\($0.table).\($0.column)", label) } ?? ""
                let (reason, why): (UncheckedValues.Reason, String) =
                    if let word = declared[label.identifierKey] { (.declared, "declared \"\(word)\"") }
                    else if fed.isEmpty, let whole, whole.0 == .declared { whole }
                    else if fed.isEmpty { (.new, "not in \(version)") }
                    else if fed.allSatisfy({ isEmpty($0.table) }) { (.empty, "no rows in \(version)" + first) }
                    else { (.null, "NULL in every row of \(version)" + first) }
                columns.append(UncheckedValues(table: table.name, column: column.name, reason: reason, why: why))
            }
            // The table once, when each of its columns is unseen for the table's reason.
            if let whole, !seen, columns.allSatisfy({ $0.reason == whole.0 }) {
                unchecked.append(UncheckedValues(table: table.name, column: nil, reason: whole.0, why: whole.1))
            } else {
                unchecked += columns
            }
        }
        return unchecked
    }
}
