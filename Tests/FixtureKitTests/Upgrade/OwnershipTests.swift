import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// Owner, group and mode survive a backup and a restore, and a backup is never
/// readable by more users than its store.
@Suite struct OwnershipTests {
    static let isRoot = getuid() == 0
    /// The user the root-only tests give the store to: `nobody`.
    static let otherUser: uid_t = 65534
    static let otherGroup: gid_t = 65534

    private func info(_ path: String) throws -> FileStatus {
        try POSIX.lstat(path)
    }

    private func setMode(_ mode: mode_t, ofFilesIn folder: String) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where !name.hasPrefix(".") {
            chmod(folder + "/" + name, mode)
        }
    }

    /// The archive and its `.sha256` are 0600, never wider than the store's main
    /// file; a backup folder fixturekit creates is 0700.
    @Test(arguments: [(mode_t(0o600), mode_t(0o600)), (0o640, 0o600), (0o644, 0o600), (0o444, 0o400), (0o400, 0o400)])
    func backupsAreNeverWiderThanTheirStore(store mode: mode_t, backup expected: mode_t) throws {
        let folder = try TemporaryFolder()
        let store = try NotesCorpus.liveStore(in: folder.url("live"), mode: .rollback)
        chmod(store, mode)
        let result = fixturekit("backup", store, "--json")
        #expect(result.status == 0, "\(result.standardError)")
        let archive = try JSONDecoder().decode(BackupResult.self, from: Data(result.standardOutput.utf8)).archive.path
        #expect(try info(archive).mode & 0o7777 == expected)
        #expect(try info(archive + ".sha256").mode & 0o7777 == expected)
        #expect(try info(folder.url("live/.fixturekit-backups")).mode & 0o7777 == 0o700)
    }

    /// A private store (0600) comes back 0600 from an automatic restore and from
    /// one by hand, not 0644 as extraction writes files.
    @Test(arguments: JournalMode.allCases)
    func restoreGivesBackTheModes(mode: JournalMode) throws {
        let notes = try NotesCorpus.forUpgrade()
        try notes.writeProgramStage(UpgradeTests.failingStage)
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live, mode: mode)
        try setMode(0o600, ofFilesIn: live)
        let result = fixturekit("upgrade", store, "--config", notes.config, "--json")
        #expect(result.status == 1)
        for name in mode == .wal ? ["App.sqlite", "App.sqlite-wal"] : ["App.sqlite"] {
            #expect(try info(live + "/" + name).mode & 0o7777 == 0o600, "\(name)")
        }
        let backup = try #require(try JSONDecoder().decode(UpgradeResult.self, from: Data(result.standardOutput.utf8)).backup)
        try setMode(0o644, ofFilesIn: live)
        #expect(fixturekit("restore", backup.path, store).status == 0)
        #expect(try info(store).mode & 0o7777 == 0o600)
    }

    @Test(.enabled(if: OwnershipTests.isRoot, "changes files' owners: runs as root only"))
    func aStoreOfAnotherUserComesBackWithItsOwnerGroupAndModeAsRoot() throws {
        let notes = try NotesCorpus.forUpgrade()
        try notes.writeProgramStage(UpgradeTests.failingStage)
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live)
        try notes.folder.write("live/.App_SUPPORT/_EXTERNAL_DATA/A1", "attachment one")
        let owned = ["App.sqlite", "App.sqlite-wal", "App.sqlite-shm", ".App_SUPPORT", ".App_SUPPORT/_EXTERNAL_DATA", ".App_SUPPORT/_EXTERNAL_DATA/A1"]
        for name in owned {
            let path = live + "/" + name
            lchown(path, Self.otherUser, Self.otherGroup)
            chmod(path, name.hasSuffix("SUPPORT") || name.hasSuffix("DATA") ? 0o700 : 0o600)
        }
        // Upgraded by root, and restored automatically: the app's user keeps its store.
        let result = fixturekit("upgrade", store, "--config", notes.config, "--json")
        #expect(result.status == 1, "\(result.standardError)")
        #expect(!result.standardError.contains("warning"), "\(result.standardError)")
        for name in owned where name != "App.sqlite-shm" {
            let found = try info(live + "/" + name)
            #expect(found.owner == Self.otherUser && found.group == Self.otherGroup, "\(name): \(found.owner):\(found.group)")
            #expect(found.mode & 0o7777 == (name.hasSuffix("SUPPORT") || name.hasSuffix("DATA") ? 0o700 : 0o600), "\(name)")
        }
        // By hand, over files root now owns.
        let backup = try #require(try JSONDecoder().decode(UpgradeResult.self, from: Data(result.standardOutput.utf8)).backup)
        for name in owned where FileManager.default.fileExists(atPath: live + "/" + name) {
            lchown(live + "/" + name, 0, 0)
            chmod(live + "/" + name, 0o644)
        }
        #expect(fixturekit("restore", backup.path, store).status == 0)
        let found = try info(store)
        #expect(found.owner == Self.otherUser && found.group == Self.otherGroup && found.mode & 0o7777 == 0o600)
        #expect(try info(live + "/.App_SUPPORT/_EXTERNAL_DATA/A1").owner == Self.otherUser)
        // The backup: private to root, which made it.
        #expect(try info(backup.path).mode & 0o7777 == 0o600)
    }

    /// A restore that may not give a file its recorded owner (it is not root)
    /// gives it the recorded mode, and says what it could not do.
    @Test func aRestoreThatMayNotChangeTheOwnerSaysSo() throws {
        let folder = try TemporaryFolder()
        let source = try NotesCorpus.liveStore(in: folder.url("source"), mode: .rollback)
        // A backup recording that root owned the store.
        _ = try Capture.capture(store: source, version: "1.0.0", corpus: folder.url("corpus"), mode: .snapshot, anonymize: .synthetic)
        let fixture = folder.url("corpus/1.0.0")
        var manifest = try JSONSerialization.jsonObject(with: Data(try folder.read("corpus/1.0.0/manifest.json"))) as! [String: Any]
        manifest["backup"] = ["store": source, "files": ["App.sqlite": ["uid": 0, "gid": 0, "mode": "0640"]]]
        try folder.write("corpus/1.0.0/manifest.json", Array(try JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys])))
        #expect(fixturekit("sums", fixture).status == 0)
        let live = folder.url("live")
        try FileManager.default.createDirectory(atPath: live, withIntermediateDirectories: true)
        let archive = live + "/backup.tar.zst"
        #expect(fixturekit("pack", fixture, "-o", archive).status == 0)
        let store = live + "/App.sqlite"

        let result: RunResult
        if Self.isRoot {
            // As a user who is not root: nobody, in a folder of its own.
            _ = try run(["chown", "-R", "\(Self.otherUser):\(Self.otherGroup)", live])
            chmod(folder.path, 0o711)
            result = try run(["setpriv", "--reuid=\(Self.otherUser)", "--regid=\(Self.otherGroup)", "--clear-groups", toolExecutable, "restore", archive, store])
        } else {
            result = fixturekit("restore", archive, store)
        }
        let me = Self.isRoot ? "\(Self.otherUser):\(Self.otherGroup)" : "\(getuid()):\(getgid())"
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.hasSuffix("\nrestore: \(store): warning: owner 0:0 of App.sqlite not restored: operation not permitted (it is \(me))\n"), "\(result.standardError)")
        #expect(try info(store).mode & 0o7777 == 0o640)
    }
}
