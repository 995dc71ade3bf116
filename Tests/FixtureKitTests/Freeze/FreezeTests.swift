import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// `freeze`: capture, sums and pack in one step, for release pipelines.
@Suite struct FreezeTests {
    @Test func freezePrintsTheArchiveAndItsDigest() throws {
        let notes = try NotesCorpus()
        try FileManager.default.createDirectory(atPath: notes.folder.url("live"), withIntermediateDirectories: true)
        let store = try HeldWALStore(in: notes.folder.url("live"), notes: 12)
        _ = store
        let result = fixturekit(["freeze", notes.folder.url("live/App.sqlite"), "--version", "3.1.0", "--config", notes.config, "--no-anonymize"], environment: ["SOURCE_DATE_EPOCH": "0"])
        #expect(result.status == 0, "\(result.standardError)")
        let archive = notes.corpus + "/App-3.1.0.tar.zst"
        let digest = try SHA256.hash(try notes.folder.read("MigrationFixtures/App-3.1.0.tar.zst")).hex
        #expect(result.standardOutput == "\(digest)  \(archive)\n")
        // Frozen all the same, and said: the configuration does not list 3.1.0.
        #expect(result.standardError.contains("freeze: \(notes.config): warning: 3.1.0 is neither its \"current\" (3.0.0) nor in its \"supported\": migrate runs no path from 3.1.0 until fixturekit.json lists it\n"), "\(result.standardError)")
        let listed = fixturekit(["freeze", "--force", notes.folder.url("live/App.sqlite"), "--version", "2.0.0", "--config", notes.config, "--no-anonymize"])
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(!listed.standardError.contains("warning"), "\(listed.standardError)")
        #expect(try run(["sha256sum", "-c", "--quiet", "App-3.1.0.tar.zst.sha256"], in: notes.corpus).status == 0)
        #expect(fixturekit("verify", archive).status == 0)
        #expect(fixturekit("verify", notes.corpus + "/3.1.0").status == 0)
        #expect(try rowCount(ofStoreAt: notes.corpus + "/3.1.0/App.sqlite") == 12)
    }

    @Test func freezeRefusesAStoreOfAnotherName() throws {
        let notes = try NotesCorpus()
        let other = try notes.folder.write("live/Other.sqlite", Array("SQLite format 3\0".utf8) + Array(repeating: 0, count: 84))
        let result = fixturekit("freeze", other, "--version", "3.1.0", "--config", notes.config)
        #expect(result.status == 2)
        #expect(result.standardError == "fixturekit: freeze: \(other): the store is named Other.sqlite, the corpus expects App.sqlite (hint: copy it, with its -wal, as App.sqlite into a folder of its own first)\n")
        #expect(!FileManager.default.fileExists(atPath: notes.corpus + "/3.1.0"))
    }
}
