import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTool
@testable import FixtureKitTestSupport

/// `upgrade` on live stores built in the tests, against the Notes corpus.
@Suite struct UpgradeTests {
    /// A second stage that leaves a commit of its own in the store (in its `-wal`,
    /// never checkpointed, in WAL mode), then fails.
    static let failingStage = """
        #!/bin/sh
        sqlite3 "$FIXTUREKIT_STORE" ".dbconfig no_ckpt_on_close on" "PRAGMA wal_autocheckpoint = 0" "CREATE TABLE junk (x)" "INSERT INTO junk VALUES (1)"
        echo 'cannot migrate: model missing' >&2
        exit 3
        """

    @Test(arguments: JournalMode.allCases)
    func aFailingStageLeavesTheStoreSetByteIdentical(mode: JournalMode) throws {
        let notes = try NotesCorpus.forUpgrade()
        try notes.writeProgramStage(Self.failingStage)
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live, mode: mode)
        let before = try storeFiles(live)
        #expect(before.keys.sorted() == (mode == .wal ? ["App.sqlite", "App.sqlite-shm", "App.sqlite-wal"] : ["App.sqlite"]))
        let original = try contents(ofStoreAt: store)

        let result = fixturekit("upgrade", store, "--config", notes.config)
        #expect(result.status == 1)
        #expect(result.standardError.contains("""
            PASS  stage 1.0.0 -> 2.0.0
                  connection: \(ConnectionSettings.sqlStageDefaults)
            FAIL  stage 2.0.0 -> 3.0.0
                  migrations/2.0.0-3.0.0.sh exited with status 3: cannot migrate: model missing
                  statement: migrations/2.0.0-3.0.0.sh
                  connection: the program's own connection, LC_ALL=C.UTF-8, TZ=UTC

            """), "\(result.standardError)")
        // The failed migration's own -wal and -shm (its second stage left a commit
        // in them) were removed before the main file went back.
        let restored = mode == .wal
            ? "restored App.sqlite, App.sqlite-wal from \(live)/.fixturekit-backups/"
            : "restored App.sqlite from \(live)/.fixturekit-backups/"
        #expect(result.standardError.contains("\nrestore: \(store): \(restored)"))
        #expect(result.standardError.contains(mode == .wal ? ".tar.zst, verified; removed App.sqlite-shm, which the backup does not hold\n" : ".tar.zst, verified\n"))
        #expect(result.standardError.hasSuffix("""
            upgrade: \(store): not upgraded, back at 1.0.0
            fixturekit: upgrade: \(store): stage 2.0.0 -> 3.0.0 failed: migrations/2.0.0-3.0.0.sh exited with status 3: cannot migrate: model missing; the store set was restored from its backup

            """), "\(result.standardError)")
        // The main file and its -wal exactly as they were. The -shm, SQLite's index
        // of the -wal that every first connection rebuilds, is not put back.
        var expected = before
        expected["App.sqlite-shm"] = nil
        #expect(try storeFiles(live) == expected)
        #expect(try contents(ofStoreAt: store) == original)
        #expect(try integrity(ofStoreAt: store) == "ok")
        // Nothing of the failed migration: no -wal, -shm or -journal of its own, no
        // marker, no extraction folder; one backup.
        #expect(try FileManager.default.contentsOfDirectory(atPath: live).sorted() == [".fixturekit-backups"] + expected.keys.sorted())
        #expect(StoreBackup.backups(of: "App.sqlite", in: live + "/.fixturekit-backups").count == 1)
    }

    @Test func aFailingCheckRestoresTheBackupToo() throws {
        let notes = try NotesCorpus.forUpgrade()
        try notes.folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", NotesCorpus.stage1to2 + "\nDELETE FROM notes WHERE id > 28;\n")
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live)
        let before = try storeFiles(live)
        let result = fixturekit("upgrade", store, "--config", notes.config, "--json")
        #expect(result.status == 1)
        #expect(result.standardError.contains("FAIL  row counts\n      notes: 30 rows in 1.0.0, 28 after the migration\n"), "\(result.standardError)")
        #expect(result.standardError.hasSuffix("fixturekit: upgrade: \(store): row counts failed: notes: 30 rows in 1.0.0, 28 after the migration; the store set was restored from its backup\n"))
        let report = try JSONDecoder().decode(UpgradeResult.self, from: Data(result.standardOutput.utf8))
        #expect(report.outcome == .restored)
        #expect(report.failure?.name == "row counts")
        #expect(report.checks.map(\.name) == [
            "stage 1.0.0 -> 2.0.0", "stage 2.0.0 -> 3.0.0", "integrity_check", "foreign_key_check", "version 3.0.0",
            "schema matches 3.0.0", "row counts", "no orphan notes", "note K1 keeps its title",
        ])
        var expected = before
        expected["App.sqlite-shm"] = nil
        #expect(try storeFiles(live) == expected)
    }

    @Test func aRestoreIsLeftPendingWhileAnotherProcessHasTheStore() throws {
        let notes = try NotesCorpus.forUpgrade()
        let started = notes.folder.url("stage-started"), holding = notes.folder.url("holding")
        // The program stage lets another process in (the lock is given up while a
        // program runs), then fails. That process is not the stage's: every
        // process the stage starts ends with it.
        try notes.writeProgramStage("""
            #!/bin/sh
            touch '\(started)'
            while [ ! -e '\(holding)' ]; do sleep 0.05; done
            exit 3
            """)
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live)
        var before = try storeFiles(live)
        before["App.sqlite-shm"] = nil
        let app = Thread {
            while !FileManager.default.fileExists(atPath: started) { usleep(10_000) }
            let holder = try? HoldingProcess(store: store, statements: "BEGIN IMMEDIATE;")
            FileManager.default.createFile(atPath: holding, contents: nil)
            while FileManager.default.fileExists(atPath: holding) { usleep(10_000) }
            holder?.finish()
        }
        app.start()
        let result = fixturekit("upgrade", store, "--config", notes.config)
        try FileManager.default.removeItem(atPath: holding)
        #expect(result.status == 2)
        #expect(result.standardError.hasSuffix("fixturekit: upgrade: \(store): stage 2.0.0 -> 3.0.0 failed, and another process has opened the store since: the backup is not restored yet (hint: close the app that uses the store, then `fixturekit restore --pending \(store)` restores it)\n"), "\(result.standardError)")
        #expect(try UpgradeMarker.read(forStore: store)?.phase == .restoring)
        var pending = fixturekit("restore", "--pending", store)
        for _ in 0..<50 where pending.status != 0 {
            // The holder is finishing.
            usleep(100_000)
            pending = fixturekit("restore", "--pending", store)
        }
        #expect(pending.status == 0, "\(pending.standardError)")
        #expect(try storeFiles(live) == before)
    }

    @Test func aStoreLockedByAnotherProcessIsRefusedAndUntouched() throws {
        let notes = try NotesCorpus.forUpgrade()
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live)
        let holder = try HoldingProcess(store: store, statements: "BEGIN IMMEDIATE;")
        let before = try storeFiles(live)
        let result = fixturekit("upgrade", store, "--config", notes.config)
        #expect(result.status == 2)
        #expect(result.standardError == "fixturekit: upgrade: \(store): in use by another process (hint: close the app that uses the store, then try again)\n")
        #expect(try storeFiles(live) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: live).sorted() == before.keys.sorted())
        holder.finish()
    }

    @Test func aStoreAnotherConnectionKeepsOpenIsRefused() throws {
        let notes = try NotesCorpus.forUpgrade()
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live)
        // An idle connection of this very process holds a WAL store's SHARED lock.
        let app = try Database(path: store)
        try app.setCheckpointOnClose(false)
        _ = try app.scalar("SELECT count(*) FROM notes")
        let result = fixturekit("upgrade", store, "--config", notes.config)
        #expect(result.status == 2)
        #expect(result.standardError.hasSuffix(": in use by another process (hint: close the app that uses the store, then try again)\n"))
        try app.close()
        #expect(fixturekit("upgrade", store, "--config", notes.config).status == 0)
    }

    @Test func aStoreNewerThanCurrentIsRefused() throws {
        let notes = try NotesCorpus.forUpgrade()
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live, userVersion: 4)
        let before = try storeFiles(live)
        let result = fixturekit("upgrade", store, "--config", notes.config)
        #expect(result.status == 2)
        #expect(result.standardError == "fixturekit: upgrade: \(store): the store is at user_version 4, newer than the current version 3.0.0: refused (hint: a store is never taken back to an older version; upgrade it with a newer build)\n")
        #expect(try storeFiles(live) == before)
        #expect(!FileManager.default.fileExists(atPath: live + "/.fixturekit-backups"))

        try notes.writeConfig { $0["versionQuery"] = "SELECT '4.1.0'" }
        let queried = fixturekit("upgrade", store, "--config", notes.config)
        #expect(queried.status == 2)
        #expect(queried.standardError == "fixturekit: upgrade: \(store): the store is at 4.1.0 (versionQuery), newer than the current version 3.0.0: refused (hint: a store is never taken back to an older version; upgrade it with a newer build)\n")
        #expect(try storeFiles(live) == before)
    }

    @Test func aStoreWhoseVersionCannotBeToldIsRefused() throws {
        let notes = try NotesCorpus()
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live)
        let before = try storeFiles(live)
        let none = fixturekit("upgrade", store, "--config", notes.config)
        #expect(none.status == 2)
        #expect(none.standardError == "fixturekit: upgrade: \(store): cannot tell the store's version: the configuration has neither \"userVersions\" nor \"versionQuery\" (hint: map each version to its user_version in \"userVersions\")\n")
        try notes.writeConfig { $0["userVersions"] = ["2.0.0": 2, "3.0.0": 3] }
        #expect(fixturekit("upgrade", store, "--config", notes.config).standardError == "fixturekit: upgrade: \(store): cannot tell the store's version: user_version 1 is not one of \"userVersions\"\n")
        try notes.writeConfig { $0["versionQuery"] = "SELECT version FROM meta" }
        #expect(fixturekit("upgrade", store, "--config", notes.config).standardError == "fixturekit: upgrade: \(store): cannot tell the store's version: versionQuery failed: SQLite error 1: no such table: meta - while executing `SELECT version FROM meta`\n")
        try notes.writeConfig { $0["userVersions"] = ["1.0.0": 1, "2.0.0": 1] }
        #expect(fixturekit("upgrade", store, "--config", notes.config).standardError == "fixturekit: read configuration: \(notes.config): userVersions gives 1.0.0 and 2.0.0 the same user_version 1, but the stage 1.0.0 -> 2.0.0 lies between them: a store's version could not be told\n")
        try notes.writeConfig { $0["userVersions"] = NotesCorpus.userVersions; $0["stages"] = [["from": "2.0.0", "to": "3.0.0", "sql": "x.sql"]] }
        #expect(fixturekit("upgrade", store, "--config", notes.config).standardError == "fixturekit: upgrade: \(store): the store is at 1.0.0, and there is no way to 3.0.0: no stage from 1.0.0 (the chain to 3.0.0 stops there) (hint: add the missing stage to the configuration)\n")
        #expect(try storeFiles(live) == before)
    }

    @Test func aDamagedStoreFailsQuickCheckAndIsLeftAlone() throws {
        let notes = try NotesCorpus.forUpgrade()
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live, mode: .rollback, notes: 400)
        var bytes = try notes.folder.read("live/App.sqlite")
        // Page 3 onwards: notes' b-tree pages; their header's cell count becomes nonsense.
        for page in 2..<(bytes.count / 4096) { bytes[page * 4096 + 3] = 0xFF; bytes[page * 4096 + 4] = 0xFF }
        try notes.folder.write("live/App.sqlite", bytes)
        let before = try storeFiles(live)
        let result = fixturekit("upgrade", store, "--config", notes.config)
        #expect(result.status == 1)
        #expect(result.standardError.hasPrefix("fixturekit: upgrade: \(store): quick_check: "), "\(result.standardError)")
        #expect(result.standardError.hasSuffix(" (hint: the store is damaged: nothing was changed)\n"))
        #expect(try storeFiles(live) == before)
    }

    /// A count needed and a count free never read the same: every size from
    /// bytes to GiB, each against one byte less.
    @Test func spaceNeededAndFreeReadDifferently() {
        var sizes: [UInt64] = [1023, 1024, 1025, 3_093_299, 3_093_300]
        for shift in stride(from: 10, through: 40, by: 3) {
            for factor in [1, 3, 17, 1000] as [UInt64] { sizes.append((UInt64(1) << shift) * factor + factor) }
        }
        for needed in sizes {
            let (neededText, freeText) = ByteCount.describe(needed, needed - 1)
            #expect(neededText != freeText, "\(needed)")
            #expect(ByteCount.describe(needed, needed) == (ByteCount.describe(needed), ByteCount.describe(needed)))
        }
        #expect(ByteCount.describe(3_040_000, 3_020_000) == ("2.90 MiB", "2.88 MiB"))
        #expect(ByteCount.describe(3_040_000, 3_039_999) == ("3040000 B", "3039999 B"))
    }

    @Test func notEnoughDiskIsRefusedBeforeAnythingIsWritten() throws {
        let notes = try NotesCorpus.forUpgrade()
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live)
        let before = try storeFiles(live)
        var options = UpgradeOptions()
        options.availableSpace = { _ in 1000 }
        do {
            _ = try Upgrade.upgrade(store: store, configuration: try CorpusConfiguration.load(notes.config), configurationPath: notes.config, options: options)
            Issue.record("the upgrade went ahead")
        } catch {
            #expect(error.category == .couldNotWork)
            #expect(error.why.hasPrefix("not enough free disk: the backup and the migration need "), "\(error)")
            #expect(error.why.hasSuffix(", 1000 B free in \(live)"))
            #expect(error.remedy == .freeSpaceOrMoveBackups)
            #expect(FixtureKitError.Remedy.commandLine(.freeSpaceOrMoveBackups) == "free some space, or put the backups on another disk with --backups DIR")
        }
        #expect(try storeFiles(live) == before)
        #expect(!FileManager.default.fileExists(atPath: live + "/.fixturekit-backups"))
    }

    @Test func theHappyPathMigratesAndKeepsThreeBackups() throws {
        let notes = try NotesCorpus.forUpgrade()
        let live = notes.folder.url("live")
        let backups = notes.folder.url("backups")
        var lastOriginal: [String: String] = [:]
        for run in 1...4 {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: live)) ?? [] { try FileManager.default.removeItem(atPath: live + "/" + name) }
            let store = try NotesCorpus.liveStore(in: live)
            lastOriginal = try storeFiles(live)
            let result = fixturekit("upgrade", store, "--config", notes.config, "--backups", backups)
            #expect(result.status == 0, "\(result.standardError)")
            let lines = result.standardError.split(separator: "\n").map(String.init)
            #expect(lines.first == "upgrade: \(store): 1.0.0 -> 3.0.0, 2 stages")
            #expect(lines.dropFirst().first?.hasPrefix("backup: \(backups)/App.sqlite.backup-") == true)
            #expect(lines.dropFirst().first?.hasSuffix(", verified") == true)
            #expect(lines.last == "upgrade: \(store): upgraded to 3.0.0" + (run == 4 ? ", removed 1 older backup" : ""))
            #expect(!lines.contains { $0.hasPrefix("FAIL") })
            // Migrated, whole in its main file (the -wal checkpointed to nothing).
            #expect(try rowCount(ofStoreAt: store) == 30)
            #expect(try contents(ofStoreAt: store).hasPrefix("user_version 3\n"))
            #expect(try integrity(ofStoreAt: store) == "ok")
            #expect(try FileManager.default.contentsOfDirectory(atPath: live).sorted() == ["App.sqlite", "App.sqlite-wal"])
            #expect(try FileManager.default.attributesOfItem(atPath: store + "-wal")[.size] as? Int == 0)
        }
        let kept = StoreBackup.backups(of: "App.sqlite", in: backups)
        #expect(kept.count == 3)
        #expect(try FileManager.default.contentsOfDirectory(atPath: backups).filter { !$0.hasPrefix(".") }.count == 6)
        for archive in kept {
            #expect(fixturekit("verify", archive).status == 0)
            #expect(try run(["sha256sum", "-c", "--quiet", (archive as NSString).lastPathComponent + ".sha256"], in: backups).status == 0)
        }
        let listing = fixturekit("list", kept[2])
        #expect(listing.standardError.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }.dropLast() == ["SHA256SUMS", "manifest.json", "App.sqlite", "App.sqlite-wal"])

        // At the current version: left alone, no backup taken.
        let store = live + "/App.sqlite"
        let migrated = try storeFiles(live)
        let again = fixturekit("upgrade", store, "--config", notes.config, "--backups", backups)
        #expect(again.status == 0)
        #expect(again.standardError == "upgrade: \(store): already at 3.0.0: nothing to do\n")
        #expect(try storeFiles(live) == migrated)
        #expect(StoreBackup.backups(of: "App.sqlite", in: backups) == kept)

        // The newest backup gives back the last store exactly as it was.
        let restored = fixturekit("restore", kept[2], store)
        #expect(restored.status == 0, "\(restored.standardError)")
        var expected = lastOriginal
        expected["App.sqlite-shm"] = nil
        #expect(try storeFiles(live) == expected)
    }

    @Test func backupsGoBesideTheStoreByDefault() throws {
        let notes = try NotesCorpus.forUpgrade()
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live, mode: .rollback)
        #expect(fixturekit("upgrade", store, "--config", notes.config, "--keep", "1").status == 0)
        let folder = live + "/.fixturekit-backups"
        var info = stat()
        #expect(lstat(folder, &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(StoreBackup.backups(of: "App.sqlite", in: folder).count == 1)
        // A rollback-journal store stays one file.
        #expect(try FileManager.default.contentsOfDirectory(atPath: live).sorted() == [".fixturekit-backups", "App.sqlite"])
    }

    @Test func usageErrors() {
        #expect(fixturekit("upgrade", "App.sqlite").standardError.hasPrefix("Error: missing required option '--config <FILE>'\n"))
        #expect(fixturekit("upgrade", "App.sqlite", "--config", "x", "--keep", "0").status == 64)
        #expect(fixturekit("restore", "backup.tar.zst").standardError.hasPrefix("Error: missing expected argument '<store>'\n"))
        #expect(fixturekit("restore", "--pending", "a", "b").standardError.hasPrefix("Error: unexpected argument 'b': '--pending' takes the store alone\n"))
        #expect(fixturekit("backup").status == 64)
    }
}
