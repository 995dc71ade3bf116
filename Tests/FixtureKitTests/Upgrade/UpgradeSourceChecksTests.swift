import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// In `upgrade`, checks read the store as it was before through `source`: its
/// verified backup, extracted beside the store and attached read-only.
@Suite struct UpgradeSourceChecksTests {
    func corpus(stageExtra: String = "") throws -> NotesCorpus {
        let notes = try NotesCorpus.forUpgrade()
        try notes.folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", NotesCorpus.stage1to2 + "\n" + stageExtra + "\n")
        try notes.writeConfig { configuration in
            configuration["userVersions"] = NotesCorpus.userVersions
            configuration["checks"] = [
                ["name": "every note kept", "sql": "SELECT count(*) FROM notes", "expectSQL": "SELECT count(*) FROM source.notes"],
                ["name": "only from 2.0.0", "sql": "SELECT count(*) FROM source.notes", "expect": -1, "from": ["2.0.0"]],
                ["name": "the source is read-only", "sql": "SELECT count(*) FROM source.drafts", "expect": 1],
            ]
        }
        return notes
    }

    @Test(arguments: JournalMode.allCases)
    func aCheckReadsTheBackupAsSource(mode: JournalMode) throws {
        let notes = try corpus()
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live, mode: mode)
        let result = fixturekit("upgrade", store, "--config", notes.config, "--no-data-diff")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.contains("PASS  every note kept\nPASS  the source is read-only\n"), "\(result.standardError)")
        #expect(!result.standardError.contains("only from 2.0.0"))
        #expect(!FileManager.default.fileExists(atPath: Upgrade.comparisonFolder(forStore: store)))
    }

    @Test func aCheckAgainstTheSourceThatFailsRestoresTheStore() throws {
        let notes = try corpus(stageExtra: "DELETE FROM notes WHERE uuid = 'K7';")
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live)
        var before = try storeFiles(live)
        before["App.sqlite-shm"] = nil
        let result = fixturekit("upgrade", store, "--config", notes.config)
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains("FAIL  every note kept\n      row 1: [29] here, [30] by expectSQL\n"), "\(result.standardError)")
        #expect(try storeFiles(live) == before)
        #expect(!FileManager.default.fileExists(atPath: Upgrade.comparisonFolder(forStore: store)))
    }
}
