import FixtureKitSystem

/// A store set that cannot be found or read: the store's path and what is wrong.
public struct StoreError: FixtureKitFailure, Equatable {
    /// What is wrong with the store.
    public enum Problem: Sendable, Equatable {
        /// No file at the path.
        case missing
        /// A file that is not a regular one: a folder, a FIFO, a link...
        case notRegularFile(FileKind)
        /// A system call on it failed (``FileSystemError``: operation and errno).
        case unreadable(FileSystemError)
        /// Its first 100 bytes are not an SQLite database header.
        case header(DatabaseHeader.Problem)
    }

    /// The store's main file, as given.
    public var store: String
    public var problem: Problem

    public init(store: String, problem: Problem) {
        self.store = store
        self.problem = problem
    }

    public var what: String {
        switch problem {
        case .missing, .notRegularFile: "open store"
        case .unreadable(let error): error.operation
        case .header: "read header"
        }
    }

    public var path: String? { store }

    public var why: String {
        switch problem {
        case .missing: "no such file"
        case .notRegularFile(let kind): kind.notRegular
        case .unreadable(let error): error.reason
        case .header(let problem): problem.description
        }
    }

    public var cause: (any Error)? {
        switch problem {
        case .unreadable(let error): error
        case .header(let problem): problem
        case .missing, .notRegularFile: nil
        }
    }
}

extension StoreSet {
    /// ``init(storePath:)`` for the operations: its ``StoreError`` becomes a
    /// ``FixtureKitError`` that says the same and keeps it as its cause.
    package static func locate(_ storePath: String) throws(FixtureKitError) -> StoreSet {
        do { return try StoreSet(storePath: storePath) } catch { throw FixtureKitError(error) }
    }

    /// ``readHeader()`` for the operations, its ``StoreError`` told as a ``FixtureKitError``.
    package func header() throws(FixtureKitError) -> DatabaseHeader {
        do { return try readHeader() } catch { throw FixtureKitError(error) }
    }
}
