import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// Value-level data preservation: after a migration, every row of every table
/// present in both the source fixture and the migrated store is matched by key,
/// and every column present in both compared, value by value.
///
/// SQLite does the work: the source copy is attached to the migrated store and
/// each table is compared in one join, so memory stays bounded whatever the
/// fixture's size. Values compare as SQLite compares them (`IS`, with column
/// affinity: `'42'` in a TEXT column equals 42 after a change to INTEGER, 3.0
/// equals 3); date text equals the same instant in INTEGER seconds.
public struct ColumnPreservation: Codable, Equatable, Sendable {
    public var table: String
    /// The column, or `nil` for the table's rows as a whole.
    public var column: String?
    /// Rows matched by key in both stores.
    public var compared: Int
    public var equal: Int
    /// Source rows with no row of the same key after the migration.
    public var lost: Int
    /// Values that became NULL, became empty, were cut short, or differ otherwise.
    public var nulled: Int
    public var emptied: Int
    public var truncated: Int
    public var changed: Int
    /// The first keys of rows that were lost or changed (never the values).
    public var exampleKeys: [String]
    public var passed: Bool
    /// Why it failed, in plain words.
    public var finding: String?
    /// `true` when the table's pages were byte-identical to the source's, so
    /// its rows were known equal without a join (``UnchangedTables``).
    public var identicalPages: Bool?
}

struct PreservationCheck {
    let database: Database
    let keys: [String: [String]]
    let changes: [String: DeclaredChange]
    let source: SchemaSnapshot
    let migrated: SchemaSnapshot
    /// The source's row counts, when known: they spare a count of each table.
    var sourceCounts: [String: Int] = [:]
    /// Columns (`table.column`, lowercased) whose values the report never shows
    /// (the anonymization rules' personal columns); `nil`: every column.
    var personal: Set<String>? = []
    static let schemaName = "fixturekit_source"
    static let examples = 3

    /// Compares every table of the source; the source store's path is attached
    /// for the time of the check. With `changedPages`, the tables the migration
    /// left byte for byte as they were (``UnchangedTables``) are equal row for
    /// row without a join.
    func run(sourcePath: String, changedPages: ChangedPages? = nil) throws(SQLiteError) -> [ColumnPreservation] {
        _ = try database.rows("ATTACH DATABASE ?1 AS \(Self.schemaName)", [.text(sourcePath)])
        defer { try? database.execute("DETACH DATABASE \(Self.schemaName)") }
        var unchanged: Set<String> = []
        if let changedPages { unchanged = try UnchangedTables.find(database: database, sourceSchema: Self.schemaName, changedPages: changedPages) }
        var results: [ColumnPreservation] = []
        let migratedTables = Dictionary(migrated.tables.map { ($0.name.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        for table in source.tables where table.kind == "table" {
            let declared = changes[table.name.lowercased()]
            if declared == .excluded { continue }
            guard let after = migratedTables[table.name.lowercased()] else {
                // A table that went away: a loss unless declared, when it held rows.
                let rows = try count(table.name)
                let failed = rows > 0 && declared != .dropped
                results.append(ColumnPreservation(
                    table: table.name, column: nil, compared: 0, equal: 0, lost: rows, nulled: 0, emptied: 0, truncated: 0, changed: 0,
                    exampleKeys: [], passed: !failed,
                    finding: failed ? "table \(table.name): gone with its \(rows) rows (declare it \"dropped\" in changes)" : nil))
                continue
            }
            let key = try matchingKey(table, after)
            if let problem = key.problem {
                results.append(problem)
                continue
            }
            results += unchanged.contains(table.name.lowercased()) ? try untouched(table) : try compare(table, after, key: key.columns)
        }
        return results
    }

    /// The source's row count of `table`.
    private func count(_ table: String) throws(SQLiteError) -> Int {
        if let known = sourceCounts[table] { return known }
        return Int(try database.scalar("SELECT count(*) FROM \(Self.schemaName).\(quotedIdentifier(table))")?.integer ?? 0)
    }

    /// A table the migration did not touch: every row is there, every value equal.
    private func untouched(_ table: SchemaSnapshot.Table) throws(SQLiteError) -> [ColumnPreservation] {
        let rows = try count(table.name)
        func equal(_ column: String?) -> ColumnPreservation {
            ColumnPreservation(
                table: table.name, column: column, compared: rows, equal: rows, lost: 0, nulled: 0, emptied: 0, truncated: 0, changed: 0,
                exampleKeys: [], passed: true, finding: nil, identicalPages: true)
        }
        return [equal(nil)] + table.columns
            .filter { $0.hidden == 0 && changes["\(table.name).\($0.name)".lowercased()] != .dropped }
            .map { equal($0.name) }
    }

    /// The columns that match the rows of `table` (none: the rowid), or the
    /// finding that says why rows cannot be matched: a key column missing on
    /// either side, or a key that is not unique in the source. Checked for every
    /// table, the ones the migration did not touch too: a wrong `keys` entry
    /// fails whether or not this migration happens to rewrite its table.
    private func matchingKey(_ table: SchemaSnapshot.Table, _ after: SchemaSnapshot.Table) throws(SQLiteError) -> (columns: [String], problem: ColumnPreservation?) {
        let name = table.name
        let keyColumns = keys[name] ?? keys[name.lowercased()] ?? table.columns.filter { $0.primaryKey > 0 }.sorted { $0.primaryKey < $1.primaryKey }.map(\.name)
        guard !keyColumns.isEmpty else { return ([], nil) }
        let sourceColumns = Set(table.columns.map { $0.name.lowercased() })
        if let missing = keyColumns.first(where: { !sourceColumns.contains($0.lowercased()) }) {
            return (keyColumns, failure(name, "key column \(missing) is not a column of \(name): rows cannot be matched (check \"keys\")"))
        }
        let afterColumns = Set(after.columns.map { $0.name.lowercased() })
        if let missing = keyColumns.first(where: { !afterColumns.contains($0.lowercased()) }) {
            return (keyColumns, failure(name, "key column \(missing) is missing after the migration: rows cannot be matched (declare \"keys\")"))
        }
        if !Self.isUnique(keyColumns, in: table) {
            let expressions = keyColumns.map(quotedIdentifier).joined(separator: ", ")
            let source = "\(Self.schemaName).\(quotedIdentifier(name))"
            let distinct = Int(try database.scalar("SELECT count(*) FROM (SELECT DISTINCT \(expressions) FROM \(source))")?.integer ?? 0)
            if distinct != (try count(name)) {
                return (keyColumns, failure(name, "key (\(expressions)) is not unique in the source: rows cannot be matched (declare \"keys\")"))
            }
        }
        return (keyColumns, nil)
    }

    /// Whether `key` is unique in `table` by construction: the rowid, or the
    /// primary key of a WITHOUT ROWID table or an INTEGER PRIMARY KEY (the rowid
    /// under another name). Other keys are counted.
    private static func isUnique(_ key: [String], in table: SchemaSnapshot.Table) -> Bool {
        if key.isEmpty { return true }
        let primaryKey = table.columns.filter { $0.primaryKey > 0 }.sorted { $0.primaryKey < $1.primaryKey }
        guard primaryKey.map({ $0.name.lowercased() }) == key.map({ $0.lowercased() }) else { return false }
        return table.withoutRowID || (primaryKey.count == 1 && primaryKey[0].type == "INTEGER")
    }

    /// - Parameter keyColumns: from ``matchingKey(_:_:)``.
    private func compare(_ table: SchemaSnapshot.Table, _ after: SchemaSnapshot.Table, key keyColumns: [String]) throws(SQLiteError) -> [ColumnPreservation] {
        let name = table.name
        let source = "\(Self.schemaName).\(quotedIdentifier(name))"
        let target = "main.\(quotedIdentifier(after.name))"
        let afterColumns = Set(after.columns.map { $0.name.lowercased() })
        let usesRowID = keyColumns.isEmpty
        let keyExpressions = usesRowID ? ["rowid"] : keyColumns.map(quotedIdentifier)
        let join = keyExpressions.map { "s.\($0) = m.\($0)" }.joined(separator: " AND ")
        // Example keys name rows by their key, or by their rowid when the key
        // holds personal values.
        let personalKey = !usesRowID && keyColumns.contains { personal?.contains("\(name).\($0)".lowercased()) ?? true }
        let keyText = !personalKey ? keyExpressions.map { "quote(s.\($0))" }.joined(separator: " || ', ' || ")
            : table.withoutRowID ? "NULL" : "'rowid ' || s.rowid"
        let keyOrder = keyExpressions.map { "s.\($0)" }.joined(separator: ", ")

        let total = try count(name)

        // Which columns are compared, and how.
        var results: [ColumnPreservation] = []
        var compared: [(column: SchemaSnapshot.Column, equal: String)] = []
        for column in table.columns where column.hidden == 0 {
            let label = "\(name).\(column.name)"
            let declared = changes[label.lowercased()]
            let quoted = quotedIdentifier(column.name)
            guard afterColumns.contains(column.name.lowercased()) else {
                let held = Int(try database.scalar("SELECT count(*) FROM \(source) WHERE \(quoted) IS NOT NULL")?.integer ?? 0)
                let failed = held > 0 && declared != .dropped
                results.append(ColumnPreservation(
                    table: name, column: column.name, compared: 0, equal: 0, lost: 0, nulled: held, emptied: 0, truncated: 0, changed: 0,
                    exampleKeys: [], passed: !failed,
                    finding: failed ? "\(label): gone with \(held) non-NULL values (declare it \"dropped\" in changes)" : nil))
                continue
            }
            if declared == .dropped { continue }
            let s = "s.\(quoted)", m = "m.\(quoted)"
            switch declared {
            case .derived: compared.append((column, "(CASE WHEN \(s) IS NULL OR \(m) IS NOT NULL THEN 1 ELSE 0 END)"))
            case .unordered: compared.append((column, "(CASE WHEN \(s) IS \(m) THEN 1 WHEN \(Self.sortedJSON(s)) IS \(Self.sortedJSON(m)) THEN 1 ELSE 0 END)"))
            default: compared.append((column, Self.sameValue(s, m)))
            }
        }

        // One pass of the join: the rows matched, and those whose every column
        // is the same value, as `IS` compares (`NOT` and `AND` cost far less
        // than the per-column sums below). When some differ, a second pass
        // counts each column's equal values.
        let sameRow = compared.isEmpty ? "1" : compared.map { entry in
            let quoted = quotedIdentifier(entry.column.name)
            return changes["\(name).\(entry.column.name)".lowercased()] == .derived
                ? "(s.\(quoted) IS NULL OR m.\(quoted) IS NOT NULL)" : "s.\(quoted) IS m.\(quoted)"
        }.joined(separator: " AND ")
        let joined = "FROM \(source) AS s JOIN \(target) AS m ON \(join)"
        let first = (try database.rows("SELECT count(*), coalesce(sum(\(sameRow)), 0) \(joined)").first ?? []).map { Int($0.integer ?? 0) }
        guard first.count == 2 else { return results }
        let matched = first[0]
        var counts = [matched] + Array(repeating: matched, count: compared.count)
        if first[1] < matched {
            let equalSums = compared.map { "coalesce(sum(\($0.equal)), 0)" }
            counts = (try database.rows("SELECT \((["count(*)"] + equalSums).joined(separator: ", ")) \(joined)").first ?? []).map { Int($0.integer ?? 0) }
            guard counts.count == 1 + compared.count else { return results }
        }

        // Rows lost: the source rows the join did not match, when each source row
        // matches at most one row (a key unique after the migration too), else counted.
        let lostCondition = "NOT EXISTS (SELECT 1 FROM \(target) AS m WHERE \(join))"
        let lost = Self.isUnique(keyColumns, in: after) && Self.isUnique(keyColumns, in: table)
            ? total - matched
            : Int(try database.scalar("SELECT count(*) FROM \(source) AS s WHERE \(lostCondition)")?.integer ?? 0)
        let lostKeys = lost == 0 ? [] : try database.rows("SELECT \(keyText) FROM \(source) AS s WHERE \(lostCondition) ORDER BY \(keyOrder) LIMIT \(Self.examples)").compactMap { $0.first?.text }
        results.insert(ColumnPreservation(
            table: name, column: nil, compared: total - lost, equal: total - lost, lost: lost, nulled: 0, emptied: 0, truncated: 0, changed: 0,
            exampleKeys: lostKeys, passed: lost == 0,
            finding: lost == 0 ? nil : "\(name): \(lost) of \(total) rows lost\(Self.keysNote(lostKeys))"), at: 0)

        for (index, (column, equalExpression)) in compared.enumerated() {
            let equal = counts[1 + index]
            let label = "\(name).\(column.name)"
            guard equal < matched else {
                results.append(ColumnPreservation(
                    table: name, column: column.name, compared: matched, equal: equal, lost: 0, nulled: 0, emptied: 0, truncated: 0, changed: 0,
                    exampleKeys: [], passed: true, finding: nil))
                continue
            }
            // A column with differences: what kind, and the first keys.
            let quoted = quotedIdentifier(column.name)
            let s = "s.\(quoted)", m = "m.\(quoted)"
            // In a value, SQLite evaluates both sides of AND and OR; CASE stops
            // at the first WHEN that holds, so the date functions run only where needed.
            let differs = "WHEN \(s) IS \(m) THEN 0 WHEN \(equalExpression) THEN 0"
            let kinds = [
                "coalesce(sum(CASE \(differs) WHEN \(s) IS NOT NULL AND \(m) IS NULL THEN 1 ELSE 0 END), 0)",
                "coalesce(sum(CASE \(differs) WHEN typeof(\(s)) = 'text' AND \(s) <> '' AND \(m) = '' THEN 1 ELSE 0 END), 0)",
                "coalesce(sum(CASE \(differs) WHEN typeof(\(s)) = 'text' AND typeof(\(m)) = 'text' AND \(m) <> '' AND length(\(m)) < length(\(s)) AND substr(\(s), 1, length(\(m))) = \(m) THEN 1 ELSE 0 END), 0)",
            ]
            let breakdown = (try database.rows("SELECT \(kinds.joined(separator: ", ")) FROM \(source) AS s JOIN \(target) AS m ON \(join)").first ?? [])
                .map { Int($0.integer ?? 0) }
            let (nulled, emptied, truncated) = breakdown.count == 3 ? (breakdown[0], breakdown[1], breakdown[2]) : (0, 0, 0)
            let changed = matched - equal - nulled - emptied - truncated
            let examples = try database.rows("SELECT \(keyText) FROM \(source) AS s JOIN \(target) AS m ON \(join) WHERE \(equalExpression) = 0 ORDER BY \(keyOrder) LIMIT \(Self.examples)").compactMap { $0.first?.text }
            var parts: [String] = []
            if nulled > 0 { parts.append("\(nulled) became NULL") }
            if emptied > 0 { parts.append("\(emptied) became empty") }
            if truncated > 0 { parts.append("\(truncated) truncated") }
            if changed > 0 { parts.append("\(changed) changed") }
            results.append(ColumnPreservation(
                table: name, column: column.name, compared: matched, equal: equal, lost: 0, nulled: nulled, emptied: emptied,
                truncated: truncated, changed: changed, exampleKeys: examples, passed: false,
                finding: "\(label): \(parts.joined(separator: ", ")) of \(matched) values\(Self.keysNote(examples))"))
        }
        return results
    }

    private func failure(_ table: String, _ finding: String) -> ColumnPreservation {
        ColumnPreservation(table: table, column: nil, compared: 0, equal: 0, lost: 0, nulled: 0, emptied: 0, truncated: 0, changed: 0, exampleKeys: [], passed: false, finding: finding)
    }

    /// ` (keys 1; 2; 3)`, or nothing when no key may be shown.
    static func keysNote(_ keys: [String]) -> String {
        keys.isEmpty ? "" : " (keys \(keys.joined(separator: "; ")))"
    }

    /// Equal as SQLite compares (`IS`, with affinity), or the same instant as date
    /// text on one side and INTEGER seconds on the other.
    static func sameValue(_ s: String, _ m: String) -> String {
        """
        (CASE WHEN \(s) IS \(m) THEN 1 \
        WHEN typeof(\(s)) = 'text' AND typeof(\(m)) = 'integer' THEN coalesce(strftime('%s', \(s)) = CAST(\(m) AS TEXT), 0) \
        WHEN typeof(\(s)) = 'integer' AND typeof(\(m)) = 'text' THEN coalesce(strftime('%s', \(m)) = CAST(\(s) AS TEXT), 0) \
        ELSE 0 END)
        """
    }

    /// A JSON array with its elements sorted, or the value itself when it is not one.
    static func sortedJSON(_ value: String) -> String {
        "CASE WHEN json_valid(\(value)) AND json_type(\(value)) = 'array' THEN (SELECT json_group_array(value) FROM (SELECT value FROM json_each(\(value)) ORDER BY value)) ELSE \(value) END"
    }
}
