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
        let scratch: ScratchFolder
        do { scratch = try ScratchFolder() } catch {
            throw FixtureKitError(what: "copy fixture", failed: error)
        }
        let storePath = try verifiedCopy(of: fixture, into: scratch.path.appendingPath("fixture"))
        // The store is opened where it was verified: the copy is this call's own.
        let database: Database
        do { database = try Database(path: storePath, options: .init(busyTimeout: 0)) } catch {
            throw FixtureKitError(what: "open fixture copy", path: fixture, why: error.description, cause: error)
        }
        return try withExtendedLifetime(scratch) { try body(database) }
    }

    /// Copies the fixture folder `fixture` to the new folder `copy` and verifies
    /// the copy; its store's main file.
    /// - Throws: ``FixtureKitError``: the first problem of the fixture (category
    ///   `checkFailed`), or why it could not be copied.
    static func verifiedCopy(of fixture: String, into copy: String) throws(FixtureKitError) -> String {
        /// Throws the first problem of verifying `folder`, named in `fixture`.
        func requireVerified(_ folder: String) throws(FixtureKitError) {
            if let problem = try Verifier.verify(folder).flatMap(\.problems).first {
                throw FixtureKitError(what: "verify", path: fixture.appendingPath(problem.file), why: problem.summary, category: .checkFailed)
            }
        }
        do {
            try FileCopy.copyFolder(from: fixture, to: copy, sync: false)
        } catch {
            // A folder that cannot be copied (a link or a FIFO in it, a file that
            // vanished): verifying it in place says what is wrong with it.
            try requireVerified(fixture)
            throw FixtureKitError(what: "copy fixture", failed: error)
        }
        try requireVerified(copy)
        return try FixtureLocator.storePath(inFixture: copy)
    }
}
