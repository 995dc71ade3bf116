import FixtureKitSystem
import FixtureKitModels

/// Structural schema comparison of a store with a fixture, for CI jobs that check
/// that a shipped schema was not modified.
public enum Drift {
    /// The differences of the store at `storePath` from the fixture (folder) or
    /// store at `reference`; empty when they are structurally equal.
    /// - Throws: ``FixtureKitError`` when either cannot be read.
    package static func differences(store storePath: String, against reference: String) throws(FixtureKitError) -> [String] {
        try compare(store: storePath, against: reference).differences
    }

    /// What `drift` reports: the structural differences, and both stores' content
    /// hashes (`fixturekit hash`), each read from the same copy as its schema.
    public struct Report: Codable, Equatable, Sendable {
        public var differences: [String]
        public var contentHash: String
        public var referenceContentHash: String
    }

    /// ``differences(store:against:)`` with both content hashes.
    public static func compare(store storePath: String, against reference: String) throws(FixtureKitError) -> Report {
        let referenceStore = FixtureLocator.isFolder(reference) ? try FixtureLocator.storePath(inFixture: reference) : reference
        let ours = try read(storePath)
        let theirs = try read(referenceStore)
        return Report(
            differences: SchemaDiff.differences(ours.schema, from: theirs.schema, referenceName: referenceName(reference)),
            contentHash: ours.contentHash, referenceContentHash: theirs.contentHash)
    }

    private static func read(_ path: String) throws(FixtureKitError) -> (schema: SchemaSnapshot, contentHash: String) {
        let set = try StoreSet.locate(path)
        _ = try set.header()
        let scratch = try ScratchStore(copying: set, what: "drift")
        let schema: SchemaSnapshot
        do { schema = try SchemaSnapshot(database: scratch.database) } catch {
            throw FixtureKitError(what: "drift", path: path, why: error.description, cause: error)
        }
        return (schema, try ContentHash.digest(of: scratch.database, display: path, what: "drift").hex)
    }

    /// `3.0.0` for `MigrationFixtures/3.0.0`, the file name for a store.
    private static func referenceName(_ path: String) -> String {
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        return trimmed.split(separator: "/").last.map(String.init) ?? trimmed
    }
}
