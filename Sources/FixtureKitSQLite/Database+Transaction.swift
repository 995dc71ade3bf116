extension Database {
    /// How a transaction takes its locks (SQLite's `BEGIN DEFERRED`, `IMMEDIATE`, `EXCLUSIVE`).
    public enum TransactionKind: String, Sendable {
        /// Locks on the first read or write.
        case deferred = "DEFERRED"
        /// Takes the write lock at once: no other connection writes until the end.
        case immediate = "IMMEDIATE"
        /// Takes the write lock at once and, outside WAL mode, keeps readers out too.
        case exclusive = "EXCLUSIVE"
    }

    /// Runs `body` in a transaction of `kind`: `BEGIN`, then `COMMIT` when `body`
    /// returns, `ROLLBACK` when it throws (the error `body` threw is the one
    /// thrown; a failed rollback is not, SQLite has ended the transaction then).
    ///
    /// - Throws: ``SQLiteError`` of `BEGIN`, of `body` or of `COMMIT` (after
    ///   which the transaction is rolled back).
    public func inTransaction<T>(_ kind: TransactionKind = .deferred, _ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try execute("BEGIN \(kind.rawValue)")
        let result: T
        do {
            result = try body()
            try execute("COMMIT")
        } catch {
            if !isAutocommit { try? execute("ROLLBACK") }
            throw error
        }
        return result
    }
}
