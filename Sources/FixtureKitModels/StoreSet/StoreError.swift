import FixtureKitSystem
import FixtureKitSQLite

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
        /// A system call on one of its sidecars failed.
        case sidecar(FileSystemError)
        /// Its first 100 bytes are not an SQLite database header.
        case header(DatabaseHeader.Problem)
        /// Copying the set into a temporary folder failed, to open the copy.
        case copy(FileSystemError)
        /// SQLite could not open it (or its copy) or read it.
        case sqlite(SQLiteError)
        /// Its Core Data metadata does not follow its format.
        case metadata(FormatError)
        /// Its contents were not read: why, as its inspection says.
        case contentsUnread(String)
        /// Its version cannot be told with the configuration.
        case unknownVersion(UnknownVersion)
    }

    /// Why a store's version cannot be told.
    public enum UnknownVersion: Sendable, Equatable {
        /// The configuration has neither `userVersions` nor `versionQuery`.
        case notConfigured
        /// `versionQuery` failed.
        case queryFailed(SQLiteError)
        /// `versionQuery` returned NULL or no row.
        case noAnswer
        /// `versionQuery` returned what is not a version label.
        case notALabel(String)
        /// `PRAGMA user_version` could not be read.
        case userVersionUnread(SQLiteError)
        /// A `user_version` that no label of `userVersions` maps to (and not above
        /// the current one's), with where it was read: `user_version 7`.
        case unmappedUserVersion(evidence: String)
        /// `versionQuery` and `userVersions` disagree: what each says.
        case disagreement(String)

        /// The reason in words, after `cannot tell the store's version: `.
        var reason: String {
            switch self {
            case .notConfigured: "the configuration has neither \"userVersions\" nor \"versionQuery\""
            case .queryFailed(let error): "versionQuery failed: \(error.description)"
            case .noAnswer: "versionQuery returned no version"
            case .notALabel(let label): "versionQuery returned \"\(label)\", which is not a version label"
            case .userVersionUnread(let error): error.description
            case .unmappedUserVersion(let evidence): "\(evidence) is not one of \"userVersions\""
            case .disagreement(let sayings): sayings
            }
        }
    }

    /// The store's main file, as given.
    public package(set) var store: String
    public package(set) var problem: Problem
    /// The operation the model was doing with the store, when it names one
    /// (`inspect`, `hash`, `write manifest`): told instead of the problem's own
    /// (`read store`), or before the system call on another file than the store
    /// that failed (`inspect: copy open`).
    public package(set) var operation: String?

    public init(store: String, problem: Problem, operation: String? = nil) {
        self.store = store
        self.problem = problem
        self.operation = operation
    }

    public var what: String {
        switch problem {
        case .missing, .notRegularFile: operation ?? "open store"
        case .unreadable(let error): operation ?? error.operation
        case .sidecar(let error): (operation.map { $0 + ": " } ?? "") + error.operation
        case .header: operation ?? "read header"
        case .copy(let error): (operation.map { $0 + ": " } ?? "") + "copy " + error.operation
        case .sqlite, .contentsUnread: operation ?? "read store"
        case .metadata(let error): operation ?? error.what
        case .unknownVersion: operation ?? "read version"
        }
    }

    /// The file concerned: the store, or the file a system call failed on.
    public var path: String? {
        switch problem {
        case .sidecar(let error), .copy(let error): error.path
        case .metadata(let error): error.path
        default: store
        }
    }

    public var why: String {
        switch problem {
        case .missing: "no such file"
        case .notRegularFile(let kind): kind.notRegular
        case .unreadable(let error), .sidecar(let error), .copy(let error): error.reason
        case .header(let problem): problem.description
        case .sqlite(let error): error.description
        case .metadata(let error): error.why
        case .contentsUnread(let reason): reason
        case .unknownVersion(let unknown): "cannot tell the store's version: " + unknown.reason
        }
    }

    public var hint: String? {
        switch problem {
        case .unknownVersion(.notConfigured): "map each version to its user_version in \"userVersions\""
        case .metadata(let error): error.hint
        default: nil
        }
    }

    public var remedy: FixtureKitError.Remedy? {
        if case .metadata(let error) = problem { return error.remedy }
        return nil
    }

    public var cause: (any Error)? {
        switch problem {
        case .unreadable(let error), .sidecar(let error), .copy(let error): error
        case .header(let problem): problem
        case .sqlite(let error), .unknownVersion(.queryFailed(let error)), .unknownVersion(.userVersionUnread(let error)): error
        case .metadata(let error): error
        case .missing, .notRegularFile, .contentsUnread, .unknownVersion: nil
        }
    }
}
