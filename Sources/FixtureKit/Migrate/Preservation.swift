import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// Value-level data preservation: after a migration, every row of every table
/// present in both the source fixture and the migrated store is matched by key,
/// and every column present in both compared, value by value.
///
/// SQLite does the work: the source copy is attached to the migrated store and
/// each table is compared in one join, so memory stays bounded whatever the
/// fixture's size. A value is preserved when it reads back as the same value
/// (``LossyConversion``): `'42'` in a TEXT column equals 42 after a change to
/// INTEGER, `'01234'` does not; 3.0 equals 3; date text equals the same instant
/// in INTEGER seconds.
public struct ColumnPreservation: Codable, Equatable, Sendable {
    public internal(set) var table: String
    /// The column, or `nil` for the table's rows as a whole.
    public internal(set) var column: String?
    /// Rows matched by key in both stores.
    public internal(set) var compared: Int
    public internal(set) var equal: Int
    /// Source rows with no row of the same key after the migration.
    public internal(set) var lost: Int
    /// Values that became NULL, became empty, were cut short, or differ otherwise.
    /// (A column or a table that went away counts its values or rows as
    /// ``dropped``, not here.)
    public internal(set) var nulled: Int
    public internal(set) var emptied: Int
    public internal(set) var truncated: Int
    public internal(set) var changed: Int
    /// The first keys of rows that were lost or changed.
    public internal(set) var exampleKeys: [String]
    /// For a column declared moved: `table.column` its values went to, and
    /// how many arrived there (``equal`` counts them too).
    public internal(set) var movedTo: String? = nil
    public internal(set) var moved: Int? = nil
    public internal(set) var passed: Bool
    /// Why it failed, in plain words.
    public internal(set) var finding: String?
    /// `true` when the table's pages were byte-identical to the source's, so
    /// its rows were known equal without a join (``UnchangedTables``).
    public internal(set) var identicalPages: Bool?
    /// For a column or a table no longer there: its non-NULL values, or its
    /// rows, that went away with it (declared `dropped` or not).
    public internal(set) var dropped: Int? = nil
    /// For a column whose values differ: the first rows' values before and
    /// after, as the finding shows them (`(personal)` for a personal column's).
    public internal(set) var exampleValues: [ValueChange]? = nil
}

struct PreservationCheck {
    let database: Database
    let keys: [String: [String]]
    let changes: [String: DeclaredChange]
    let source: SchemaSnapshot
    let migrated: SchemaSnapshot
    /// The source's row counts, when known: they spare a count of each table.
    var sourceCounts: [String: Int] = [:]
    /// The migrated store's row counts, when known.
    var migratedCounts: [String: Int] = [:]
    /// Whether each key is unique in the source, found beforehand
    /// (``SourceKeys``): waited for, then used.
    var sourceKeys: SourceKeys?
    /// The pages of the source's b-trees, walked beforehand (``SourcePages``).
    var sourcePages: SourcePages?
    /// Columns (`table.column`, by `identifierKey`) whose values the report never shows
    /// (the anonymization rules' personal columns); `nil`: every column.
    var personal: Set<String>? = []
    /// Columns (`table.column`, by `identifierKey`) whose values a finding may show,
    /// when not every column but the personal ones may: `upgrade` shows a live
    /// store's values only for the columns the rules `keep`.
    var shownValues: Set<String>? = nil
    /// Renamed tables and columns: the new name, by the old `table`
    /// or `table.column`, by `identifierKey` (``CorpusConfiguration/renameMap``).
    var renames: [String: String] = [:]
    /// Columns declared moved, by source `table.column` (by `identifierKey`).
    var moves: [String: ChangeDeclaration.Move] = [:]
    static let schemaName = "fixturekit_source"
    /// The schema name of the store of the source's keys copied ahead (``SourceKeys/Prebuilt``).
    static let keysSchemaName = "fixturekit_keys"
    /// Rows a finding names at most.
    static let examples = 5
    /// The page cache of the attached source and of the temporary tables, in
    /// KiB: rows found by key are read in another order than they are stored,
    /// and SQLite's default (2 MiB) makes most of those reads a system call.
    static let cacheKiB = 16384

    /// Compares every table of the source; the source store's path is attached
    /// for the time of the check. With `changedPages`, the tables the migration
    /// left byte for byte as they were (``UnchangedTables``) are equal row for
    /// row without a join.
    func run(sourcePath: String, changedPages: ChangedPages? = nil) throws(SQLiteError) -> [ColumnPreservation] {
        _ = try database.rows("ATTACH DATABASE ?1 AS \(Self.schemaName)", [.text(sourcePath)])
        defer { try? database.execute("DETACH DATABASE \(Self.schemaName)") }
        try database.execute("PRAGMA \(Self.schemaName).cache_size = -\(Self.cacheKiB); PRAGMA temp.cache_size = -\(Self.cacheKiB)")
        let known = sourceKeys?.wait() ?? [:]
        // The copies of the keys made ahead, when there are some; without them,
        // each comparison that needs one makes its own.
        var keysStore = known.contains { $0.value.prebuilt != nil } ? sourceKeys?.store : nil
        if let store = keysStore, !attachKeys(store) { keysStore = nil }
        defer { if keysStore != nil { try? database.execute("DETACH DATABASE \(Self.keysSchemaName)") } }
        var unchanged: Set<String> = []
        if let changedPages {
            unchanged = try UnchangedTables.find(database: database, sourceSchema: Self.schemaName, changedPages: changedPages, sourcePages: sourcePages?.wait())
        }
        var results: [ColumnPreservation] = []
        let migratedTables = Dictionary(migrated.tables.map { ($0.name.identifierKey, $0) }, uniquingKeysWith: { first, _ in first })
        for table in source.tables where table.kind == "table" {
            let declared = changes[table.name.identifierKey]
            if declared == .excluded { continue }
            let after = migratedTables[table.name.identifierKey] ?? renames[table.name.identifierKey].flatMap { migratedTables[$0.identifierKey] }
            results += try followMoves(of: table)
            guard let after else {
                // A table that went away: a loss unless declared, when it held rows.
                let rows = try count(table.name)
                let failed = rows > 0 && declared != .dropped
                results.append(ColumnPreservation(
                    table: table.name, column: nil, compared: 0, equal: 0, lost: 0, nulled: 0, emptied: 0, truncated: 0, changed: 0,
                    exampleKeys: [], passed: !failed,
                    finding: failed ? "table \(table.name): gone with its \(rows) rows (declare it \"dropped\" in changes)" : nil, dropped: rows))
                continue
            }
            let key = try matchingKey(table, after, known: known[table.name.identifierKey])
            if let problem = key.problem {
                results.append(problem)
                continue
            }
            let copied = keysStore == nil ? nil : known[table.name.identifierKey].flatMap { $0.key == key.columns ? $0.prebuilt : nil }
            results += unchanged.contains(table.name.identifierKey) ? try untouched(table) : try compare(table, after, key: key.columns, prebuilt: copied)
        }
        return results
    }

    /// Attaches the store of the keys copied ahead, to read; false when it is not there.
    private func attachKeys(_ store: String) -> Bool {
        guard (try? POSIX.lstatIfPresent(store)) ?? nil != nil else { return false }
        do throws(SQLiteError) {
            _ = try database.rows("ATTACH DATABASE ?1 AS \(Self.keysSchemaName)", [.text(store)])
            try database.execute("PRAGMA \(Self.keysSchemaName).cache_size = -\(Self.cacheKiB)")
            return true
        } catch {
            try? database.execute("DETACH DATABASE \(Self.keysSchemaName)")
            return false
        }
    }

    /// The source's row count of `table`.
    func count(_ table: String) throws(SQLiteError) -> Int {
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
            .filter { $0.hidden == 0 && changes["\(table.name).\($0.name)".identifierKey] != .dropped }
            .map { equal($0.name) }
    }

    /// The columns that match the rows of `table` (none: the rowid), or the
    /// finding that says why rows cannot be matched: a key column missing on
    /// either side, or a key that is not unique in the source. Checked for every
    /// table, the ones the migration did not touch too: a wrong `keys` entry
    /// fails whether or not this migration happens to rewrite its table.
    /// - Parameter known: whether the key is unique, when ``SourceKeys`` found it.
    private func matchingKey(_ table: SchemaSnapshot.Table, _ after: SchemaSnapshot.Table, known: SourceKeys.Table?) throws(SQLiteError) -> (columns: [String], problem: ColumnPreservation?) {
        let name = table.name
        let keyColumns = SourceKeys.key(of: table, keys: keys)
        guard !keyColumns.isEmpty else { return ([], nil) }
        let sourceColumns = Set(table.columns.map { $0.name.identifierKey })
        if let missing = keyColumns.first(where: { !sourceColumns.contains($0.identifierKey) }) {
            return (keyColumns, failure(name, "key column \(missing) is not a column of \(name): rows cannot be matched (check \"keys\")"))
        }
        let afterColumns = Set(after.columns.map { $0.name.identifierKey })
        if let missing = keyColumns.first(where: { !afterColumns.contains($0.identifierKey) }) {
            return (keyColumns, failure(name, "key column \(missing) is missing after the migration: rows cannot be matched (declare \"keys\")"))
        }
        var unique = Self.isUnique(keyColumns, in: table, of: source)
        if !unique, let known, known.key == keyColumns { unique = known.unique }
        if !unique, known?.key != keyColumns { unique = try Self.isUnique(keyColumns, of: name, schema: Self.schemaName, in: database) }
        if !unique {
            let expressions = keyColumns.map(quotedIdentifier).joined(separator: ", ")
            return (keyColumns, failure(name, "key (\(expressions)) is not unique in the source: rows cannot be matched (declare \"keys\")"))
        }
        return (keyColumns, nil)
    }

    /// Whether no two rows of `schema.table` share the values of `key` (NULLs
    /// count as one value, as in `GROUP BY`): the groups of a sort of the keys
    /// (`DISTINCT` would insert them one by one into a b-tree: 7 times slower
    /// on 2,000,000 keys).
    /// - Parameter collations: one a key column, for a table whose columns do
    ///   not carry the collations the key is compared under (a copy of the
    ///   keys); nil: the columns' own.
    static func isUnique(_ key: [String], of table: String, schema: String, collations: [String]? = nil, in database: Database) throws(SQLiteError) -> Bool {
        let source = "\(schema).\(quotedIdentifier(table))"
        let grouped = key.enumerated().map { index, column in
            collations.map { "\(quotedIdentifier(column)) COLLATE \(quotedIdentifier($0[index]))" } ?? quotedIdentifier(column)
        }
        let groups = try database.scalar("SELECT count(*) FROM (SELECT 1 FROM \(source) GROUP BY \(grouped.joined(separator: ", ")))")
        return groups == (try database.scalar("SELECT count(*) FROM \(source)"))
    }

    /// Whether `key` is unique in `table` (of `schema`) by construction: the
    /// rowid, or the primary key of a WITHOUT ROWID table or an INTEGER PRIMARY
    /// KEY (the rowid under another name). Other keys are counted: a rowid
    /// table's other primary keys may hold NULL, in several rows.
    static func isUnique(_ key: [String], in table: SchemaSnapshot.Table, of schema: SchemaSnapshot) -> Bool {
        if key.isEmpty { return true }
        guard table.primaryKey.map({ $0.name.identifierKey }) == key.map({ $0.identifierKey }) else { return false }
        return table.withoutRowID || schema.rowidColumn(of: table) != nil
    }

    private func failure(_ table: String, _ finding: String) -> ColumnPreservation {
        ColumnPreservation(table: table, column: nil, compared: 0, equal: 0, lost: 0, nulled: 0, emptied: 0, truncated: 0, changed: 0, exampleKeys: [], passed: false, finding: finding)
    }

    /// ` (keys 1; 2; 3)`, or nothing when no key may be shown.
    static func keysNote(_ keys: [String]) -> String {
        keys.isEmpty ? "" : " (keys \(keys.joined(separator: "; ")))"
    }

    /// The same value (see LossyConversion.swift): of one storage class and
    /// equal as `IS` compares; numbers of equal value; text and a number that
    /// reads back as that very text; or date text and INTEGER seconds of the
    /// same instant.
    static func sameValue(_ s: String, _ m: String) -> String {
        LossyConversion.sameValue(s, m)
    }

    /// A JSON array with its elements sorted, or the value itself when it is not one.
    static func sortedJSON(_ value: String) -> String {
        "CASE WHEN json_valid(\(value)) AND json_type(\(value)) = 'array' THEN (SELECT json_group_array(value) FROM (SELECT value FROM json_each(\(value)) ORDER BY value)) ELSE \(value) END"
    }
}
