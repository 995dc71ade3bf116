import CSQLite
import FixtureKitSystem

/// One SQLite connection. Owns its `sqlite3` handle and closes it in `deinit`.
///
/// Not `Sendable`: a connection is used from one thread at a time. Never open a
/// fixture's store with it in place: opening a WAL store and closing it
/// checkpoints the WAL and deletes `-wal`, which changes the fixture's bytes.
public final class Database {
    /// How a connection is opened.
    public struct OpenOptions: Sendable {
        public var readOnly: Bool
        /// Create the file when it does not exist (ignored when read-only).
        public var create: Bool
        /// Interpret the path as a `file:` URI (`file:x.sqlite?immutable=1`).
        public var uri: Bool
        /// How long a locked database is retried, in milliseconds; 0 fails at once.
        public var busyTimeout: Int32

        public init(readOnly: Bool = false, create: Bool = false, uri: Bool = false, busyTimeout: Int32 = 5000) {
            self.readOnly = readOnly
            self.create = create
            self.uri = uri
            self.busyTimeout = busyTimeout
        }

        var flags: Int32 {
            var flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
            if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
            if uri { flags |= SQLITE_OPEN_URI }
            // The connection is confined to one thread: SQLite's own mutex is not needed.
            flags |= SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
            return flags
        }
    }

    /// The raw handle, for the extensions in this module.
    package let handle: OpaquePointer
    /// The path or URI the connection was opened with.
    public let path: String
    private var isClosed = false

    /// Opens a connection.
    /// - Throws: ``SQLiteError``; a half-open handle is closed before throwing.
    public init(path: String, options: OpenOptions = OpenOptions()) throws(SQLiteError) {
        _ = SQLiteLibrary.configured
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, options.flags, nil)
        guard code == SQLITE_OK, let handle else {
            let error = SQLiteError(connection: handle, code: code)
            sqlite3_close_v2(handle)
            throw error
        }
        self.handle = handle
        self.path = path
        if options.busyTimeout > 0 { sqlite3_busy_timeout(handle, options.busyTimeout) }
    }

    deinit {
        if !isClosed { sqlite3_close_v2(handle) }
    }

    /// Closes the connection; statements still open are finalized by their owners.
    /// - Throws: ``SQLiteError`` when SQLite cannot close (`SQLITE_BUSY`).
    public func close() throws(SQLiteError) {
        guard !isClosed else { return }
        let code = sqlite3_close(handle)
        guard code == SQLITE_OK else { throw SQLiteError(connection: handle, code: code) }
        isClosed = true
    }

    /// The version of the SQLite library in use: `3.40.1`.
    package static var libraryVersion: String { String(cString: sqlite3_libversion()) }

    /// The same as a number, as SQLite writes it at offset 96 of a store's header: 3040001.
    package static var libraryVersionNumber: Int32 { sqlite3_libversion_number() }

    /// Sets how long a locked database is retried, in milliseconds.
    public func setBusyTimeout(_ milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) }
            sqlite3_free(message)
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: text, sql: sql)
        }
    }

    /// Compiles one statement.
    public func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        try Statement(database: self, sql: sql)
    }

    /// The first column of the first row of `sql`, or `nil` when it returns no row.
    public func scalar(_ sql: String, _ arguments: [SQLiteValue] = []) throws(SQLiteError) -> SQLiteValue? {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        guard try statement.step() else { return nil }
        return statement.column(0)
    }

    /// Every row of `sql`, each as its column values.
    public func rows(_ sql: String, _ arguments: [SQLiteValue] = []) throws(SQLiteError) -> [[SQLiteValue]] {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        var rows: [[SQLiteValue]] = []
        while try statement.step() { rows.append(statement.row()) }
        return rows
    }

    /// The rowid of the last inserted row.
    public var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last statement.
    public var changes: Int { Int(sqlite3_changes64(handle)) }
}
