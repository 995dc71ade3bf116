import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// Every process a stage starts ends with the stage, in `upgrade` and in
/// `migrate`: one that detaches (`setsid`, its descriptors closed), one that
/// never ends (the stage's timeout), one that ignores SIGTERM.
@Suite struct StageProcessTests {
    /// The Notes stage 2.0.0 -> 3.0.0, then a writer that double-forks away from
    /// the stage (`setsid`, every descriptor closed) and keeps writing to the
    /// store; each of its processes writes its pid into `pids`.
    static func stageLeavingAWriter(pids: String) -> String {
        NotesCorpus.stage2to3 + """

            ( setsid sh -c 'exec 0</dev/null 1>/dev/null 2>&1
              echo $$ >> "$1"
              while :; do
                sqlite3 "$FIXTUREKIT_STORE" "CREATE TABLE IF NOT EXISTS junk (x); INSERT INTO junk VALUES (1);" 2>/dev/null
                sleep 0.05
              done' writer '\(pids)' & )
            sleep 0.3
            """
    }

    @Test(arguments: JournalMode.allCases)
    func aDetachedWriterEndsWithItsUpgradeStage(mode: JournalMode) throws {
        let notes = try NotesCorpus.forUpgrade()
        let pids = notes.folder.url("pids")
        try notes.writeProgramStage(Self.stageLeavingAWriter(pids: pids))
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live, mode: mode)
        let original = try contents(ofStoreAt: store)
        let result = fixturekit("upgrade", store, "--config", notes.config)
        let atReturn = try storeFiles(live)
        // The writer was ended before the checks: it never writes again.
        #expect(!recordedPids(pids).isEmpty)
        #expect(recordedPids(pids).allSatisfy { !isAlive($0) }, "\(recordedPids(pids))")
        #expect(result.standardError.contains("PASS  stage 2.0.0 -> 3.0.0\n      stage left "), "\(result.standardError)")
        #expect(result.standardError.contains(" running: killed\n"))
        Thread.sleep(forTimeInterval: 3)
        #expect(try storeFiles(live) == atReturn)
        // What it reported: its junk made the schema check fail, and the original came back.
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains("FAIL  schema matches 3.0.0\n"))
        #expect(try contents(ofStoreAt: store) == original)
        #expect(try integrity(ofStoreAt: store) == "ok")
    }

    @Test func aDetachedWriterEndsWithItsMigrateStage() throws {
        let notes = try NotesCorpus()
        let pids = notes.folder.url("pids")
        try notes.writeProgramStage(Self.stageLeavingAWriter(pids: pids))
        let temporary = notes.folder.url("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let result = try ToolProcess(["migrate", "--config", notes.config, "--from", "2.0.0"], folder: notes.folder.path, environment: environment(tmp: temporary)).wait()
        #expect(recordedPids(pids).count == 1)
        #expect(recordedPids(pids).allSatisfy { !isAlive($0) })
        #expect(result.standardError.contains("      stage 2.0.0 -> 3.0.0: stage left "), "\(result.standardError)")
        // Its copy is gone with it; nothing writes there any more.
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary) == [])
    }

    /// A stage that never ends, and one that ignores SIGTERM: ended at their
    /// timeout (SIGKILL after the grace for the second), with every process.
    static let endless: [String: String] = [
        "sleeps": "#!/bin/sh\necho $$ >> \"$PIDS\"\nsleep 1000 & echo $! >> \"$PIDS\"\nwait\n",
        "ignores SIGTERM": "#!/bin/sh\ntrap '' TERM\necho $$ >> \"$PIDS\"\nwhile :; do sleep 0.1; done\n",
    ]

    @Test(arguments: ["sleeps", "ignores SIGTERM"])
    func anEndlessUpgradeStageTimesOutAndLeavesNoProcess(kind: String) throws {
        let notes = try NotesCorpus.forUpgrade()
        let pids = notes.folder.url("pids")
        try notes.writeProgramStage(Self.endless[kind]!.replacingOccurrences(of: "$PIDS", with: pids))
        try notes.writeConfig { configuration in
            configuration["userVersions"] = NotesCorpus.userVersions
            configuration["stages"] = [
                ["from": "1.0.0", "to": "2.0.0", "sql": "migrations/1.0.0-2.0.0.sql"],
                ["from": "2.0.0", "to": "3.0.0", "exec": ["migrations/2.0.0-3.0.0.sh"], "timeout": 2],
            ]
        }
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live)
        var before = try storeFiles(live)
        before["App.sqlite-shm"] = nil
        let run = try ToolProcess(["upgrade", store, "--config", notes.config], folder: notes.folder.path)
        let took = try Self.secondsUntilEnded(pids: pids, while: run)
        let result = run.wait()
        #expect(result.status == 1)
        #expect(result.standardError.contains("FAIL  stage 2.0.0 -> 3.0.0\n      migrations/2.0.0-3.0.0.sh timed out after 2 s\n"), "\(result.standardError)")
        #expect(took < Self.limit(kind), "the stage's processes took \(took) s to end")
        #expect(!recordedPids(pids).isEmpty)
        #expect(recordedPids(pids).allSatisfy { !isAlive($0) })
        #expect(try storeFiles(live) == before)
    }

    @Test(arguments: ["sleeps", "ignores SIGTERM"])
    func anEndlessMigrateStageTimesOutAndLeavesNoProcess(kind: String) throws {
        let notes = try NotesCorpus()
        let pids = notes.folder.url("pids")
        try notes.writeProgramStage(Self.endless[kind]!.replacingOccurrences(of: "$PIDS", with: pids))
        try notes.writeConfig { configuration in
            configuration["stages"] = [
                ["from": "1.0.0", "to": "2.0.0", "sql": "migrations/1.0.0-2.0.0.sql"],
                ["from": "2.0.0", "to": "3.0.0", "exec": ["migrations/2.0.0-3.0.0.sh"], "timeout": 2],
            ]
        }
        let run = try ToolProcess(["migrate", "--config", notes.config, "--from", "2.0.0"], folder: notes.folder.path)
        let took = try Self.secondsUntilEnded(pids: pids, while: run)
        let result = run.wait()
        #expect(result.status == 1)
        #expect(result.standardError.contains("      stage 2.0.0 -> 3.0.0: migrations/2.0.0-3.0.0.sh timed out after 2 s\n"), "\(result.standardError)")
        #expect(took < Self.limit(kind), "the stage's processes took \(took) s to end")
        #expect(recordedPids(pids).allSatisfy { !isAlive($0) })
    }

    /// Within 5 s of its start, the stage with "timeout": 2 has failed and its
    /// processes are gone; one that ignores SIGTERM has 2 s of grace more.
    static func limit(_ kind: String) -> Double { kind == "sleeps" ? 5 : 7 }

    /// How long after the stage's first process started all of them had ended,
    /// watched while `run` runs.
    static func secondsUntilEnded(pids: String, while run: ToolProcess) throws -> Double {
        while recordedPids(pids).isEmpty {
            guard run.process.isRunning else { return .infinity }
            usleep(5_000)
        }
        let start = ContinuousClock.now
        while recordedPids(pids).contains(where: isAlive) {
            guard seconds(since: start) < 60 else { break }
            usleep(20_000)
        }
        return seconds(since: start)
    }

    /// An SQL stage that never ends is interrupted at its timeout, in both commands.
    @Test func anEndlessSQLStageTimesOut() throws {
        let notes = try NotesCorpus.forUpgrade()
        try notes.folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", NotesCorpus.stage1to2 + """

            WITH RECURSIVE forever(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM forever) SELECT count(*) FROM forever;
            """)
        try notes.writeConfig { configuration in
            configuration["userVersions"] = NotesCorpus.userVersions
            configuration["stages"] = [
                ["from": "1.0.0", "to": "2.0.0", "sql": "migrations/1.0.0-2.0.0.sql", "timeout": 1.5],
                ["from": "2.0.0", "to": "3.0.0", "exec": ["migrations/2.0.0-3.0.0.sh"]],
            ]
        }
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live)
        var before = try storeFiles(live)
        before["App.sqlite-shm"] = nil
        let start = ContinuousClock.now
        let upgrade = fixturekit("upgrade", store, "--config", notes.config)
        // The stage's 1.5 s and the backup and the restore, on a shared machine.
        #expect(seconds(since: start) < 15)
        #expect(upgrade.status == 1)
        #expect(upgrade.standardError.contains("FAIL  stage 1.0.0 -> 2.0.0\n      timed out after 1.5 s\n      statement: WITH RECURSIVE forever"), "\(upgrade.standardError)")
        #expect(try storeFiles(live) == before)

        let migrate = fixturekit("migrate", "--config", notes.config, "--from", "1.0.0")
        #expect(migrate.status == 1)
        #expect(migrate.standardError.contains("      stage 1.0.0 -> 2.0.0: timed out after 1.5 s\n"), "\(migrate.standardError)")
    }

    @Test func aTimeoutMustBeAPositiveNumberOfSeconds() throws {
        let notes = try NotesCorpus()
        for (value, shown) in [(0.0, "0.0"), (-3.0, "-3.0"), (31 * 24 * 3600.0, "2678400.0")] {
            try notes.writeConfig { configuration in
                configuration["stages"] = [["from": "1.0.0", "to": "2.0.0", "sql": "migrations/1.0.0-2.0.0.sql", "timeout": value]]
            }
            let result = fixturekit("migrate", "--config", notes.config)
            #expect(result.status == 2)
            #expect(result.standardError == "fixturekit: read configuration: \(notes.config): stages[0] has timeout \(shown): it must be a number of seconds above 0, at most 2592000\n")
        }
    }

    private func environment(tmp: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = tmp
        return environment
    }
}
