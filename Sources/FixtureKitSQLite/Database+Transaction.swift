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
        try inTransaction(kind, wrapping: { $0 }, body)
    }

    /// Runs `body` in a transaction of `kind`, as ``inTransaction(_:_:)``, for a
    /// body that throws errors of its own type: a failure of `BEGIN` or `COMMIT`
    /// is thrown as `wrap` makes it.
    ///
    /// - Throws: what `body` threw, or `wrap` of the ``SQLiteError`` of `BEGIN`
    ///   or `COMMIT` (after which the transaction is rolled back).
    public func inTransaction<T, Failure: Error>(_ kind: TransactionKind = .deferred, wrapping wrap: (SQLiteError) -> Failure, _ body: () throws(Failure) -> T) throws(Failure) -> T {
        var result: T?
        try transaction(kind, wrapping: wrap) { () throws(Failure) -> TransactionCompletion in
            result = try body()
            return .commit
        }
        return result!
    }

    /// How a transaction ends when its body returns (when the body throws, it
    /// is always rolled back).
    public enum TransactionCompletion: Sendable {
        case commit
        /// Nothing the body did stays: it found, part-way, that the work must
        /// run another way (a migration file that holds its own `BEGIN`).
        case rollback
    }

    /// Runs `body` in a transaction of `kind` and ends it as `body` says:
    /// `COMMIT` or `ROLLBACK`; when `body` throws, the transaction is rolled
    /// back and the error `body` threw is the one thrown.
    ///
    /// - Returns: how the transaction ended.
    /// - Throws: what `body` threw, or `wrap` of the ``SQLiteError`` of `BEGIN`,
    ///   `COMMIT` (after which the transaction is rolled back) or `ROLLBACK`.
    @discardableResult
    public func transaction<Failure: Error>(_ kind: TransactionKind = .deferred, wrapping wrap: (SQLiteError) -> Failure, _ body: () throws(Failure) -> TransactionCompletion) throws(Failure) -> TransactionCompletion {
        do { try execute("BEGIN \(kind.rawValue)") } catch { throw wrap(error) }
        let completion: TransactionCompletion
        do {
            completion = try body()
        } catch {
            if !isAutocommit { try? execute("ROLLBACK") }
            throw error
        }
        do { try execute(completion == .commit ? "COMMIT" : "ROLLBACK") } catch {
            if !isAutocommit { try? execute("ROLLBACK") }
            throw wrap(error)
        }
        return completion
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

    /// Tries `body` inside the savepoint `name`, and goes on without it when it
    /// fails: a failure of `body` (or of the `RELEASE` after it) rolls the
    /// savepoint back and is returned, not thrown; what fails to undo it is thrown.
    /// A probe that tries a change SQLite may refuse, and records the refusal.
    ///
    /// - Parameter name: an identifier, written into the SQL as it is.
    /// - Returns: what `body` returned, or the ``SQLiteError`` that made it roll back.
    /// - Throws: ``SQLiteError`` of `SAVEPOINT`, or of the `ROLLBACK TO` and
    ///   `RELEASE` after a failure (SQLite may have ended the whole transaction
    ///   then, after a full disk or an I/O error: the caller cannot go on).
    public func attemptInSavepoint<T>(_ name: String, _ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> Result<T, SQLiteError> {
        try execute("SAVEPOINT \(name)")
        do throws(SQLiteError) {
            let result = try body()
            try execute("RELEASE \(name)")
            return .success(result)
        } catch {
            try execute("ROLLBACK TO \(name)")
            try execute("RELEASE \(name)")
            return .failure(error)
        }
    }
}
