import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// Failures of the machine say what happened: a stage of `upgrade` that fills
/// the disk names the stage and the restore; `migrate` whose temporary folder is
/// missing or full, or whose report cannot be written, exits 2, never 1.
@Suite struct InfrastructureFailureTests {
    /// Whether this process may mount a small tmpfs (root, and a kernel that lets it).
    static let canMountTmpfs: Bool = {
        guard getuid() == 0, let folder = try? TemporaryFolder() else { return false }
        guard (try? run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", folder.path]))?.status == 0 else { return false }
        _ = try? run(["umount", folder.path])
        return true
    }()

    /// A tmpfs of `size` mounted at a new folder, unmounted when the value goes away.
    final class SmallDisk {
        let folder: TemporaryFolder
        var path: String { folder.path + "/disk" }

        init(size: String) throws {
            folder = try TemporaryFolder()
            try FileManager.default.createDirectory(atPath: folder.path + "/disk", withIntermediateDirectories: true)
            let mounted = try run(["mount", "-t", "tmpfs", "-o", "size=\(size),mode=0755", "tmpfs", folder.path + "/disk"])
            guard mounted.status == 0 else { throw FileSystemError("mount", path: folder.path + "/disk", message: mounted.standardError) }
        }

        deinit { _ = try? run(["umount", "-l", folder.path + "/disk"]) }
    }

    /// The Notes stage 2.0.0 -> 3.0.0 that first grows the store until the disk is
    /// full (one transaction: SQLite rolls it back, and its `-wal` keeps the room).
    static let walFiller = """
        #!/bin/sh
        sqlite3 -cmd '.dbconfig no_ckpt_on_close on' "$FIXTUREKIT_STORE" "PRAGMA wal_autocheckpoint = 0; CREATE TABLE junk (x); WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r LIMIT 100000) INSERT INTO junk SELECT randomblob(8000) FROM r;" > /dev/null || exit 5
        """
    /// One that fills the disk with a file of its own beside the store.
    static let fileFiller = """
        #!/bin/sh
        dd if=/dev/zero of="$(dirname "$FIXTUREKIT_STORE")/fill" bs=64k 2>/dev/null || { echo 'cannot write: no space left on device' >&2; exit 5; }
        """

    @Test(.enabled(if: InfrastructureFailureTests.canMountTmpfs, "needs root, to mount a small tmpfs that a stage fills"))
    func aStageThatFillsTheDiskWithTheStoresLogIsNamedAndRestored() throws {
        let disk = try SmallDisk(size: "8m")
        let notes = try NotesCorpus.forUpgrade()
        try notes.writeProgramStage(Self.walFiller)
        let live = disk.path + "/live"
        let store = try NotesCorpus.liveStore(in: live)
        var before = try storeFiles(live)
        before["App.sqlite-shm"] = nil
        let result = fixturekit("upgrade", store, "--config", notes.config)
        // The disk's failure, not the migration's: exit 2, and the store restored all the same.
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError.contains("FAIL  stage 2.0.0 -> 3.0.0\n      migrations/2.0.0-3.0.0.sh exited with status 5: "), "\(result.standardError)")
        #expect(result.standardError.contains("database or disk is full"), "\(result.standardError)")
        #expect(result.standardError.hasSuffix("; the store set was restored from its backup\n"), "\(result.standardError)")
        #expect(result.standardError.contains("fixturekit: upgrade: \(store): stage 2.0.0 -> 3.0.0 could not run for want of the machine (a full disk, an I/O error): migrations/2.0.0-3.0.0.sh exited with status 5"), "\(result.standardError)")
        #expect(try storeFiles(live) == before)
        #expect(!FileManager.default.fileExists(atPath: store + UpgradeMarker.suffix))
    }

    @Test(.enabled(if: InfrastructureFailureTests.canMountTmpfs, "needs root, to mount a small tmpfs that a stage fills"))
    func aStageThatFillsTheDiskWithAFileNamesTheStageAndWhatRestorePendingWillDo() throws {
        let disk = try SmallDisk(size: "8m")
        let notes = try NotesCorpus.forUpgrade()
        try notes.writeProgramStage(Self.fileFiller)
        let live = disk.path + "/live"
        // One file: removing the failed migration's -wal and -shm frees no room.
        let store = try NotesCorpus.liveStore(in: live, mode: .rollback)
        let before = try storeFiles(live)
        let result = fixturekit("upgrade", store, "--config", notes.config)
        #expect(result.status == 2, "\(result.standardError)")
        let last = result.standardError.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasPrefix("fixturekit: upgrade: \(store): stage 2.0.0 -> 3.0.0 could not run: migrations/2.0.0-3.0.0.sh exited with status 5: cannot write: no space left on device; restoring the backup failed too: "), "\(last)")
        #expect(last.contains("no space left on device"))
        #expect(last.hasSuffix("(hint: the store set may be half-restored; the marker stays: `fixturekit restore --pending \(store)` finishes the restore once that is fixed)"), "\(last)")
        #expect(try UpgradeMarker.read(forStore: store)?.phase == .restoring)
        // Room again: the pending restore puts the original back.
        try FileManager.default.removeItem(atPath: live + "/fill")
        let pending = fixturekit("restore", "--pending", store)
        #expect(pending.status == 0, "\(pending.standardError)")
        #expect(try storeFiles(live) == before)
    }

    // MARK: - migrate

    private func migrate(_ notes: NotesCorpus, tmp: String, _ extra: [String] = []) throws -> RunResult {
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = tmp
        return try ToolProcess(["migrate", "--config", notes.config] + extra, folder: notes.folder.path, environment: environment).wait()
    }

    @Test func aMissingTemporaryFolderExits2BeforeAnyPath() throws {
        let notes = try NotesCorpus()
        let missing = notes.folder.url("no-such-folder")
        let result = try migrate(notes, tmp: missing)
        #expect(result.status == 2)
        #expect(result.standardError == "fixturekit: migrate: temporary folder: \(missing): create temporary folder: no such file or directory (hint: set TMPDIR to a folder with room for a copy of each fixture)\n")
    }

    @Test(.enabled(if: InfrastructureFailureTests.canMountTmpfs, "needs root, to mount a full tmpfs as the temporary folder"))
    func aFullTemporaryFolderExits2BeforeAnyPath() throws {
        let disk = try SmallDisk(size: "32k")
        let notes = try NotesCorpus()
        let result = try migrate(notes, tmp: disk.path)
        #expect(result.status == 2)
        #expect(result.standardError.hasPrefix("fixturekit: migrate: temporary folder: \(disk.path): "), "\(result.standardError)")
        #expect(result.standardError.hasSuffix(": no space left on device (hint: set TMPDIR to a folder with room for a copy of each fixture)\n"), "\(result.standardError)")
    }

    @Test(.enabled(if: InfrastructureFailureTests.canMountTmpfs, "needs root, to mount a small tmpfs that a stage fills"))
    func aTemporaryFolderThatFillsUpDuringTheMatrixExits2() throws {
        let disk = try SmallDisk(size: "3m")
        let notes = try NotesCorpus()
        try notes.writeProgramStage(Self.fileFiller)
        let junit = notes.folder.url("migrate.xml")
        let result = try migrate(notes, tmp: disk.path, ["--from", "2.0.0", "--junit", junit])
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError.contains("ERROR  2.0.0 -> 3.0.0  1 stage, "), "\(result.standardError)")
        #expect(result.standardError.hasSuffix("migrate: 0 of 1 passed, 1 could not run\n"), "\(result.standardError)")
        let xml = String(decoding: try Data(contentsOf: URL(fileURLWithPath: junit)), as: UTF8.self)
        #expect(xml.contains("failures=\"0\" errors=\"1\""), "\(xml)")
        // Its output could not be kept either: the folder it goes to is full.
        #expect(xml.contains("<error message=\"migrations/2.0.0-3.0.0.sh exited with status 5\">"))
    }

    @Test func reportsThatCannotBeWrittenExit2BeforeTheMatrixRuns() throws {
        let notes = try NotesCorpus()
        let junit = notes.folder.url("missing-folder/migrate.xml")
        let result = fixturekit("migrate", "--config", notes.config, "--junit", junit)
        #expect(result.status == 2)
        #expect(result.standardError == "fixturekit: write JUnit report: open: \(junit).tmp: no such file or directory (hint: nothing was run)\n")

        // stdout closed, or on a full disk.
        let closed = try run(["sh", "-c", "exec \"$0\" migrate --config \"$1\" --json >&-", toolExecutable, notes.config])
        #expect(closed.status == 2)
        #expect(closed.standardError == "fixturekit: write JSON report: stdout: not open (hint: nothing was run)\n")
        let full = try run(["sh", "-c", "exec \"$0\" migrate --config \"$1\" --json > /dev/full", toolExecutable, notes.config])
        #expect(full.status == 2)
        #expect(full.standardError.hasSuffix("fixturekit: write JSON report: stdout: no space left on device\n"), "\(full.standardError)")
    }
}
