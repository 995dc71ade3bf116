import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport
@testable import FixtureKitTool

/// `backup`, `restore` and `restore --pending` on live stores built in the tests.
@Suite struct BackupRestoreTests {
    @Test func backupIsAVerifiedSnapshotWithEveryCommit() throws {
        let folder = try TemporaryFolder()
        let store = try NotesCorpus.liveStore(in: folder.url("live"))
        let before = try storeFiles(folder.url("live"))
        let result = fixturekit("backup", store, "--to", folder.url("backups"), "--json")
        #expect(result.status == 0, "\(result.standardError)")
        let report = try JSONDecoder().decode(BackupResult.self, from: Data(result.standardOutput.utf8))
        #expect(report.archive.mode == "snapshot")
        #expect(report.archive.files.keys.sorted() == ["App.sqlite"])
        #expect(result.standardError == "\(report.archive.path): 1 file, \(FixtureKitTool.Formatting.bytes(report.archive.bytes)) packed into \(FixtureKitTool.Formatting.bytes(report.archive.size)), verified\n")
        // The source's main file and -wal are untouched (reading through SQLite
        // rebuilds the -shm); the snapshot holds the commits that live only in its -wal.
        var after = try storeFiles(folder.url("live"))
        after["App.sqlite-shm"] = before["App.sqlite-shm"]
        #expect(after == before)
        #expect(fixturekit("unpack", report.archive.path, folder.url("unpacked")).status == 0)
        #expect(try rowCount(ofStoreAt: folder.url("unpacked/App.sqlite")) == 30)
        let manifest = try JSONDecoder().decode(Manifest.self, from: Data(try folder.read("unpacked/manifest.json")))
        #expect(manifest.version == "unknown")
        #expect(manifest.capture.mode == "snapshot")
    }

    @Test func backupKeepsTheLastN() throws {
        let folder = try TemporaryFolder()
        let store = try NotesCorpus.liveStore(in: folder.url("live"), mode: .rollback)
        var made: [String] = []
        for _ in 1...4 {
            let result = fixturekit("backup", store, "--keep", "2", "--json")
            #expect(result.status == 0)
            made.append(try JSONDecoder().decode(BackupResult.self, from: Data(result.standardOutput.utf8)).archive.path)
        }
        #expect(StoreBackup.backups(of: "App.sqlite", in: folder.url("live/.fixturekit-backups")) == Array(made.suffix(2)))
        #expect(!FileManager.default.fileExists(atPath: made[0] + ".sha256"))
    }

    @Test(arguments: JournalMode.allCases)
    func restorePutsTheFilesBackExactly(mode: JournalMode) throws {
        let notes = try NotesCorpus.forUpgrade()
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live, mode: mode)
        let original = try storeFiles(live)
        let content = try ContentHash.of(store).hex
        let upgrade = fixturekit("upgrade", store, "--config", notes.config, "--json")
        #expect(upgrade.status == 0)
        let backup = try #require(try JSONDecoder().decode(UpgradeResult.self, from: Data(upgrade.standardOutput.utf8)).backup)
        #expect(backup.mode == "raw")
        #expect(backup.version == "1.0.0")

        let restored = fixturekit("restore", backup.path, store)
        #expect(restored.status == 0, "\(restored.standardError)")
        #expect(restored.standardError.hasPrefix("restore: \(store): restored \(mode == .wal ? "App.sqlite, App.sqlite-wal" : "App.sqlite") from \(backup.path), verified"))
        // It reports the content it put back: the content the store had before the upgrade.
        #expect(restored.standardError.hasSuffix("; content hash \(content.prefix(12))…\n"), "\(restored.standardError)")
        var expected = original
        expected["App.sqlite-shm"] = nil
        #expect(try storeFiles(live) == expected)
        #expect(try contents(ofStoreAt: store).hasPrefix("user_version 1\n"))

        // Into a store of another name: the sidecars follow the new name.
        let other = notes.folder.url("other/Copy.sqlite")
        try FileManager.default.createDirectory(atPath: notes.folder.url("other"), withIntermediateDirectories: true)
        #expect(fixturekit("restore", backup.path, other).status == 0)
        #expect(try storeFiles(notes.folder.url("other")).values.sorted() == expected.values.sorted())
        #expect(try rowCount(ofStoreAt: other) == 30)
    }

    @Test func aCorruptedBackupIsRefusedWithNothingChanged() throws {
        let folder = try TemporaryFolder()
        let store = try NotesCorpus.liveStore(in: folder.url("live"))
        let result = fixturekit("backup", store, "--to", folder.url("backups"), "--json")
        let archive = try JSONDecoder().decode(BackupResult.self, from: Data(result.standardOutput.utf8)).archive.path
        try FileManager.default.removeItem(atPath: folder.url("live/App.sqlite-shm"))
        let before = try snapshotOfFiles(folder.url("live"))

        // A cut archive cannot be read (exit status 2); a flipped byte makes a
        // file differ from its digest (1) or the stream unreadable (2).
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: archive)))
        let cut = try folder.write("cut.tar.zst", Array(bytes.prefix(bytes.count / 2)))
        let unreadable = fixturekit("restore", cut, store)
        #expect(unreadable.status == 2)
        #expect(unreadable.standardError.hasPrefix("fixturekit: restore: \(cut): "), "\(unreadable.standardError)")
        #expect(unreadable.standardError.hasSuffix(" (hint: nothing was changed)\n"))
        #expect(try snapshotOfFiles(folder.url("live")) == before)
        for offset in [bytes.count / 3, bytes.count / 2, bytes.count - 20] {
            var flipped = bytes
            flipped[offset] ^= 0xFF
            let damaged = try folder.write("damaged.tar.zst", flipped)
            let result = fixturekit("restore", damaged, store)
            #expect(result.status == 1 || result.status == 2, "\(result.standardError)")
            #expect(result.standardError.hasPrefix("fixturekit: restore: \(damaged): "), "\(result.standardError)")
            #expect(try snapshotOfFiles(folder.url("live")) == before)
        }

        // A readable archive whose store differs from its SHA256SUMS (exit status 1).
        try FileManager.default.createDirectory(atPath: folder.url("fixture"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: folder.url("live/App.sqlite"), toPath: folder.url("fixture/App.sqlite"))
        try Checksums.writeSums(for: folder.url("fixture"))
        var store2 = try folder.read("fixture/App.sqlite")
        store2[100] ^= 0x01
        try folder.write("fixture/App.sqlite", store2)
        let tampered = folder.url("tampered.tar")
        #expect(try run(["tar", "-cf", tampered, "-C", folder.url("fixture"), "SHA256SUMS", "App.sqlite"]).status == 0)
        let changed = fixturekit("restore", tampered, store)
        #expect(changed.status == 1)
        #expect(changed.standardError == "fixturekit: restore: \(tampered): the archive fails its SHA256SUMS: App.sqlite: changed (hint: nothing was changed; `fixturekit verify \(tampered)` lists every problem)\n")
        #expect(try snapshotOfFiles(folder.url("live")) == before)
    }

    @Test func restoreRefusesAStoreAnotherProcessHasOpen() throws {
        let folder = try TemporaryFolder()
        let store = try NotesCorpus.liveStore(in: folder.url("live"))
        let backup = try JSONDecoder().decode(BackupResult.self, from: Data(fixturekit("backup", store, "--json").standardOutput.utf8)).archive.path
        // Idle, but with the store open: its SHARED lock is held.
        let holder = try HoldingProcess(store: store, statements: ".dbconfig no_ckpt_on_close on\nSELECT count(*) FROM notes;")
        let before = try storeFiles(folder.url("live"))
        let result = fixturekit("restore", backup, store)
        #expect(result.status == 2)
        #expect(result.standardError == "fixturekit: restore: \(store): in use by another process (hint: close the app that uses the store, then restore again)\n")
        #expect(try storeFiles(folder.url("live")) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url("live")).sorted() == [".fixturekit-backups"] + before.keys.sorted())
        holder.finish()
    }

    @Test func restoreBringsTheSupportFolderBack() throws {
        let folder = try TemporaryFolder()
        let store = try NotesCorpus.liveStore(in: folder.url("live"), mode: .rollback)
        try folder.write("live/.App_SUPPORT/_EXTERNAL_DATA/A1", "attachment one")
        let backup = try JSONDecoder().decode(BackupResult.self, from: Data(fixturekit("backup", store, "--json").standardOutput.utf8)).archive
        #expect(backup.files.keys.sorted() == [".App_SUPPORT/_EXTERNAL_DATA/A1", "App.sqlite"])
        try folder.write("live/.App_SUPPORT/_EXTERNAL_DATA/A1", "changed")
        try folder.write("live/.App_SUPPORT/_EXTERNAL_DATA/B2", "new")
        #expect(fixturekit("restore", backup.path, store).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url("live/.App_SUPPORT/_EXTERNAL_DATA")) == ["A1"])
        #expect(String(decoding: try folder.read("live/.App_SUPPORT/_EXTERNAL_DATA/A1"), as: UTF8.self) == "attachment one")
    }

    // MARK: - Pending

    /// A migrated store and the marker a run killed after the last stage would have left.
    private func interruptedUpgrade(_ notes: NotesCorpus, phase: UpgradeMarker.Phase) throws -> (store: String, marker: UpgradeMarker, original: [String: String]) {
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live)
        var original = try storeFiles(live)
        original["App.sqlite-shm"] = nil
        let result = try Upgrade.upgrade(store: store, configuration: try CorpusConfiguration.load(notes.config), configurationPath: notes.config)
        let backup = try #require(result.backup)
        let marker = UpgradeMarker(
            format: UpgradeMarker.currentFormat, phase: phase, store: "App.sqlite", backup: backup.path, files: backup.files,
            from: "1.0.0", to: "3.0.0", configuration: notes.config, tables: ["notes": 30, "drafts": 1], foreignKeyViolations: 0)
        try marker.write(forStore: store)
        return (store, marker, original)
    }

    @Test func aMigrationThatHadCommittedAndPassesItsChecksIsKept() throws {
        let notes = try NotesCorpus.forUpgrade()
        let (store, _, _) = try interruptedUpgrade(notes, phase: .migrating)
        let migrated = try contents(ofStoreAt: store)
        let result = fixturekit("restore", "--pending", store)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError == "\(store): interrupted upgrade 1.0.0 -> 3.0.0: the migration had committed and passes its checks: kept\n")
        #expect(try contents(ofStoreAt: store) == migrated)
        #expect(!FileManager.default.fileExists(atPath: store + UpgradeMarker.suffix))
        #expect(fixturekit("restore", "--pending", store).standardError == "\(store): nothing pending\n")
    }

    @Test func aMigrationThatFailsItsChecksAgainIsRolledBack() throws {
        let notes = try NotesCorpus.forUpgrade()
        let (store, marker, original) = try interruptedUpgrade(notes, phase: .migrating)
        let database = try Database(path: store)
        try database.execute("DELETE FROM notes WHERE id = 30")
        try database.close()
        let result = fixturekit("upgrade", store, "--config", notes.config, "--json")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.hasPrefix("\(store): interrupted upgrade 1.0.0 -> 3.0.0: restored the backup \(marker.backup) (row counts: notes: 30 rows in 1.0.0, 29 after the migration)\n"))
        // Then the upgrade itself runs again, from the restored store.
        let report = try JSONDecoder().decode(UpgradeResult.self, from: Data(result.standardOutput.utf8))
        #expect(report.recovery?.outcome == .restored)
        #expect(report.outcome == .upgraded)
        #expect(try rowCount(ofStoreAt: store) == 30)
        _ = original
    }

    @Test func aStoreStillAtItsOldVersionIsRestoredExactly() throws {
        let notes = try NotesCorpus.forUpgrade()
        let live = notes.folder.url("live")
        let (store, marker, original) = try interruptedUpgrade(notes, phase: .migrating)
        // As if killed after stage 1: the store at 2.0.0.
        for name in ["App.sqlite", "App.sqlite-wal", "App.sqlite-shm"] { try? FileManager.default.removeItem(atPath: live + "/" + name) }
        let database = try Database(path: store, options: .init(create: true))
        try database.execute(NotesCorpus.schema2)
        try database.close()
        let result = fixturekit("restore", "--pending", store, "--json")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError == "\(store): interrupted upgrade 1.0.0 -> 3.0.0: restored the backup \(marker.backup) (the store reads as 2.0.0 (user_version 2), not 3.0.0)\n")
        #expect(try storeFiles(live) == original)
        let recovery = try JSONDecoder().decode(PendingRecovery.self, from: Data(result.standardOutput.utf8))
        #expect(recovery.phase == "migrating")
        #expect(recovery.restore?.files == ["App.sqlite", "App.sqlite-wal"])
    }

    @Test func aRestoreThatWasKilledIsFinished() throws {
        let notes = try NotesCorpus.forUpgrade()
        let live = notes.folder.url("live")
        let (store, _, original) = try interruptedUpgrade(notes, phase: .restoring)
        // As if killed after the -wal was removed, before the main file went in.
        try FileManager.default.removeItem(atPath: live + "/App.sqlite-wal")
        let result = fixturekit("restore", "--pending", store)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try storeFiles(live) == original)
        #expect(!FileManager.default.fileExists(atPath: store + UpgradeMarker.suffix))
    }
}
