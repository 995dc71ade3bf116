import CSQLite
import FixtureKitSystem

extension Database {
    /// Copies this database into `destination` with SQLite's online backup API.
    ///
    /// The copy is one consistent snapshot that includes every transaction
    /// committed so far, those still only in the `-wal` too, and it leaves the
    /// source's files untouched. See <https://www.sqlite.org/backup.html>.
    /// - Parameters:
    ///   - pagesPerStep: pages copied per `sqlite3_backup_step`; -1 copies all in
    ///     one step, holding the read lock throughout, which no writer can break.
    ///   - timeout: how long a source that another connection locks (an
    ///     exclusive lock, a commit in progress) is waited for.
    /// - Throws: ``SQLiteError``; `SQLITE_BUSY` when the source stayed locked
    ///   for `timeout`.
    public func backup(to destination: Database, pagesPerStep: Int32 = -1, timeout: Duration = .seconds(15)) throws(SQLiteError) {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw SQLiteError(connection: destination.handle, code: sqlite3_errcode(destination.handle))
        }
        // Steps until done or failed; a locked source is tried again every 10 ms.
        var busy = SQLITE_BUSY
        let code = Database.retrying(within: timeout, firstPause: 10_000, maximumPause: 10_000) { () throws(Never) -> Int32? in
            var code: Int32
            repeat { code = sqlite3_backup_step(backup, pagesPerStep) } while code == SQLITE_OK
            guard code == SQLITE_BUSY || code == SQLITE_LOCKED else { return code }
            busy = code
            return nil
        } ?? busy
        let finish = sqlite3_backup_finish(backup)
        guard code == SQLITE_DONE else { throw SQLiteError(connection: destination.handle, code: code) }
        guard finish == SQLITE_OK else { throw SQLiteError(connection: destination.handle, code: finish) }
    }
}
