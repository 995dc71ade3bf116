import CSQLite
import FixtureKitSystem

extension Database {
    /// The collating sequence a column was declared with (`BINARY` when none was),
    /// as `sqlite3_table_column_metadata` reports it: the one SQLite uses when the
    /// column is the left operand of `=`, in `GROUP BY` and in a plain index on it.
    /// See <https://www.sqlite.org/c3ref/table_column_metadata.html>.
    /// - Parameters:
    ///   - schema: `main`, `temp` or the name of an attached database.
    /// - Throws: ``SQLiteError`` when the table or the column does not exist.
    package func collation(of column: String, in table: String, schema: String = "main") throws(SQLiteError) -> String {
        var declaredType: UnsafePointer<CChar>?
        var collation: UnsafePointer<CChar>?
        var notNull: Int32 = 0
        var primaryKey: Int32 = 0
        var autoIncrement: Int32 = 0
        let code = sqlite3_table_column_metadata(handle, schema, table, column, &declaredType, &collation, &notNull, &primaryKey, &autoIncrement)
        guard code == SQLITE_OK else {
            throw SQLiteError(connection: handle, code: code, sql: "sqlite3_table_column_metadata(\(schema).\(table).\(column))")
        }
        return collation.map { String(cString: $0) } ?? "BINARY"
    }
}
