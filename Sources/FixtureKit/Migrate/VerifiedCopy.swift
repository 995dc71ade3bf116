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
        /// Throws the first problem of verifying `folder`, named in `fixture`.
        func requireVerified(_ folder: String) throws {
            if let problem = try Verifier.verify(folder).flatMap(\.problems).first {
                throw FixtureKitError(what: "verify", path: fixture.appendingPath(problem.file), why: problem.summary, category: .checkFailed)
            }
        }
        let scratch: ScratchFolder
        let copy: String
        do {
            scratch = try ScratchFolder()
            copy = scratch.path.appendingPath("fixture")
            try FileCopy.copyFolder(from: fixture, to: copy, sync: false)
        } catch {
            // A folder that cannot be copied (a link or a FIFO in it, a file that
            // vanished): verifying it in place says what is wrong with it.
            try requireVerified(fixture)
            throw FixtureKitError(what: "copy fixture: \(error.operation)", path: error.path, why: error.reason)
        }
        try requireVerified(copy)
        let store = try StoreSet(storePath: try FixtureLocator.storePath(inFixture: copy))
        // The store is opened where it was verified: the copy is this call's own.
        let database: Database
        do { database = try Database(path: store.storePath, options: .init(busyTimeout: 0)) } catch {
            throw FixtureKitError(what: "open fixture copy", path: fixture, why: error.description)
        }
        return try withExtendedLifetime(scratch) { try body(database) }
    }
}

extension MigrationRunner {
    /// Loads `fixturekit.json` and runs the whole matrix: the entry point for a
    /// Swift test that proves every shipped version still migrates.
    public static func runMatrix(config: String, options: Options = Options()) throws(FixtureKitError) -> MigrationReport {
        MigrationRunner(configuration: try CorpusConfiguration.load(config)).run(options)
    }
}
