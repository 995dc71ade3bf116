import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// SIGTERM and SIGINT sent to fixturekit while a stage runs: the stage's
/// processes end, `upgrade` restores the backup before it exits, `migrate`
/// removes its temporary copies, and fixturekit ends by the signal.
///
/// 4 SIGTERMs at moments drawn from a seed by default; `FIXTUREKIT_TORTURE_RUNS=N`
/// asks for N (`make torture`).
@Suite(.serialized) struct UpgradeSignalTests {
    static let seed: UInt64 = 0x51_6E_A1_7E

    /// The Notes stage 2.0.0 -> 3.0.0 in two commits with pauses around them, so
    /// that a signal can land before, between or after them; every process it
    /// starts writes its pid into PIDS.
    static func slowStage(pids: String) -> String {
        """
        #!/bin/sh
        set -eu
        echo $$ >> '\(pids)'
        pause() { sleep "$1" & echo $! >> '\(pids)'; wait $!; }
        step() { sqlite3 "$FIXTUREKIT_STORE" "$1" & echo $! >> '\(pids)'; wait $!; }
        pause 0.3
        step "BEGIN; CREATE TABLE notes_new (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, title TEXT, body TEXT, created_at INTEGER, folder_id INTEGER REFERENCES folders(id)); INSERT INTO notes_new SELECT id, uuid, title, body, CAST(strftime('%s', created_at) AS INTEGER), folder_id FROM notes; COMMIT;"
        pause 0.3
        step "BEGIN; DROP TABLE notes; ALTER TABLE notes_new RENAME TO notes; CREATE INDEX notes_by_folder ON notes(folder_id); DROP TABLE drafts; PRAGMA user_version = 3; COMMIT;"
        pause 0.2
        """
    }

    @Test func sigtermAtRandomMomentsOfAStageLeavesTheOriginalOrTheMigratedStore() throws {
        let notes = try NotesCorpus.forUpgrade()
        let pids = notes.folder.url("pids")
        try notes.writeProgramStage(Self.slowStage(pids: pids))
        let original = notes.folder.url("original")
        try NotesCorpus.liveStore(in: original, notes: 200)
        let originalContents = try contents(ofStoreAt: original + "/App.sqlite")
        let live = notes.folder.url("live")
        let store = live + "/App.sqlite"
        try copyFiles(from: original, to: live)
        #expect(fixturekit("upgrade", store, "--config", notes.config).status == 0)
        let migratedContents = try contents(ofStoreAt: store)

        var generator = SplitMix64(seed: Self.seed)
        var outcomes: [String: Int] = [:]
        let kills = tortureRuns(4)
        for kill in 0..<kills {
            try copyFiles(from: original, to: live)
            try? FileManager.default.removeItem(atPath: pids)
            // Within the stage: its pauses take 0.8 s, its two commits a little more.
            let delay = Double.random(in: 0..<0.9, using: &generator)
            let context = "kill \(kill) at \(String(format: "%.3f", delay)) s into the stage"
            let run = try ToolProcess(["upgrade", store, "--config", notes.config], folder: notes.folder.path)
            while recordedPids(pids).isEmpty, run.process.isRunning { usleep(2_000) }
            Thread.sleep(forTimeInterval: delay)
            Glibc.kill(run.pid, SIGTERM)
            let result = run.wait()

            #expect(recordedPids(pids).allSatisfy { !isAlive($0) }, "\(context): a stage process is alive")
            let now = try contents(ofStoreAt: store)
            #expect(now == originalContents || now == migratedContents, "\(context): the store is neither version\n\(result.standardError)")
            #expect(try integrity(ofStoreAt: store) == "ok", "\(context)")
            for leftover in [store + UpgradeMarker.suffix, StoreLock.path(forStore: store), StoreRestore.extractionFolder(forStore: store), Upgrade.comparisonFolder(forStore: store)] {
                #expect(!FileManager.default.fileExists(atPath: leftover), "\(context): \(leftover) is left")
            }
            switch result.status {
            case 128 + SIGTERM:
                #expect(now == originalContents, "\(context)")
                #expect(result.standardError.hasSuffix("fixturekit: upgrade: \(store): interrupted: fixturekit received SIGTERM; the store set was restored from its backup\n"), "\(context): \(result.standardError)")
                outcomes["restored", default: 0] += 1
            case 0:
                // The signal came once the migration had passed its checks.
                #expect(now == migratedContents, "\(context)")
                outcomes["migrated", default: 0] += 1
            default:
                Issue.record("\(context): exit status \(result.status): \(result.standardError)")
            }
        }
        print("UpgradeSignalTests: \(kills) SIGTERMs (seed \(String(Self.seed, radix: 16))): \(outcomes.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))")
    }

    @Test func sigintDuringAnUpgradeStageRestoresAndEndsByTheSignal() throws {
        let notes = try NotesCorpus.forUpgrade()
        let pids = notes.folder.url("pids")
        try notes.writeProgramStage(Self.slowStage(pids: pids))
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live)
        var before = try storeFiles(live)
        before["App.sqlite-shm"] = nil
        let run = try ToolProcess(["upgrade", store, "--config", notes.config, "--json"], folder: notes.folder.path)
        while recordedPids(pids).count < 2, run.process.isRunning { usleep(2_000) }
        Glibc.kill(run.pid, SIGINT)
        let result = run.wait()
        #expect(result.status == 128 + SIGINT, "\(result.standardError)")
        #expect(result.standardError.contains("FAIL  stage 2.0.0 -> 3.0.0\n      migrations/2.0.0-3.0.0.sh was interrupted: fixturekit received SIGINT\n"), "\(result.standardError)")
        let report = try JSONDecoder().decode(UpgradeResult.self, from: Data(result.standardOutput.utf8))
        #expect(report.interrupted == "SIGINT")
        #expect(report.outcome == .restored)
        #expect(recordedPids(pids).allSatisfy { !isAlive($0) })
        #expect(try storeFiles(live) == before)
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalDuringMigrateEndsTheStageAndRemovesTheCopies(signal: Int32) throws {
        let notes = try NotesCorpus()
        let pids = notes.folder.url("pids")
        try notes.writeProgramStage(Self.slowStage(pids: pids))
        let temporary = notes.folder.url("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temporary
        let junit = notes.folder.url("migrate.xml")
        let run = try ToolProcess(["migrate", "--config", notes.config, "--jobs", "1", "--junit", junit], folder: notes.folder.path, environment: environment)
        while recordedPids(pids).count < 2, run.process.isRunning { usleep(2_000) }
        Glibc.kill(run.pid, signal)
        let result = run.wait()
        #expect(result.status == 128 + signal, "\(result.standardError)")
        let name = signal == SIGTERM ? "SIGTERM" : "SIGINT"
        #expect(result.standardError.contains(": migrations/2.0.0-3.0.0.sh was interrupted: fixturekit received \(name)\n"), "\(result.standardError)")
        #expect(result.standardError.contains("fixturekit: migrate: interrupted: fixturekit received \(name); "), "\(result.standardError)")
        #expect(recordedPids(pids).allSatisfy { !isAlive($0) })
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary) == [])
        #expect(!FileManager.default.fileExists(atPath: junit))
    }

    private func copyFiles(from source: String, to destination: String) throws {
        try? FileManager.default.removeItem(atPath: destination)
        try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: source) where !name.hasPrefix(".") {
            try FileManager.default.copyItem(atPath: source + "/" + name, toPath: destination + "/" + name)
        }
    }
}
