/// The copy-then-test pattern for Swift test suites, with the checksum check
/// other tools skip.
public enum VerifiedCopy {
    /// Verifies a fixture (SHA256SUMS and store set), copies its store set into a
    /// fresh temporary folder, and hands `body` a connection to the copy; the
    /// copy is removed when `body` returns.
    ///
    /// - Parameters:
    ///   - fixture: the fixture folder.
    /// - Throws: ``FixtureKitError`` (a fixture that does not verify: category
    ///   `checkFailed`), or what `body` throws.
    public static func withCopy<T>(of fixture: String, _ body: (Database) throws -> T) throws -> T {
        let results = try Verifier.verify(fixture)
        if let problem = results.flatMap(\.problems).first {
            throw FixtureKitError(what: "verify", path: fixture.appendingPath(problem.file), why: problem.summary, category: .checkFailed)
        }
        let store = try FixtureLocator.storePath(inFixture: fixture)
        let scratch = try ScratchStore(copying: try StoreSet(storePath: store), what: "copy fixture")
        return try body(scratch.database)
    }
}

extension MigrationRunner {
    /// Loads `fixturekit.json` and runs the whole matrix: the entry point for a
    /// Swift test that proves every shipped version still migrates.
    public static func runMatrix(config: String, options: Options = Options()) throws(FixtureKitError) -> MigrationReport {
        MigrationRunner(configuration: try CorpusConfiguration.load(config)).run(options)
    }
}
