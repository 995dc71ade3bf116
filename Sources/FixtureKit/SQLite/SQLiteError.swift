import CSQLite

/// An error reported by SQLite: its result code, its message and the SQL that
/// was running.
///
/// Its description reads `SQLite error 19: UNIQUE constraint failed: t.a - while
/// executing \`INSERT INTO t VALUES (1)\``.
public struct SQLiteError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The extended result code (`SQLITE_BUSY`, `SQLITE_CORRUPT`, ...).
    public var extendedCode: Int32
    /// SQLite's message: `sqlite3_errmsg`, or `sqlite3_errstr` of the code.
    public var message: String
    /// The statement that failed, when there was one.
    public var sql: String?

    public init(code: Int32, message: String? = nil, sql: String? = nil) {
        self.extendedCode = code
        self.message = message ?? String(cString: sqlite3_errstr(code))
        self.sql = sql
    }

    /// `SQLITE_READONLY_ROLLBACK`: a read-only connection met a hot journal, which
    /// only a connection that may write can roll back.
    public static let readOnlyRollback: Int32 = SQLITE_READONLY | (3 << 8)

    /// Whether the store has a hot journal that this read-only connection could not roll back.
    public var isHotJournal: Bool { extendedCode == Self.readOnlyRollback }

    /// The primary result code: the low byte of the extended one.
    public var code: Int32 { extendedCode & 0xFF }

    public var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " - while executing `\(sql)`" }
        return text
    }

    /// The error of the last failed call on `connection`.
    init(connection: OpaquePointer?, code: Int32, sql: String? = nil) {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        self.init(code: connection.map { sqlite3_extended_errcode($0) } ?? code, message: message, sql: sql)
    }
}
