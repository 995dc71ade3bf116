import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

extension PreservationCheck {
    /// Compares one table present in both stores: its rows paired by key
    /// (``RowPairing``), then every column present in both, value by value.
    /// - Parameter keyColumns: from ``matchingKey(_:_:known:)``; empty for the rowid.
    /// - Parameter prebuilt: the source's keys copied ahead, in the attached keys store.
    func compare(_ table: SchemaSnapshot.Table, _ after: SchemaSnapshot.Table, key keyColumns: [String], prebuilt: SourceKeys.Prebuilt? = nil) throws(SQLiteError) -> [ColumnPreservation] {
        let name = table.name
        let source = "\(Self.schemaName).\(quotedIdentifier(name))"
        let afterColumns = Set(after.columns.map { $0.name.identifierKey })
        let usesRowID = keyColumns.isEmpty
        let keyExpressions = usesRowID ? ["rowid"] : keyColumns.map(quotedIdentifier)
        let keyOrder = keyExpressions.map { "s.\($0)" }.joined(separator: ", ")

        let total = try count(name)

        // Which columns are compared, and how.
        var results: [ColumnPreservation] = []
        var compared: [(column: SchemaSnapshot.Column, equal: String)] = []
        var targets: [String: String] = [:]
        for column in table.columns where column.hidden == 0 {
            let label = "\(name).\(column.name)"
            let declared = changes[label.identifierKey]
            // Moved columns are followed to their new place (Preservation+Moves.swift).
            if moves[label.identifierKey] != nil { continue }
            let quoted = quotedIdentifier(column.name)
            let target = migratedName(of: column.name, in: table, afterColumns: afterColumns)
            guard afterColumns.contains(target.identifierKey) else {
                let held = Int(try database.scalar("SELECT count(*) FROM \(source) WHERE \(quoted) IS NOT NULL")?.integer ?? 0)
                let failed = held > 0 && declared != .dropped
                results.append(ColumnPreservation(
                    table: name, column: column.name, compared: 0, equal: 0, lost: 0, nulled: 0, emptied: 0, truncated: 0, changed: 0,
                    exampleKeys: [], passed: !failed,
                    finding: failed ? "\(label): gone with \(held) non-NULL values (declare it \"dropped\" in changes)" : nil, dropped: held))
                continue
            }
            if declared == .dropped { continue }
            targets[column.name] = target
            let s = "s.\(quoted)", m = "m.\(quotedIdentifier(target))"
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
        // Between columns of one affinity, `IS` converts nothing. Between two
        // (TEXT, then INTEGER) it would take '01234' for 1234: one storage class
        // too (typeof on every row of every column costs the pass twice its time,
        // so only there).
        let afterTypes = Dictionary(after.columns.map { ($0.name.identifierKey, $0.type) }, uniquingKeysWith: { first, _ in first })
        let sameRow = compared.isEmpty ? "1" : compared.map { entry in
            let target = targets[entry.column.name] ?? entry.column.name
            let s = "s.\(quotedIdentifier(entry.column.name))", m = "m.\(quotedIdentifier(target))"
            if changes["\(name).\(entry.column.name)".identifierKey] == .derived { return "(\(s) IS NULL OR \(m) IS NOT NULL)" }
            let sameAffinity = AnonymizationSchema.Affinity(declaredType: entry.column.type) == AnonymizationSchema.Affinity(declaredType: afterTypes[target.identifierKey] ?? "")
            return sameAffinity ? "\(s) IS \(m)" : "(\(s) IS \(m) AND typeof(\(s)) = typeof(\(m)))"
        }.joined(separator: " AND ")
        var pairing = try RowPairing(
            database: database, schema: Self.schemaName, table: table, after: after, sourceSchema: self.source,
            migratedSchema: migrated, key: keyColumns, total: total, migratedCount: migratedCounts[after.name], sameRow: sameRow, compared: compared.map(\.column.name),
            prebuilt: prebuilt)
        defer { pairing.drop() }
        // Example keys name rows by their key, or by their rowid when the key
        // holds personal values.
        let personalKey = !usesRowID && keyColumns.contains { personal?.contains("\(name).\($0)".identifierKey) ?? true }
        let keyText = !personalKey ? keyExpressions.map { "quote(s.\($0))" }.joined(separator: " || ', ' || ")
            : table.withoutRowID ? "NULL" : "'rowid ' || \(pairing.sourceRowid)"
        let joined = pairing.from
        let matched = pairing.matched
        var counts = [matched] + Array(repeating: matched, count: compared.count)
        if pairing.equalRows < matched {
            let equalSums = compared.map { "coalesce(sum(\($0.equal)), 0)" }
            counts = (try database.rows("SELECT \((["count(*)"] + equalSums).joined(separator: ", ")) \(joined)").first ?? []).map { Int($0.integer ?? 0) }
            guard counts.count == 1 + compared.count else { return results }
        }

        // Rows lost: the source rows no migrated row matches.
        let lost = try pairing.lost()
        let lostKeys = lost == 0 ? [] : try pairing.lostKeys(keyText: keyText, keyOrder: keyOrder, limit: Self.examples)
        results.insert(ColumnPreservation(
            table: name, column: nil, compared: total - lost, equal: total - lost, lost: lost, nulled: 0, emptied: 0, truncated: 0, changed: 0,
            exampleKeys: lostKeys, passed: lost == 0,
            finding: lost == 0 ? nil : "\(name): \(lost) of \(total) rows lost\(Self.keysNote(lostKeys))"), at: 0)

        for (index, (column, equalExpression)) in compared.enumerated() {
            let equal = counts[1 + index]
            let target = targets[column.name] ?? column.name
            let label = "\(name).\(column.name)" + (target == column.name ? "" : " -> \(target)")
            guard equal < matched else {
                results.append(ColumnPreservation(
                    table: name, column: column.name, compared: matched, equal: equal, lost: 0, nulled: 0, emptied: 0, truncated: 0, changed: 0,
                    exampleKeys: [], passed: true, finding: nil))
                continue
            }
            // A column with differences: what kind, and the first keys.
            let s = "s.\(quotedIdentifier(column.name))", m = "m.\(quotedIdentifier(target))"
            // In a value, SQLite evaluates both sides of AND and OR; CASE stops
            // at the first WHEN that holds, so the date functions run only where needed.
            let differs = "WHEN \(equalExpression) THEN 0"
            let kinds = [
                "coalesce(sum(CASE \(differs) WHEN \(s) IS NOT NULL AND \(m) IS NULL THEN 1 ELSE 0 END), 0)",
                "coalesce(sum(CASE \(differs) WHEN typeof(\(s)) = 'text' AND \(s) <> '' AND \(m) = '' THEN 1 ELSE 0 END), 0)",
                "coalesce(sum(CASE \(differs) WHEN typeof(\(s)) = 'text' AND typeof(\(m)) = 'text' AND \(m) <> '' AND length(\(m)) < length(\(s)) AND substr(\(s), 1, length(\(m))) = \(m) THEN 1 ELSE 0 END), 0)",
            ]
            let breakdown = (try database.rows("SELECT \(kinds.joined(separator: ", ")) \(joined)").first ?? []).map { Int($0.integer ?? 0) }
            let (nulled, emptied, truncated) = breakdown.count == 3 ? (breakdown[0], breakdown[1], breakdown[2]) : (0, 0, 0)
            let changed = matched - equal - nulled - emptied - truncated
            let hidden = !showsValues(of: ["\(name).\(column.name)", "\(after.name).\(target)"])
            let values = try valueChanges(keyText: keyText, before: s, after: m, rows: "\(joined) WHERE \(equalExpression) = 0", order: keyOrder, hidden: hidden)
            let examples = values.map(\.key)
            var parts: [String] = []
            if nulled > 0 { parts.append("\(nulled) became NULL") }
            if emptied > 0 { parts.append("\(emptied) became empty") }
            if truncated > 0 { parts.append("\(truncated) truncated") }
            if changed > 0 { parts.append("\(changed) changed") }
            results.append(ColumnPreservation(
                table: name, column: column.name, compared: matched, equal: equal, lost: 0, nulled: nulled, emptied: emptied,
                truncated: truncated, changed: changed, exampleKeys: examples, passed: false,
                finding: "\(label): \(parts.joined(separator: ", ")) of \(matched) values\(Self.valuesNote(values, byKey: !personalKey))",
                exampleValues: values))
        }
        return results
    }

    /// The migrated name of a source column: its own when the migrated table
    /// has it, else its declared new name.
    func migratedName(of column: String, in table: SchemaSnapshot.Table, afterColumns: Set<String>) -> String {
        if afterColumns.contains(column.identifierKey) { return column }
        return renames["\(table.name).\(column)".identifierKey] ?? column
    }
}
