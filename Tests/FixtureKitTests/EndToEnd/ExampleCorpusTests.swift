import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// The example corpus committed in MigrationFixtures/: it verifies, it migrates,
/// and its generator reproduces it byte for byte.
@Suite struct ExampleCorpusTests {
    static let repository = repositoryRoot.path
    static let corpus = repository + "/MigrationFixtures"

    @Test func everyFixtureVerifiesDeeply() throws {
        let results = try Verifier.verify(Self.corpus, deep: true)
        #expect(results.map { ($0.path as NSString).lastPathComponent } == ["1.0.0", "2.0.0", "3.0.0", "App-1.0.0.tar.zst", "App-2.0.0.tar.zst", "App-3.0.0.tar.zst", "fixturekit.lock"])
        #expect(results.flatMap(\.problems) == [])
        // Deep: each store's content hash, as its manifest and the lock record it.
        for result in results.prefix(3) { #expect(result.contentHash != nil, "\(result.path)") }
    }

    @Test func theCorpusShipsItsLockAndEveryLineHolds() throws {
        let lock = try #require(try CorpusLock.load(corpus: Self.corpus))
        #expect(lock.versions == ["1.0.0", "2.0.0", "3.0.0"])
        // sums, content and archive per version, and the two stages that shipped: their files and declarations.
        #expect(lock.digests.count == 13)
        #expect(lock.digests[CorpusLock.Fact(.stage, "2.0.0", "migrations/1.0.0-2.0.0.sql")] != nil)
        #expect(lock.digests[CorpusLock.Fact(.stage, "3.0.0", "migrations/2.0.0-3.0.0.sh")] != nil)
        #expect(lock.digests[CorpusLock.Fact(.declaration, "2.0.0", "1.0.0")] != nil)
        #expect(lock.digests[CorpusLock.Fact(.declaration, "3.0.0", "2.0.0")] != nil)
        let facts = try CorpusFacts(corpus: Self.corpus, configuration: try CorpusConfiguration.load(Self.corpus + "/fixturekit.json"))
        #expect(try facts.lock() == lock)
        // The file is exactly what fixturekit writes for these lines.
        #expect(lock.rendered() == Array(try Data(contentsOf: URL(fileURLWithPath: Self.corpus + "/fixturekit.lock"))))
        for version in ["1.0.0", "2.0.0", "3.0.0"] {
            let manifest = try Manifest.decode(Array(try Data(contentsOf: URL(fileURLWithPath: Self.corpus + "/\(version)/manifest.json"))))
            #expect(manifest.contentHash == lock.digests[CorpusLock.Fact(.content, version)]?.hex, "\(version)")
        }
    }

    @Test func everyPathOfTheMatrixPasses() throws {
        let report = try MigrationRunner.runMatrix(config: Self.corpus + "/fixturekit.json")
        #expect(report.paths.map(\.id) == ["1.0.0 -> 2.0.0 -> 3.0.0", "2.0.0 -> 3.0.0", "1.0.0 -> 2.0.0"])
        for path in report.paths { #expect(path.passed, "\(path.id): \(String(describing: path.firstFailure))") }
    }

    @Test func theRawFixtureKeepsCommitsThatLiveOnlyInItsWAL() throws {
        let inspection = try StoreInspection(storePath: Self.corpus + "/2.0.0/App.sqlite")
        #expect(inspection.walTransactionsNotInMainFile == 3)
        let title = try VerifiedCopy.withCopy(of: Self.corpus + "/2.0.0") { try $0.scalar("SELECT title FROM notes WHERE uuid = 'W1'") }
        #expect(title == .text("Written after the checkpoint"))
    }

    @Test func regeneratingTheCorpusReproducesTheCommittedBytes() throws {
        let folder = try TemporaryFolder()
        let copy = folder.url("MigrationFixtures")
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.corpus + "/fixturekit.json", toPath: copy + "/fixturekit.json")
        try FileManager.default.copyItem(atPath: Self.corpus + "/anonymize.json", toPath: copy + "/anonymize.json")
        try FileManager.default.copyItem(atPath: Self.corpus + "/migrations", toPath: copy + "/migrations")
        let result = try run([Self.repository + "/scripts/make-example-corpus.sh", toolExecutable, copy], in: Self.repository)
        #expect(result.status == 0, "\(result.standardError)")
        for version in ["1.0.0", "2.0.0", "3.0.0"] {
            #expect(try snapshotOfFiles(copy + "/" + version) == (try snapshotOfFiles(Self.corpus + "/" + version)), "\(version)")
            for archive in ["App-\(version).tar.zst", "App-\(version).tar.zst.sha256"] {
                #expect(try folder.read("MigrationFixtures/" + archive) == Array(try Data(contentsOf: URL(fileURLWithPath: Self.corpus + "/" + archive))), "\(archive)")
            }
        }
        #expect(try folder.read("MigrationFixtures/fixturekit.lock") == Array(try Data(contentsOf: URL(fileURLWithPath: Self.corpus + "/fixturekit.lock"))))
    }
}
