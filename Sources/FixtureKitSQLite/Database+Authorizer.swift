import CSQLite
import FixtureKitSystem

extension Database {
    /// The columns SQLite resolves while it compiles `sql`, as its authorizer
    /// reports them (`SQLITE_READ`, <https://www.sqlite.org/c3ref/set_authorizer.html>):
    /// `(table, column)` in the order SQLite meets them, once per reference.
    ///
    /// The statement is compiled, never run. Compiling a `CREATE TABLE` on a
    /// connection that has no table of that name reports the columns its CHECK
    /// constraints and generated columns read.
    /// - Throws: ``SQLiteError`` when `sql` does not compile.
    package func columnsRead(compiling sql: String) throws(SQLiteError) -> [(table: String, column: String)] {
        final class Reads {
            var columns: [(table: String, column: String)] = []
        }
        let reads = Reads()
        let box = Unmanaged.passRetained(reads)
        defer {
            sqlite3_set_authorizer(handle, nil, nil)
            box.release()
        }
        sqlite3_set_authorizer(handle, { user, action, table, column, _, _ in
            if action == SQLITE_READ, let user, let table, let column {
                Unmanaged<Reads>.fromOpaque(user).takeUnretainedValue().columns.append((String(cString: table), String(cString: column)))
            }
            return SQLITE_OK
        }, box.toOpaque())
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        sqlite3_finalize(statement)
        guard code == SQLITE_OK else { throw SQLiteError(connection: handle, code: code, sql: sql) }
        return reads.columns
    }
}
