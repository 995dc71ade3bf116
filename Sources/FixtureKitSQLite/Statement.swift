import CSQLite
import FixtureKitSystem

/// A value in an SQLite column, in SQLite's five storage classes.
public enum SQLiteValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): value
        case .blob(let value): "<\(value.count) bytes>"
        }
    }

    public var integer: Int64? { if case .integer(let value) = self { value } else { nil } }
    public var text: String? { if case .text(let value) = self { value } else { nil } }
}

/// A compiled statement. Owns its `sqlite3_stmt` and finalizes it in `deinit`.
public final class Statement {
    package let handle: OpaquePointer
    /// Keeps the connection open as long as the statement lives.
    public let database: Database
    public let sql: String

    init(database: Database, sql: String) throws(SQLiteError) {
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(database.handle, sql, -1, 0, &handle, nil)
        guard code == SQLITE_OK, let handle else {
            sqlite3_finalize(handle)
            throw SQLiteError(connection: database.handle, code: code == SQLITE_OK ? SQLITE_MISUSE : code, sql: sql)
        }
        self.handle = handle
        self.database = database
        self.sql = sql
    }

    /// Takes a statement compiled elsewhere (``ScriptCursor``), which it finalizes.
    init(database: Database, handle: OpaquePointer, sql: String) {
        self.handle = handle
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// The virtual-machine operations it has run since it was compiled
    /// (`SQLITE_STMTSTATUS_VM_STEP`, triggers' included): a cost that does not
    /// depend on the machine's speed or load.
    package var virtualMachineSteps: Int {
        Int(sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_VM_STEP, 0))
    }

    /// Binds `values` to the parameters `?1`, `?2`, ... after a reset.
    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32 = switch value {
            case .null: sqlite3_bind_null(handle, index)
            case .integer(let number): sqlite3_bind_int64(handle, index, number)
            case .real(let number): sqlite3_bind_double(handle, index, number)
            case .text(let string): sqlite3_bind_text(handle, index, string, -1, fixturekit_sqlite_transient())
            case .blob(let bytes): bytes.withUnsafeBytes { sqlite3_bind_blob64(handle, index, $0.baseAddress, UInt64($0.count), fixturekit_sqlite_transient()) }
            }
            guard code == SQLITE_OK else { throw SQLiteError(connection: database.handle, code: code, sql: sql) }
        }
    }

    /// Ends the statement's run (and the read it holds open) before its last row.
    public func reset() { sqlite3_reset(handle) }

    /// Advances to the next row.
    /// - Returns: `true` when a row is available, `false` when the statement is done.
    public func step() throws(SQLiteError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            let error = SQLiteError(connection: database.handle, code: code, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    public func columnName(_ index: Int) -> String { String(cString: sqlite3_column_name(handle, Int32(index))) }

    /// The value of column `index` of the current row.
    public func column(_ index: Int) -> SQLiteValue {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard let pointer = sqlite3_column_text(handle, column) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: pointer, count: count)))
        default: return .null
        }
    }

    /// Every column of the current row.
    public func row() -> [SQLiteValue] { (0..<columnCount).map(column) }
}
