import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// Pruning never removes a backup that something still needs: the one a pending
/// marker names (beside its store, or beside another store it is being restored
/// into), one of another store of the same file name that shares the folder, one
/// that records no store.
@Suite struct BackupRetentionTests {
    /// An upgrade of `store` that was killed while migrating: a marker that names
    /// its backup, and a store that no longer passes its checks (a row gone), so
    /// that finishing it needs the backup.
    private func pendingUpgrade(_ notes: NotesCorpus, store: String, backups: String) throws -> BackupArchive {
        let result = try Upgrade.upgrade(
            store: store, configuration: try CorpusConfiguration.load(notes.config), configurationPath: notes.config,
            options: UpgradeOptions(backups: backups))
        let backup = try #require(result.backup)
        let database = try Database(path: store)
        try database.execute("DELETE FROM notes WHERE id = 30")
        try database.close()
        let marker = UpgradeMarker(
            format: UpgradeMarker.currentFormat, phase: .migrating, store: "App.sqlite", backup: POSIX.absolutePath(backup.path), files: backup.files,
            from: "1.0.0", to: "3.0.0", configuration: notes.config, tables: ["notes": 30, "drafts": 1], foreignKeyViolations: 0)
        try marker.write(forStore: store)
        return backup
    }

    @Test func backupKeep1OfTheSameStoreKeepsThePendingMarkersBackup() throws {
        let notes = try NotesCorpus.forUpgrade()
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live)
        var original = try storeFiles(live)
        original["App.sqlite-shm"] = nil
        let backups = live + "/.fixturekit-backups"
        let pending = try pendingUpgrade(notes, store: store, backups: backups)
        var made: [String] = []
        for _ in 1...3 {
            let result = fixturekit("backup", store, "--keep", "1", "--json")
            #expect(result.status == 0, "\(result.standardError)")
            made.append(try JSONDecoder().decode(BackupResult.self, from: Data(result.standardOutput.utf8)).archive.path)
        }
        // The last one, and the one the marker names; the others went.
        #expect(StoreBackup.backups(of: "App.sqlite", in: backups) == [pending.path, made[2]])
        let finished = fixturekit("restore", "--pending", store)
        #expect(finished.status == 0, "\(finished.standardError)")
        #expect(finished.standardError.hasPrefix("\(store): interrupted upgrade 1.0.0 -> 3.0.0: restored the backup "), "\(finished.standardError)")
        #expect(try storeFiles(live) == original)
        // Settled: the next pruning may remove it.
        #expect(fixturekit("backup", store, "--keep", "1").status == 0)
        #expect(StoreBackup.backups(of: "App.sqlite", in: backups).count == 1)
    }

    @Test func anotherStoreOfTheSameNameSharingTheFolderKeepsItsBackups() throws {
        let notes = try NotesCorpus.forUpgrade()
        let shared = notes.folder.url("shared-backups")
        let first = try NotesCorpus.liveStore(in: notes.folder.url("a"))
        var original = try storeFiles(notes.folder.url("a"))
        original["App.sqlite-shm"] = nil
        let older = try JSONDecoder().decode(BackupResult.self, from: Data(fixturekit("backup", first, "--to", shared, "--json").standardOutput.utf8)).archive.path
        let pending = try pendingUpgrade(notes, store: first, backups: shared)

        // Another App.sqlite, upgraded again and again with --keep 1 into the same folder.
        let second = notes.folder.url("b/App.sqlite")
        var own: [String] = []
        for _ in 1...3 {
            try? FileManager.default.removeItem(atPath: notes.folder.url("b"))
            try NotesCorpus.liveStore(in: notes.folder.url("b"))
            let result = fixturekit("upgrade", second, "--config", notes.config, "--backups", shared, "--keep", "1", "--json")
            #expect(result.status == 0, "\(result.standardError)")
            own.append(try #require(try JSONDecoder().decode(UpgradeResult.self, from: Data(result.standardOutput.utf8)).backup).path)
        }
        let left = Set(StoreBackup.backups(of: "App.sqlite", in: shared))
        #expect(left == [older, pending.path, own[2]])
        let finished = fixturekit("restore", "--pending", first)
        #expect(finished.status == 0, "\(finished.standardError)")
        #expect(try storeFiles(notes.folder.url("a")) == original)
    }

    /// `restore FILE STORE` into another store, killed after its marker: the
    /// backup is pinned for that store, and no pruning of its own store removes
    /// it until the restore is finished.
    @Test func aBackupBeingRestoredIntoAnotherStoreIsPinned() throws {
        let folder = try TemporaryFolder()
        let store = try NotesCorpus.liveStore(in: folder.url("live"), mode: .rollback)
        let backups = folder.url("live/.fixturekit-backups")
        let archive = try JSONDecoder().decode(BackupResult.self, from: Data(fixturekit("backup", store, "--json").standardOutput.utf8)).archive
        let other = folder.url("other/Copy.sqlite")
        try FileManager.default.createDirectory(atPath: folder.url("other"), withIntermediateDirectories: true)
        // What `restore` writes before it replaces a file: the pin, then the marker.
        try BackupPin.write(archive: archive.path, store: other)
        try UpgradeMarker(format: UpgradeMarker.currentFormat, phase: .restoring, store: "Copy.sqlite", backup: POSIX.absolutePath(archive.path), files: ["Copy.sqlite": archive.files["App.sqlite"] ?? ""]).write(forStore: other)
        for _ in 1...2 { #expect(fixturekit("backup", store, "--keep", "1").status == 0) }
        #expect(StoreBackup.backups(of: "App.sqlite", in: backups).first == archive.path)
        let finished = fixturekit("restore", "--pending", other)
        #expect(finished.status == 0, "\(finished.standardError)")
        #expect(try rowCount(ofStoreAt: other) == 30)
        #expect(!FileManager.default.fileExists(atPath: BackupPin.path(archive: archive.path, store: other)))
        #expect(fixturekit("backup", store, "--keep", "1").status == 0)
        #expect(StoreBackup.backups(of: "App.sqlite", in: backups).count == 1)
        #expect(!FileManager.default.fileExists(atPath: archive.path))
    }

    @Test func aStalePinIsRemovedAndItsBackupPruned() throws {
        let folder = try TemporaryFolder()
        let store = try NotesCorpus.liveStore(in: folder.url("live"), mode: .rollback)
        let backups = folder.url("live/.fixturekit-backups")
        let archive = try JSONDecoder().decode(BackupResult.self, from: Data(fixturekit("backup", store, "--json").standardOutput.utf8)).archive.path
        // Left by a run killed after it removed its marker: no marker names the backup, no run holds the store.
        try BackupPin.write(archive: archive, store: store)
        #expect(fixturekit("backup", store, "--keep", "1").status == 0)
        #expect(!FileManager.default.fileExists(atPath: archive))
        #expect(try FileManager.default.contentsOfDirectory(atPath: backups).filter { $0.contains(".pin-") } == [])
    }

    /// Backups made before fixturekit recorded their store cannot be told apart
    /// from another store's: they are left alone.
    @Test func aBackupThatRecordsNoStoreIsLeftAlone() throws {
        let folder = try TemporaryFolder()
        let store = try NotesCorpus.liveStore(in: folder.url("live"), mode: .rollback)
        let backups = folder.url("live/.fixturekit-backups")
        try FileManager.default.createDirectory(atPath: backups, withIntermediateDirectories: true)
        _ = try Capture.capture(store: store, version: "1.0.0", corpus: folder.url("corpus"), mode: .snapshot, anonymize: .synthetic)
        let legacy = backups + "/App.sqlite.backup-20200101T000000.000000Z.tar.zst"
        #expect(fixturekit("pack", folder.url("corpus/1.0.0"), "-o", legacy).status == 0)
        for _ in 1...2 { #expect(fixturekit("backup", store, "--keep", "1").status == 0) }
        let left = StoreBackup.backups(of: "App.sqlite", in: backups)
        #expect(left.count == 2)
        #expect(left.first == legacy)
    }

    @Test func aBackupRecordsItsStore() throws {
        let folder = try TemporaryFolder()
        let store = try NotesCorpus.liveStore(in: folder.url("live"))
        try FileManager.default.createSymbolicLink(atPath: folder.url("link"), withDestinationPath: folder.url("live"))
        let archive = try JSONDecoder().decode(BackupResult.self, from: Data(fixturekit("backup", folder.url("link/App.sqlite"), "--json").standardOutput.utf8)).archive.path
        let origin = try #require(StoreBackup.recordedOrigin(of: archive))
        // The folder's links resolved: the same store, however it is named.
        let resolved = try #require(realpath(folder.url("live"), nil))
        defer { free(resolved) }
        #expect(origin.store == String(cString: resolved) + "/App.sqlite")
        #expect(origin.store == BackupOrigin.identity(ofStore: store))
        #expect(origin.files.keys.sorted() == ["App.sqlite"])
    }
}
