import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// What the watcher reads of the store before and after a statement: the
/// schema through SQLite's pragmas, `sqlite_sequence`, counts of values.
extension LintWatcher {
    /// Whether `table` is a table of the main schema now.
    func exists(_ table: String) -> Bool {
        ((try? database.scalar("SELECT 1 FROM main.sqlite_schema WHERE type = 'table' AND name = ?1 COLLATE NOCASE", [.text(table)])) ?? nil) != nil
    }

    /// `table`'s columns (`PRAGMA table_xinfo`, generated and hidden ones left out); `nil` when it does not exist.
    func columns(of table: String) -> [String]? {
        guard exists(table), let rows = try? database.rows("SELECT name FROM pragma_table_xinfo(?1, 'main') WHERE hidden = 0 ORDER BY cid", [.text(table)]) else { return nil }
        return rows.compactMap { $0.first?.text }
    }

    /// `table` as it is now, before a statement drops or alters it: its columns and
    /// the values they hold, its rows, the child rows that refer to it.
    ///
    /// The counts are one scan of the table, as long as a read of it: only
    /// those a rule can still ask for are taken. `skipping` names columns
    /// (by `identifierKey`) whose count no rule will read (their `held` is 0), and
    /// `rows` is 0 unless `countingRows`; with nothing to count, nothing is read.
    func snapshot(_ table: String, place: StagePlace, skipping: Set<String> = [], countingRows: Bool = true) -> TableBefore? {
        guard let columns = columns(of: table), !columns.isEmpty else { return nil }
        let counted = columns.indices.filter { !skipping.contains(columns[$0].identifierKey) }
        var held = [Int](repeating: 0, count: columns.count), rows = 0
        if countingRows || !counted.isEmpty {
            let counts = ["count(*)"] + counted.map { "count(\(quotedIdentifier(columns[$0])))" }
            guard let row = (try? database.rows("SELECT \(counts.joined(separator: ", ")) FROM main.\(quotedIdentifier(table))"))?.first else { return nil }
            rows = Int(row[0].integer ?? 0)
            for (index, value) in zip(counted, row.dropFirst()) { held[index] = Int(value.integer ?? 0) }
        }
        // A table that refers to itself is not its own child: its rows go with it.
        let children = ((try? ConstraintProbe.children(of: table, in: database)) ?? []).filter { $0.table.identifierKey != table.identifierKey }
        let own = Int((try? database.scalar("SELECT count(*) FROM pragma_foreign_key_list(?1, 'main')", [.text(table)]))??.integer ?? 0)
        let foreignKeys = (try? database.scalar("PRAGMA foreign_keys"))??.integer == 1
        return TableBefore(
            place: place, columns: columns, held: held, rows: rows,
            children: children.map { ($0.table, $0.column, $0.count) }, foreignKeysOn: foreignKeys, related: own > 0 || !children.isEmpty)
    }

    /// `table`'s columns as they are now, nothing counted: all that an ALTER TABLE
    /// that cannot drop a column needs of it (the features it uses are told by
    /// its columns). The counting scan of
    /// ``snapshot(_:place:skipping:countingRows:)`` is as long as a read of the
    /// table, and every rebuild ends with a rename.
    func columnsBefore(_ table: String, place: StagePlace) -> TableBefore? {
        guard let columns = columns(of: table), !columns.isEmpty else { return nil }
        return TableBefore(place: place, columns: columns, held: [], rows: 0, children: [], foreignKeysOn: false, related: false)
    }

    /// Whether `sql`, an ALTER TABLE, can drop a column: only a statement whose
    /// text holds the keyword DROP, in any case, can (a keyword has no other
    /// spelling). A name that holds it (`RENAME TO dropped`) counts as a drop.
    static func mayDropColumn(_ sql: String) -> Bool {
        sql.lowercased().contains("drop")
    }

    /// `sqlite_sequence` by table (by `identifierKey`); `nil` when the store has none.
    func sequence() -> [String: Int]? {
        guard exists("sqlite_sequence"), let rows = try? database.rows("SELECT lower(name), max(seq) FROM main.sqlite_sequence GROUP BY lower(name)") else { return nil }
        return Dictionary(rows.compactMap { row in row[0].text.map { ($0, Int(row[1].integer ?? 0)) } }, uniquingKeysWith: max)
    }

    /// The collations of the index `statement` creates on `table`, when it creates
    /// one on plain columns: SQLite says which only once the index exists, so it is
    /// created inside a savepoint on the table emptied, read (`PRAGMA index_xinfo`),
    /// and rolled back.
    func indexCollations(_ statement: ScriptStatement, table: String, columns: [String]) -> [String]? {
        guard let created = statement.actions.createsIndex.first, created.table.identifierKey == table.identifierKey else { return nil }
        let savepoint = "fixturekit_lint_index"
        do {
            return try database.inSavepoint(savepoint, end: .rollback) { () throws(SQLiteError) -> [String]? in
                try database.execute("DELETE FROM main.\(quotedIdentifier(table))")
                let again = try database.prepare(statement.statement.sql)
                while try again.step() {}
                let keys = try database.rows("SELECT name, coll FROM pragma_index_xinfo(?1, 'main') WHERE key = 1 ORDER BY seqno", [.text(created.index)])
                guard keys.compactMap({ $0[0].text?.identifierKey }) == columns.map({ $0.identifierKey }) else { return nil }
                return keys.map { $0[1].text ?? "BINARY" }
            }
        } catch {
            return nil
        }
    }

    /// After a statement: notes where a table's `sqlite_sequence` fell below what it was when the stage started.
    func trackSequence(at place: StagePlace) {
        guard !sequenceAtStart.isEmpty else { return }
        let now = sequence() ?? [:]
        for (table, start) in sequenceAtStart {
            let below = exists(table) && (now[table] ?? 0) < start
            if below, !sequenceBelow.contains(table) { sequenceFell[table] = place }
            if below { sequenceBelow.insert(table) } else { sequenceBelow.remove(table) }
        }
    }
}
