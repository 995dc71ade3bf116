import CSQLite
import FixtureKitSystem

/// An error reported by SQLite: its result code, its message and the SQL that
/// was running.
///
/// Its description reads `SQLite error 19: UNIQUE constraint failed: t.a - while
/// executing \`INSERT INTO t VALUES (1)\``.
public struct SQLiteError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The extended result code (`SQLITE_BUSY`, `SQLITE_CORRUPT`, ...).
    public package(set) var extendedCode: Int32
    /// SQLite's message: `sqlite3_errmsg`, or `sqlite3_errstr` of the code.
    public package(set) var message: String
    /// The statement that failed, when there was one.
    public package(set) var sql: String?

    package init(code: Int32, message: String? = nil, sql: String? = nil) {
        self.extendedCode = code
        self.message = message ?? String(cString: sqlite3_errstr(code))
        self.sql = sql
    }

    /// `SQLITE_READONLY_ROLLBACK`: a read-only connection met a hot journal, which
    /// only a connection that may write can roll back.
    package static let readOnlyRollback: Int32 = SQLITE_READONLY | (3 << 8)

    /// Whether the store has a hot journal that this read-only connection could not roll back.
    package var isHotJournal: Bool { extendedCode == Self.readOnlyRollback }

    /// The primary result code: the low byte of the extended one.
    public var code: Int32 { extendedCode & 0xFF }

    /// The primary result code as a value: `error.resultCode == .busy`.
    public var resultCode: ResultCode { ResultCode(rawValue: code) }

    /// Whether another connection holds the store (`SQLITE_BUSY` or `SQLITE_LOCKED`):
    /// the failure a retry may cure.
    package var isBusy: Bool { resultCode == .busy || resultCode == .locked }

    public var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " - while executing `\(sql)`" }
        return text
    }

    /// The error of the last failed call on `connection`.
    package init(connection: OpaquePointer?, code: Int32, sql: String? = nil) {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        self.init(code: connection.map { sqlite3_extended_errcode($0) } ?? code, message: message, sql: sql)
    }
}

/// A primary SQLite result code (<https://www.sqlite.org/rescode.html>), named
/// so that no code above this module matches SQLite's numbers itself.
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let ok = ResultCode(rawValue: SQLITE_OK)
    public static let error = ResultCode(rawValue: SQLITE_ERROR)
    public static let permission = ResultCode(rawValue: SQLITE_PERM)
    public static let abort = ResultCode(rawValue: SQLITE_ABORT)
    public static let busy = ResultCode(rawValue: SQLITE_BUSY)
    public static let locked = ResultCode(rawValue: SQLITE_LOCKED)
    public static let noMemory = ResultCode(rawValue: SQLITE_NOMEM)
    public static let readOnly = ResultCode(rawValue: SQLITE_READONLY)
    public static let interrupt = ResultCode(rawValue: SQLITE_INTERRUPT)
    public static let ioError = ResultCode(rawValue: SQLITE_IOERR)
    public static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
    public static let full = ResultCode(rawValue: SQLITE_FULL)
    public static let cantOpen = ResultCode(rawValue: SQLITE_CANTOPEN)
    public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
    public static let misuse = ResultCode(rawValue: SQLITE_MISUSE)
    public static let notADatabase = ResultCode(rawValue: SQLITE_NOTADB)

    /// SQLite's English text for the code (`database is locked`).
    public var description: String { String(cString: sqlite3_errstr(rawValue)) }
}
