import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// `upgrade` compares values, not only counts: after the stages and checks it
/// runs `migrate`'s value-level comparison between the migrated store and its
/// backup, and a finding restores the backup.
@Suite struct UpgradeDataDiffTests {
    /// A stage that empties a column in every row: counts, schema and checks all hold.
    enum Loss: String, CaseIterable, Sendable {
        case sqlStage, programStage
    }

    @Test(arguments: Loss.allCases, JournalMode.allCases)
    func aStageThatNullsAColumnIsRestoredByteForByte(loss: Loss, mode: JournalMode) throws {
        let notes = try NotesCorpus.forUpgrade()
        switch loss {
        case .sqlStage:
            try notes.folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", NotesCorpus.stage1to2 + "\nUPDATE notes SET body = NULL;\n")
        case .programStage:
            try notes.writeProgramStage(NotesCorpus.stage2to3.replacingOccurrences(of: "DROP TABLE drafts;", with: "DROP TABLE drafts;\nUPDATE notes SET body = NULL;"))
        }
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live, mode: mode)
        var before = try storeFiles(live)
        before["App.sqlite-shm"] = nil
        let result = fixturekit("upgrade", store, "--config", notes.config, "--json")
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains("PASS  note K1 keeps its title\nFAIL  data preserved (data diff "), "\(result.standardError)")
        #expect(result.standardError.contains(" s)\n      notes.body: 30 became NULL of 30 values (key 1: (personal) -> NULL; key 2: (personal) -> NULL; key 3: (personal) -> NULL; key 4: (personal) -> NULL; key 5: (personal) -> NULL)\n"), "\(result.standardError)")
        #expect(result.standardError.hasSuffix("fixturekit: upgrade: \(store): data preserved failed: notes.body: 30 became NULL of 30 values (key 1: (personal) -> NULL; key 2: (personal) -> NULL; key 3: (personal) -> NULL; key 4: (personal) -> NULL; key 5: (personal) -> NULL); the store set was restored from its backup\n"))
        let report = try JSONDecoder().decode(UpgradeResult.self, from: Data(result.standardOutput.utf8))
        #expect(report.valuesCompared)
        #expect(report.preservation?.first { $0.table == "notes" && $0.column == "body" }?.nulled == 30)
        #expect((report.preservationSeconds ?? -1) >= 0)
        #expect(try storeFiles(live) == before)
        #expect(!FileManager.default.fileExists(atPath: Upgrade.comparisonFolder(forStore: store)))
    }

    @Test func noDataDiffSaysValuesWereNotCompared() throws {
        let notes = try NotesCorpus.forUpgrade()
        try notes.folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", NotesCorpus.stage1to2 + "\nUPDATE notes SET body = NULL;\n")
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live)
        let result = fixturekit("upgrade", store, "--config", notes.config, "--no-data-diff")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.hasSuffix("""
            PASS  note K1 keeps its title
            SKIP  data preserved: values were not compared with the backup (--no-data-diff)
            upgrade: \(store): upgraded to 3.0.0 (values not compared)

            """), "\(result.standardError)")
    }

    @Test func aPassingUpgradeReportsTheDiffsTime() throws {
        let notes = try NotesCorpus.forUpgrade()
        try notes.writeConfig { configuration in
            configuration["userVersions"] = NotesCorpus.userVersions
            configuration["keys"] = ["notes": ["uuid"]]
            configuration["changes"] = ["notes.folder_id": "derived", "notes.created_at": "derived"]
        }
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live)
        let result = fixturekit("upgrade", store, "--config", notes.config, "--json")
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardError.split(separator: "\n").map(String.init)
        #expect(lines.suffix(2).first?.hasPrefix("PASS  data preserved (data diff ") == true, "\(result.standardError)")
        #expect(lines.last == "upgrade: \(store): upgraded to 3.0.0")
        let report = try JSONDecoder().decode(UpgradeResult.self, from: Data(result.standardOutput.utf8))
        #expect(report.preservation?.contains { $0.table == "notes" && $0.compared == 30 } == true)
    }

    /// A killed upgrade whose migration had committed with a column emptied: the
    /// next run compares values too, and restores the backup.
    @Test func recoveryComparesValuesBeforeKeepingAMigration() throws {
        let notes = try NotesCorpus.forUpgrade()
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live)
        var original = try storeFiles(live)
        original["App.sqlite-shm"] = nil
        let result = try Upgrade.upgrade(store: store, configuration: try CorpusConfiguration.load(notes.config), configurationPath: notes.config)
        let backup = try #require(result.backup)
        let database = try Database(path: store)
        try database.execute("UPDATE notes SET body = NULL")
        try database.close()
        let marker = UpgradeMarker(
            format: UpgradeMarker.currentFormat, phase: .migrating, store: "App.sqlite", backup: backup.path, files: backup.files,
            from: "1.0.0", to: "3.0.0", configuration: notes.config, tables: ["notes": 30, "drafts": 1], foreignKeyViolations: 0)
        try marker.write(forStore: store)
        let pending = fixturekit("restore", "--pending", store)
        #expect(pending.status == 0, "\(pending.standardError)")
        #expect(pending.standardError == "\(store): interrupted upgrade 1.0.0 -> 3.0.0: restored the backup \(backup.path) (data preserved: notes.body: 30 became NULL of 30 values (key 1: (personal) -> NULL; key 2: (personal) -> NULL; key 3: (personal) -> NULL; key 4: (personal) -> NULL; key 5: (personal) -> NULL))\n")
        #expect(try storeFiles(live) == original)
    }
}
