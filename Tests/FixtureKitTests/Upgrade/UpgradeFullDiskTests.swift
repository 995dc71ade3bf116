import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitSystem
@testable import FixtureKitTestSupport

/// `upgrade` on a disk that fills up at each of its phases: the backup, the
/// stages, the checks, the value comparison, the restore, the end. Every one
/// exits 2 (the machine's failure is never a failed check), says in its one
/// line whether the store was restored, and leaves the store as it says.
@Suite struct UpgradeFullDiskTests {
    /// Where the disk fills up, and what is said then.
    struct Phase: Sendable, CustomTestStringConvertible {
        var name: String
        /// The disk gets room again when the restore starts.
        var roomForTheRestore = true
        /// A stage that fails on its own (the restore needs a failure).
        var failingStage = false
        var noDataDiff = false
        /// A rollback-journal store: no -wal whose removal would make room for the restore.
        var rollback = false
        /// The store afterwards: the original, or migrated.
        var migrated = false
        /// What the last line of stderr says.
        var line: @Sendable (String) -> String
        var testDescription: String { name + (roomForTheRestore ? "" : ", no room for the restore") }
    }

    static let restored = "; the store set was restored from its backup"

    static let phases: [Phase] = [
        Phase(name: "backup", line: { "fixturekit: upgrade: backup before migrate: " + ($0.isEmpty ? "" : "") }),
        Phase(name: "stages", line: { "fixturekit: upgrade: \($0): stage 1.0.0 -> 2.0.0 could not run for want of the machine (a full disk, an I/O error): SQLite error 13: database or disk is full" + restored }),
        Phase(name: "checks", line: { "fixturekit: upgrade: \($0): data preserved could not run for want of the machine (a full disk, an I/O error): values could not be compared: " }),
        Phase(name: "values", line: { "fixturekit: upgrade: \($0): data preserved could not run for want of the machine (a full disk, an I/O error): values could not be compared: " }),
        Phase(name: "values", roomForTheRestore: false, line: { "fixturekit: upgrade: \($0): data preserved could not run: values could not be compared: " }),
        Phase(name: "restore", roomForTheRestore: false, failingStage: true, rollback: true, line: { "fixturekit: upgrade: \($0): stage 2.0.0 -> 3.0.0 failed: migrations/2.0.0-3.0.0.sh exited with status 3: cannot migrate; restoring the backup failed too: " }),
        Phase(name: "finish", noDataDiff: true, migrated: true, line: { "fixturekit: upgrade: \($0): the migration passed every check, but the marker could not say so: " }),
    ]

    /// Fills the file system holding `folder` to its last byte with `folder/fill`.
    static func fill(_ folder: String) {
        let fd = open(folder + "/fill", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let block = [UInt8](repeating: 0, count: 1 << 16)
        var size = block.count
        while size > 0 {
            let written = block.withUnsafeBytes { write(fd, $0.baseAddress, size) }
            if written <= 0 { size /= 2 }
        }
    }

    @Test(.enabled(if: InfrastructureFailureTests.canMountTmpfs, "needs root, to mount a small tmpfs that fills up at each phase"), arguments: phases)
    func aFullDiskAtEachPhaseExits2AndSaysWhetherTheStoreWasRestored(phase: Phase) throws {
        let disk = try InfrastructureFailureTests.SmallDisk(size: "16m")
        let notes = try NotesCorpus.forUpgrade()
        if phase.failingStage {
            try notes.writeProgramStage("#!/bin/sh\necho 'cannot migrate' >&2\nexit 3\n")
        }
        let live = disk.path + "/live"
        let store = try NotesCorpus.liveStore(in: live, mode: phase.rollback ? .rollback : .wal)
        var before = try storeFiles(live)
        before["App.sqlite-shm"] = nil
        FaultInjection.at(.phase(phase.name), of: store) { Self.fill(live) }
        if phase.roomForTheRestore, phase.name != "backup", phase.name != "finish" {
            FaultInjection.at(.phase("restore"), of: store) { try? FileManager.default.removeItem(atPath: live + "/fill") }
        }
        let result = fixturekit(["upgrade", store, "--config", notes.config] + (phase.noDataDiff ? ["--no-data-diff"] : []))
        // What the run did not reach fills nothing later.
        for name in ["backup", "stages", "checks", "values", "restore", "finish"] { FaultInjection.at(.phase(name), of: store) {} }
        try? FileManager.default.removeItem(atPath: live + "/fill")
        #expect(result.status == 2, "\(phase): \(result.standardError)")
        let last = result.standardError.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasPrefix(phase.line(store)), "\(phase): \(last)")
        let restored = phase.roomForTheRestore && !phase.migrated && phase.name != "backup"
        #expect(last.hasSuffix(Self.restored) == restored, "\(phase): \(last)")
        if phase.name == "backup" {
            #expect(last.contains("no space left on device") && last.hasSuffix("(hint: nothing was changed)"), "\(last)")
        }
        if !restored && phase.name != "backup" {
            // Not restored: the marker stays, and says what the next run does.
            #expect(try UpgradeMarker.read(forStore: store) != nil, "\(phase)")
            #expect(last.contains("`fixturekit restore --pending \(store)`"), "\(last)")
            let pending = fixturekit("restore", "--pending", store)
            #expect(pending.status == 0, "\(phase): \(pending.standardError)")
        }
        #expect(try UpgradeMarker.read(forStore: store) == nil, "\(phase)")
        var after = try storeFiles(live)
        after["App.sqlite-shm"] = nil
        if phase.migrated {
            #expect(try contents(ofStoreAt: store).hasPrefix("user_version 3\n"), "\(phase)")
        } else {
            #expect(after == before, "\(phase)")
        }
    }
}
