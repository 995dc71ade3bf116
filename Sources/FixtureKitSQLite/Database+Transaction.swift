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

extension Database {
    /// How a savepoint ends when its body returns (when the body throws, it is
    /// always rolled back).
    public enum SavepointEnd: Sendable {
        /// `RELEASE`: what the body did stays, part of the enclosing transaction.
        case release
        /// `ROLLBACK TO`, then `RELEASE`: nothing the body did stays (a probe that
        /// runs statements only to see what they would do).
        case rollback
    }

    /// Runs `body` inside the savepoint `name` (SQLite's `SAVEPOINT`, which nests,
    /// inside a transaction or outside one), then ends it as `end` says; when
    /// `body` throws, the savepoint is rolled back and released, and the error
    /// `body` threw is the one thrown (a failed rollback is not).
    ///
    /// - Parameter name: an identifier, written into the SQL as it is.
    /// - Throws: ``SQLiteError`` of `SAVEPOINT`, of `body`, or of a `RELEASE`
    ///   after a body that returned (after which the savepoint is rolled back).
    public func inSavepoint<T>(_ name: String, end: SavepointEnd = .release, _ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try execute("SAVEPOINT \(name)")
        let result: T
        do {
            result = try body()
        } catch {
            try? execute("ROLLBACK TO \(name); RELEASE \(name)")
            throw error
        }
        switch end {
        case .release:
            do { try execute("RELEASE \(name)") } catch {
                // A release that fails (a deferred foreign key of an outermost
                // savepoint) leaves it open: it is rolled back, not left behind.
                try? execute("ROLLBACK TO \(name); RELEASE \(name)")
                throw error
            }
        case .rollback:
            try? execute("ROLLBACK TO \(name); RELEASE \(name)")
        }
        return result
    }
}
