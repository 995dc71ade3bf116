import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitArchiveIO

/// An error a user can act on, printed as one line: `<what>: <path>: <why>`.
///
/// Lower-level errors (``FileSystemError``, ``SQLiteError``, ``CryptoError``) are
/// wrapped into this type with the context that explains them, outermost first:
/// `backup before migrate: copy: /data/App.sqlite-wal: no space left on device`.
///
/// The error below it stays as ``cause`` (a ``SQLiteError`` with its result code, a
/// ``FileSystemError`` with its errno, another `FixtureKitError` with its context), so
/// that a caller can tell `SQLITE_BUSY` from a checksum mismatch without reading text.
/// Two errors are equal when they say the same to the user, whatever their causes.
public struct FixtureKitError: FixtureKitFailure, Equatable {
    /// What kind of failure it is, which the front end tells its user (the tool
    /// maps each to its exit status, docs/exit-codes.md).
    public enum Category: Sendable {
        /// A check failed: checksum mismatch, corrupt store, leak found, drift.
        case checkFailed
        /// The work could not be done: unreadable input, malformed file, disk full.
        case couldNotWork
        /// The command line was wrong.
        case usage
        /// The work stopped on the cancellation it was given (the tool's: SIGINT
        /// or SIGTERM, after which it ends itself with that signal).
        case interrupted
    }

    /// Which check failed, or what kept the work from starting, for the failures a
    /// caller handles apart: `error.code == .checksumMismatch`.
    public enum Code: Sendable, Equatable {
        /// A file or an archive does not match its SHA256SUMS (or its `.sha256`).
        case checksumMismatch
        /// The leak scan found a value the anonymization should have replaced.
        case leakFound
        /// The anonymized data lost a property of the original that a migration
        /// may depend on (distinct values under a collation, NULLs, lengths, storage classes).
        case profileChanged
        /// SQLite's `integrity_check` or `quick_check` found the store damaged.
        case integrityFailure
        /// A locked fixture or stage differs from what fixturekit.lock records.
        case lockMismatch
        /// Another process has the store open, or another fixturekit run holds it.
        case storeBusy
    }

    /// The operation, with its context: `verify`, `sums: write SHA256SUMS`.
    public package(set) var what: String
    /// The file or folder concerned, as the user named it; `nil` when none is.
    public package(set) var path: String?
    /// Why it failed, in lower case.
    public package(set) var why: String
    /// What the user can do about it, when something helps, in words.
    public package(set) var hint: String?
    /// What the user can do about it, as a value (replace the file, finish a
    /// pending restore, ...): worded by the front end. A ``hint`` comes first.
    public package(set) var remedy: Remedy?
    public package(set) var category: Category
    /// Which check failed, when a caller may want to tell it apart; `nil` otherwise.
    public package(set) var code: Code?
    /// The command's full report as JSON, when it failed with one to tell
    /// (`anonymize`'s leak scan: every hit): `--json` prints it on stdout.
    public package(set) var report: [UInt8]?
    /// The error this one explains, when it wraps one: ``SQLiteError``,
    /// ``FileSystemError``, ``ArchiveError``, ``CryptoError``, ``FixtureKitError``.
    public package(set) var cause: (any Error)?

    package init(what: String, path: String? = nil, why: String, hint: String? = nil, remedy: Remedy? = nil, category: Category = .couldNotWork, code: Code? = nil, cause: (any Error)? = nil) {
        self.what = what
        self.path = path
        self.why = why
        self.hint = hint
        self.remedy = remedy
        self.category = category
        self.code = code
        self.cause = cause
    }

    /// A failed system call on a file, in the context `what`:
    /// `<what>: <operation>: <path>: <errno's text>`, the operation said once
    /// when `what` ends with it already (`anonymize: copy`, not `anonymize: copy: copy`).
    package init(what: String, failed error: FileSystemError, hint: String? = nil, remedy: Remedy? = nil, category: Category = .couldNotWork) {
        let said = what == error.operation || what.hasSuffix(": " + error.operation)
        self.init(
            what: said ? what : what + ": " + error.operation, path: error.path, why: error.reason,
            hint: hint, remedy: remedy, category: category, cause: error)
    }

    /// A failed system call on a file, told as it is: `<operation>: <path>: <errno's text>`.
    package init(failed error: FileSystemError) {
        self.init(what: error.operation, path: error.path, why: error.reason, cause: error)
    }

    public static func == (left: FixtureKitError, right: FixtureKitError) -> Bool {
        left.what == right.what && left.path == right.path && left.why == right.why && left.hintText == right.hintText
            && left.category == right.category && left.report == right.report
    }

    /// The one-line message, without the tool's name.
    public var description: String {
        var line = what
        if let path { line += ": " + path }
        line += ": " + why
        if let hint = hintText { line += " (hint: \(hint))" }
        return line
    }

    /// The hint as the user reads it: ``hint``, else ``remedy`` worded
    /// (see ``Remedy/useWording(_:)``).
    package var hintText: String? { hint ?? remedy?.text }

    /// The one-line message without the hint: for an error told inside another,
    /// whose own hint says what to do.
    package var descriptionWithoutHint: String {
        var copy = self
        copy.hint = nil
        copy.remedy = nil
        return copy.description
    }

    /// The same error with `context` put before its `what`.
    package func within(_ context: String) -> FixtureKitError {
        var copy = self
        copy.what = context + ": " + what
        return copy
    }
}

extension FixtureKitError {
    /// Wraps any error thrown by the library's lower layers with `what`.
    package static func wrapping(_ error: any Error, what: String, path: String? = nil) -> FixtureKitError {
        switch error {
        case let error as any FixtureKitFailure:
            return FixtureKitError(error).within(what)
        case let error as FileSystemError:
            return FixtureKitError(what: what, failed: error)
        case let error as SQLiteError:
            return FixtureKitError(what: what, path: path, why: error.description, cause: error)
        case let error as ArchiveError:
            return FixtureKitError(what: what, path: path, why: error.reason, cause: error)
        default:
            return FixtureKitError(what: what, path: path, why: String(describing: error), cause: error)
        }
    }
}
