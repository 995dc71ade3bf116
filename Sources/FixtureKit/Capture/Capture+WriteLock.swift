import FixtureKitSystem
import FixtureKitSQLite

/// The write lock `checkpoint` and `raw` captures copy under.
extension Capture {
    /// Runs `body` inside an immediate transaction (``Database/inTransaction(_:_:)``)
    /// on a connection to the source that never checkpoints on close, after
    /// `before` ran outside the transaction.
    ///
    /// `BEGIN IMMEDIATE` is retried with the connection idle in between: a
    /// RESTART checkpoint of another process holds the write lock while it waits
    /// for readers to finish, and a connection that waits for the write lock in
    /// its busy handler may be such a reader. `body` runs once.
    @discardableResult
    static func underWriteLock<T>(
        _ set: StoreSet,
        _ body: (HeldDescriptors) throws(FixtureKitError) -> T,
        before: (Database) throws(FixtureKitError) -> Void
    ) throws(FixtureKitError) -> T {
        let database: Database
        do { database = try openSource(set, readOnly: false) } catch {
            throw FixtureKitError(what: "open", path: set.storePath, why: error.description, hint: hint(for: error), cause: error)
        }
        let held = HeldDescriptors()
        defer {
            // SQLite's locks go first, then the descriptors opened under them.
            try? database.close()
            held.closeAll()
        }
        try before(database)
        var outcome: Result<T, FixtureKitError>?
        database.setBusyTimeout(100)
        defer { database.setBusyTimeout(busyTimeout) }
        do throws(SQLiteError) {
            try Database.retrying(for: .milliseconds(Int(lockTimeout)), maximumPause: 200_000, while: { $0.resultCode == .busy }) { () throws(SQLiteError) in
                // (A transaction that wrote nothing does not fail to commit for a
                // lock; if it did, what `body` did under the lock stands.)
                guard outcome == nil else { return }
                try database.inTransaction(.immediate) { () throws(SQLiteError) in
                    do throws(FixtureKitError) { outcome = .success(try body(held)) } catch { outcome = .failure(error) }
                }
            }
        } catch {
            switch outcome {
            case .failure(let failure): throw failure
            case .success: throw FixtureKitError(what: "unlock", path: set.storePath, why: error.description, cause: error)
            case nil: throw FixtureKitError(what: "lock", path: set.storePath, why: error.description, hint: hint(for: error), cause: error)
            }
        }
        switch outcome {
        case .success(let result): return result
        case .failure(let failure): throw failure
        case nil: throw FixtureKitError(what: "lock", path: set.storePath, why: "the transaction did not run")
        }
    }
}
