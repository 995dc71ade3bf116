import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// The copy-then-test pattern for Swift test suites, with the checksum check
/// other tools skip.
public enum VerifiedCopy {
    /// Copies a fixture folder into a fresh temporary folder, verifies the copy
    /// (SHA256SUMS and store set: what is tested is what was verified, even if
    /// the fixture changes meanwhile), and hands `body` a connection to the
    /// copy's store; the copy is removed when `body` returns.
    ///
    /// - Parameters:
    ///   - fixture: the fixture folder.
    /// - Throws: ``FixtureKitError`` (a fixture that does not verify: category
    ///   `checkFailed`), or what `body` throws.
    public static func withCopy<T>(of fixture: String, _ body: (Database) throws -> T) throws -> T {
        let copy = try verifiedCopy(of: fixture)
        // The store is opened where it was verified: the copy is this call's own.
        let database: Database
        do { database = try Database(path: copy.store, options: .init(busyTimeout: 0)) } catch {
            throw FixtureKitError(what: "open fixture copy", path: fixture, why: error.description, cause: error)
        }
        return try withExtendedLifetime(copy.files) { try body(database) }
    }

    /// Copies the fixture folder `fixture` to a temporary folder of its own (or
    /// into `scratch`, the caller's) and verifies the copy.
    /// - Parameter store: the store's main file in `fixture` when the caller named
    ///   it, else the manifest's store (or the folder's one SQLite file).
    /// - Returns: the copy, and its store's main file.
    /// - Throws: ``FixtureKitError``: the first problem of the fixture (category
    ///   `checkFailed`), or why it could not be copied.
    static func verifiedCopy(of fixture: String, in scratch: ScratchFolder? = nil, store: String? = nil) throws(FixtureKitError) -> (files: ScratchCopy, store: String) {
        let copy: ScratchCopy
        do {
            copy = try ScratchCopy(fixture: fixture, in: scratch)
        } catch {
            // A folder that cannot be copied (a link or a FIFO in it, a file that
            // vanished): verifying it in place says what is wrong with it.
            if case .copy = error { try Verifier.requireVerified(fixture, .firstProblem(namedBelow: fixture)) }
            throw FixtureKitError(what: "copy fixture", failed: error.cause)
        }
        try Verifier.requireVerified(copy.path, .firstProblem(namedBelow: fixture))
        if let store { return (copy, copy.path.appendingPath(String(store.split(separator: "/").last ?? ""))) }
        return (copy, try FixtureLocator.storePath(inFixture: copy.path))
    }
}
