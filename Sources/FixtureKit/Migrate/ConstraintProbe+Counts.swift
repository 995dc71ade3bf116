import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

extension ConstraintProbe {
    /// The keys of `table`'s `columns` held by more than one row once `statement`,
    /// which failed with a UNIQUE violation, had written its rows: their count and
    /// the first ``shown``, grouped under `collations` (the index's own); `nil`
    /// when they cannot be found. Nothing of the probe stays (a savepoint).
    func uniqueKeys(statement: ScriptStatement, table: String, columns: [String], collations: [String]) -> (count: Int, shown: [String])? {
        probing { () throws(SQLiteError) in
            let withoutRowID = try isWithoutRowID(table)
            try capture(table, columns, nullIn: nil, statement: statement, withoutRowID: withoutRowID)
            return try duplicateKeys(table, columns, collations: collations, withoutRowID: withoutRowID, personal: configuration.personalColumns)
        }
    }

    /// How many rows `statement`, which failed with a NOT NULL violation, would
    /// have written with NULL in `table.column`; `nil` when they cannot be counted.
    func nullRows(statement: ScriptStatement, table: String, column: String) -> Int? {
        probing { () throws(SQLiteError) in
            try capture(table, [column], nullIn: column, statement: statement, withoutRowID: try isWithoutRowID(table))
            return Int(try database.scalar("SELECT count(*) FROM \(Self.rows)")?.integer ?? 0)
        }
    }

    private func isWithoutRowID(_ table: String) throws(SQLiteError) -> Bool {
        try database.scalar("SELECT wr FROM pragma_table_list(?1) WHERE schema = 'main'", [.text(table)])?.integer == 1
    }

    /// `body` inside a savepoint that is rolled back; `nil` when it throws.
    func probing<T>(_ body: () throws(SQLiteError) -> T) -> T? {
        do {
            return try database.inSavepoint(Self.savepoint, end: .rollback, body)
        } catch {
            return nil
        }
    }
}
