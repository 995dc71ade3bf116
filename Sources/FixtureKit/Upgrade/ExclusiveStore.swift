import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// A connection that holds a live store's exclusive lock for as long as it is
/// open: no other connection, in this process or another, reads or writes the
/// store meanwhile.
///
/// It sets `PRAGMA locking_mode = EXCLUSIVE` before its first read, then runs
/// `BEGIN EXCLUSIVE`. In rollback-journal mode it then keeps the main file's
/// EXCLUSIVE lock after its transactions. In WAL mode it takes that lock when it
/// opens the log and works without the `-shm`: "If EXCLUSIVE locking mode is set
/// prior to the first WAL-mode database access, then SQLite never attempts to call
/// any of the shared-memory methods" (<https://www.sqlite.org/wal.html#noshm>).
/// Every other connection to a WAL store holds a SHARED lock on the main file as
/// long as it is open, so the lock is refused while any other connection has a
/// WAL store open, idle or not; a rollback-journal store, only while another
/// connection reads or writes it.
///
/// It never checkpoints on close: the store's files change only through what is
/// run on the connection. Opening a WAL store that has no `-wal` creates an empty
/// one; ``close()`` removes it again when nothing was written, before it gives up
/// the lock (no other connection can have opened it meanwhile).
final class ExclusiveStore {
    /// How long a store that another connection holds is retried, in milliseconds.
    static let defaultTimeout: Int32 = Upgrade.defaultLockTimeout

    let database: Database
    let storePath: String
    private let walExisted: Bool

    /// Opens the store and takes its exclusive lock.
    /// - Throws: ``SQLiteError``: `SQLITE_BUSY` when the lock stays taken for
    ///   `timeout` milliseconds (see ``isInUse(_:)``).
    init(storePath: String, timeout: Int32 = defaultTimeout) throws(SQLiteError) {
        self.storePath = storePath
        walExisted = (try? POSIX.lstatIfPresent(storePath + StoreSet.Sidecar.wal.rawValue)).flatMap { $0 } != nil
        database = try Self.connect(storePath, timeout: timeout)
    }

    /// Opens the store and takes its exclusive lock.
    /// - Throws: ``FixtureKitError`` (exit status 2): `<what>: <store>: in use by
    ///   another process` when the lock stays taken for `timeout` milliseconds.
    static func open(_ storePath: String, timeout: Int32 = defaultTimeout, what: String) throws(FixtureKitError) -> ExclusiveStore {
        do { return try ExclusiveStore(storePath: storePath, timeout: timeout) } catch {
            throw describe(error, what: what, path: storePath)
        }
    }

    /// Whether another connection holds the store: its exclusive lock stays
    /// refused for `timeout` milliseconds. A store SQLite cannot open for another
    /// reason (corrupt, not a database) is not in use.
    static func isInUse(_ storePath: String, timeout: Int32 = defaultTimeout) -> Bool {
        do {
            let store = try ExclusiveStore(storePath: storePath, timeout: timeout)
            store.close()
            return false
        } catch {
            return isInUse(error)
        }
    }

    deinit { close() }

    /// Gives the connection to its new owner, which closes it: this value no longer does.
    func handOver() -> Database {
        handedOver = true
        return database
    }

    private var handedOver = false

    /// Removes the empty `-wal` that opening created, then closes the connection.
    func close() {
        guard !handedOver else { return }
        let wal = storePath + StoreSet.Sidecar.wal.rawValue
        if !walExisted, let info = try? POSIX.lstatIfPresent(wal), info.size == 0 {
            // Still under the lock: no other connection can be using this log.
            try? POSIX.removeFile(wal)
        }
        try? database.close()
    }

    /// A connection to `storePath` that holds its exclusive lock (see the type's
    /// documentation), retried for `timeout` milliseconds while another holds the store.
    /// - Throws: ``SQLiteError``: `SQLITE_BUSY` when the store stays in use.
    static func connect(_ storePath: String, timeout: Int32) throws(SQLiteError) -> Database {
        try Database.retrying(for: .milliseconds(Int(timeout)), maximumPause: 100_000) { () throws(SQLiteError) in
            let database = try Database(path: storePath, options: .init(busyTimeout: min(timeout, retryBusyTimeout)))
            try database.setCheckpointOnClose(false)
            try database.execute("PRAGMA locking_mode = EXCLUSIVE")
            try database.inTransaction(.exclusive) { () throws(SQLiteError) in }
            return database
        }
    }

    /// The busy timeout of each attempt, in milliseconds: SQLite does not always
    /// call the busy handler for the lock of a WAL store opened in exclusive mode,
    /// so the attempts are repeated with a fresh connection as well.
    private static let retryBusyTimeout: Int32 = 100

    /// Whether an error of ``connect(_:timeout:)`` means another connection holds the store.
    static func isInUse(_ error: SQLiteError) -> Bool {
        error.isBusy
    }

    static func describe(_ error: SQLiteError, what: String, path: String) -> FixtureKitError {
        if isInUse(error) {
            return FixtureKitError(what: what, path: path, why: "in use by another process", hint: "close the app that uses the store, then try again", code: .storeBusy)
        }
        return FixtureKitError(what: what, path: path, why: error.description, hint: StoreHint.opening(error), cause: error)
    }
}
