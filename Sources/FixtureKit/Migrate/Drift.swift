/// Structural schema comparison of a store with a fixture, for CI jobs that check
/// that a shipped schema was not modified.
public enum Drift {
    /// The differences of the store at `storePath` from the fixture (folder) or
    /// store at `reference`; empty when they are structurally equal.
    /// - Throws: ``FixtureKitError`` when either cannot be read.
    public static func differences(store storePath: String, against reference: String) throws(FixtureKitError) -> [String] {
        let referenceStore = FixtureLocator.isFolder(reference) ? try FixtureLocator.storePath(inFixture: reference) : reference
        let ours = try schema(of: storePath)
        let theirs = try schema(of: referenceStore)
        return SchemaDiff.differences(ours, from: theirs, referenceName: referenceName(reference))
    }

    private static func schema(of path: String) throws(FixtureKitError) -> SchemaSnapshot {
        let set = try StoreSet(storePath: path)
        _ = try set.readHeader()
        let scratch = try ScratchStore(copying: set, what: "drift")
        do { return try SchemaSnapshot(database: scratch.database) } catch {
            throw FixtureKitError(what: "drift", path: path, why: error.description)
        }
    }

    /// `3.0.0` for `MigrationFixtures/3.0.0`, the file name for a store.
    private static func referenceName(_ path: String) -> String {
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        return trimmed.split(separator: "/").last.map(String.init) ?? trimmed
    }
}
