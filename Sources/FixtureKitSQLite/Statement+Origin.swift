import CSQLite
import FixtureKitSystem

extension Statement {
    /// The table and column a result column reads straight from, or `nil` for
    /// an expression, as `sqlite3_column_table_name` and
    /// `sqlite3_column_origin_name` report it (SQLite built with
    /// `SQLITE_ENABLE_COLUMN_METADATA`, as Debian's is).
    /// See <https://www.sqlite.org/c3ref/column_database_name.html>.
    package func origin(_ index: Int) -> (table: String, column: String)? {
        guard let table = sqlite3_column_table_name(handle, Int32(index)), let column = sqlite3_column_origin_name(handle, Int32(index)) else { return nil }
        return (String(cString: table), String(cString: column))
    }
}

extension Database {
    /// Whether the attached database `schema` is read-only on this connection
    /// (`sqlite3_db_readonly`); `nil` when no database has that name.
    package func isReadOnly(_ schema: String) -> Bool? {
        switch sqlite3_db_readonly(handle, schema) {
        case 1: true
        case 0: false
        default: nil
        }
    }
}
