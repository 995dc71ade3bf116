import CSQLite
import FixtureKitSystem

/// One value of a query's row, as SQLite gives it.
public enum QueryValue: Sendable, Equatable {
    case null
    case integer(Int64)
    /// A number with SQLite's own text for it (`1.0e+20`), which `sqlite3` prints.
    case real(Double, text: String)
    case text(String)
    case blob([UInt8])
}

/// The rows of one statement.
public struct QueryResult: Sendable, Equatable {
    public package(set) var columns: [String]
    public package(set) var rows: [[QueryValue]]
}

extension Database {
    /// Runs every statement of `sql` in order, as SQLite's parser splits them,
    /// and gives back the rows of each that returns columns.
    package func results(of sql: String) throws(SQLiteError) -> [QueryResult] {
        var results: [QueryResult] = []
        try eachStatement(in: sql, failedPrepareNames: .restOfScript) { (statement, _) throws(SQLiteError) in
            let columns = Int(sqlite3_column_count(statement))
            var result = QueryResult(columns: (0..<columns).map { String(cString: sqlite3_column_name(statement, Int32($0))) }, rows: [])
            var step = sqlite3_step(statement)
            while step == SQLITE_ROW {
                result.rows.append((0..<columns).map { Self.queryValue(statement, Int32($0)) })
                step = sqlite3_step(statement)
            }
            guard step == SQLITE_DONE else {
                throw SQLiteError(connection: handle, code: step, sql: String(cString: sqlite3_sql(statement)))
            }
            if columns > 0 { results.append(result) }
        }
        return results
    }

    private static func queryValue(_ statement: OpaquePointer, _ column: Int32) -> QueryValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT:
            let value = sqlite3_column_double(statement, column)
            // SQLite's own text for the number (`%!.15g`), as its shell prints it.
            let text = sqlite3_column_text(statement, column).map { String(cString: $0) } ?? String(value)
            return .real(value, text: text)
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard let pointer = sqlite3_column_text(statement, column) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let pointer = sqlite3_column_blob(statement, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: pointer, count: count)))
        default: return .null
        }
    }
}
