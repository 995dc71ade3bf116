/// An error a user can act on, told as one line: `<what>: <path>: <why>`, with
/// a remedy and an exit status. Every layer's typed errors conform: the models'
/// ``FormatError`` and ``StoreError``, the operations' ``FixtureKitError``; the
/// tool prints any of them in one place.
public protocol FixtureKitFailure: Error, CustomStringConvertible, Sendable {
    /// The operation: `read lock`, `open store`.
    var what: String { get }
    /// The file concerned, as the user named it; `nil` when none is.
    var path: String? { get }
    /// Why it failed, in lower case.
    var why: String { get }
    /// What the user can do about it, in words, when no ``remedy`` says it.
    var hint: String? { get }
    /// What the user can do about it, as a value.
    var remedy: FixtureKitError.Remedy? { get }
    var category: FixtureKitError.Category { get }
    /// The error this one explains: a ``FileSystemError``, a ``SQLiteError``, ...
    var cause: (any Error)? { get }
}

extension FixtureKitFailure {
    public var hint: String? { nil }
    public var remedy: FixtureKitError.Remedy? { nil }
    public var category: FixtureKitError.Category { .couldNotWork }
    public var cause: (any Error)? { nil }

    /// The one-line message, without the tool's name.
    public var description: String { FixtureKitError(self).description }

    /// The first cause of type `T` down the chain of causes, this error included:
    /// `error.underlying(SQLiteError.self)?.resultCode == .busy`.
    public func underlying<T: Error>(_ type: T.Type) -> T? {
        var next: (any Error)? = self
        while let error = next {
            if let match = error as? T { return match }
            next = (error as? any FixtureKitFailure)?.cause
        }
        return nil
    }
}

extension FixtureKitError {
    /// The error of a lower layer, told with the same words: what it says, its
    /// remedy and its exit status; `failure` stays as ``cause``.
    public init(_ failure: some FixtureKitFailure) {
        if let error = failure as? FixtureKitError {
            self = error
            return
        }
        self.init(what: failure.what, path: failure.path, why: failure.why, hint: failure.hint, remedy: failure.remedy, category: failure.category, cause: failure)
    }
}
