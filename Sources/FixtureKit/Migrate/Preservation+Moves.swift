import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

extension PreservationCheck {
    /// The migrated rows of a move's target, copied once with their key:
    /// `(k, v)`, indexed on `k`.
    static let movedValues = "fixturekit_moved_values"

    /// Follows each column of `table` declared moved to its new place.
    func followMoves(of table: SchemaSnapshot.Table) throws(SQLiteError) -> [ColumnPreservation] {
        var results: [ColumnPreservation] = []
        for column in table.columns where column.hidden == 0 {
            guard let move = moves["\(table.name).\(column.name)".identifierKey] else { continue }
            results.append(try follow(column.name, of: table, move: move))
        }
        return results
    }

    /// Every non-NULL source value of `column` must be found, the same value
    /// (``LossyConversion``), in a row of the move's target whose key column
    /// holds the source row's key (its one-column key, or its rowid).
    ///
    /// No quadratic path: the target's keys and values are copied into a
    /// temporary table of this connection and indexed by key (SQLite sorts
    /// them once); the source rows are scanned, each key looked up there.
    /// A key found in several target rows passes when one of them holds the value.
    private func follow(_ column: String, of table: SchemaSnapshot.Table, move: ChangeDeclaration.Move) throws(SQLiteError) -> ColumnPreservation {
        let label = "\(table.name).\(column) -> \(move.movedTo)"
        func failure(_ why: String) -> ColumnPreservation {
            ColumnPreservation(
                table: table.name, column: column, compared: 0, equal: 0, lost: 0, nulled: 0, emptied: 0, truncated: 0, changed: 0,
                exampleKeys: [], movedTo: move.movedTo, moved: 0, passed: false, finding: "\(label): \(why)")
        }
        guard let to = CorpusConfiguration.columnName(move.movedTo), let key = CorpusConfiguration.columnName(move.key) else {
            return failure("not a table.column")
        }
        guard let target = migrated.tables.first(where: { $0.kind == "table" && $0.name.identifierKey == to.table.identifierKey }) else {
            return failure("there is no table \(to.table) after the migration")
        }
        let targetColumns = Set(target.columns.map { $0.name.identifierKey })
        for needed in [to.column, key.column] where !targetColumns.contains(needed.identifierKey) {
            return failure("there is no column \(to.table).\(needed) after the migration")
        }
        let sourceKey = SourceKeys.key(of: table, keys: keys)
        guard sourceKey.count <= 1 else {
            return failure("the key of \(table.name) has \(sourceKey.count) columns; a move follows a one-column key or the rowid")
        }
        let keyExpression = sourceKey.first.map(quotedIdentifier) ?? "rowid"
        let source = "\(Self.schemaName).\(quotedIdentifier(table.name))"
        let values = "temp.\(Self.movedValues)"
        try database.execute("DROP TABLE IF EXISTS \(values)")
        defer { try? database.execute("DROP TABLE IF EXISTS \(values)") }
        // `k` takes the source key's affinity, `v` none: values stay as stored.
        try database.execute("CREATE TEMP TABLE \(Self.movedValues) AS SELECT s.\(keyExpression) AS k, NULL AS v FROM \(source) AS s WHERE 0")
        try database.execute("INSERT INTO \(values) SELECT m.\(quotedIdentifier(key.column)), m.\(quotedIdentifier(to.column)) FROM main.\(quotedIdentifier(target.name)) AS m")
        try database.execute("CREATE INDEX \(values)_by_key ON \(Self.movedValues) (k)")

        let s = "s.\(quotedIdentifier(column))"
        let lookup = "SELECT 1 FROM \(values) AS n WHERE n.k = s.\(keyExpression)"
        let found = "EXISTS (\(lookup))"
        let equal = "EXISTS (\(lookup) AND \(Self.sameValue(s, "n.v")))"
        let held = "EXISTS (\(lookup) AND n.v IS NOT NULL)"
        let rows = "FROM \(source) AS s WHERE \(s) IS NOT NULL"
        let sums = [
            "count(*)",
            "coalesce(sum(CASE WHEN \(equal) THEN 1 ELSE 0 END), 0)",
            "coalesce(sum(CASE WHEN \(found) THEN 0 ELSE 1 END), 0)",
            "coalesce(sum(CASE WHEN \(equal) THEN 0 WHEN \(held) THEN 0 WHEN \(found) THEN 1 ELSE 0 END), 0)",
        ]
        let counts = (try database.rows("SELECT \(sums.joined(separator: ", ")) \(rows)").first ?? []).map { Int($0.integer ?? 0) }
        guard counts.count == 4 else { return failure("could not be counted") }
        let (total, arrived, lost, nulled) = (counts[0], counts[1], counts[2], counts[3])
        let changed = total - arrived - lost - nulled
        var shown: [ValueChange] = []
        let personalKey = sourceKey.contains { personal?.contains("\(table.name).\($0)".identifierKey) ?? true }
        if arrived < total {
            let keyText = !personalKey ? "quote(s.\(keyExpression))" : table.withoutRowID ? "NULL" : "'rowid ' || s.rowid"
            // The value that arrived: a non-NULL one, of the key's rows, when there is one.
            let arrivedValue = "(SELECT n.v FROM \(values) AS n WHERE n.k = s.\(keyExpression) ORDER BY n.v IS NULL LIMIT 1)"
            shown = try valueChanges(
                keyText: keyText, before: s, after: arrivedValue, absent: "NOT \(found)", rows: "\(rows) AND NOT \(equal)",
                order: "s.\(keyExpression)", hidden: !showsValues(of: ["\(table.name).\(column)", move.movedTo]))
        }
        let examples = shown.map(\.key)
        var parts: [String] = []
        if lost > 0 { parts.append("\(lost) lost") }
        if nulled > 0 { parts.append("\(nulled) became NULL") }
        if changed > 0 { parts.append("\(changed) changed") }
        return ColumnPreservation(
            table: table.name, column: column, compared: total, equal: arrived, lost: lost, nulled: nulled, emptied: 0, truncated: 0, changed: changed,
            exampleKeys: examples, movedTo: move.movedTo, moved: arrived, passed: arrived == total,
            finding: arrived == total ? nil : "\(label): \(parts.joined(separator: ", ")) of \(total) values\(Self.valuesNote(shown, byKey: !personalKey))",
            exampleValues: arrived == total ? nil : shown)
    }
}
