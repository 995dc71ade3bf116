import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// `kill -9` at random moments of an upgrade: the next run always leaves either
/// the original store or the fully migrated one, and never a damaged one.
///
/// 10 kills of a passing upgrade and 4 of a failing one by default (a few
/// seconds on two cores); `FIXTUREKIT_TORTURE=N` asks for N and 2N/5
/// (`make torture` runs 500 and 200).
@Suite(.serialized) struct UpgradeKillTests {
    /// The kills of one run of the suite.
    static var kills: Int {
        ProcessInfo.processInfo.environment["FIXTUREKIT_TORTURE"].flatMap { Int($0) }.map { max($0, 1) } ?? 10
    }

    /// The moments are drawn from this seed: the same ones every run, relative
    /// to how long an upgrade takes on the machine.
    static let seed: UInt64 = 0x5EED_0F_F1C7

    /// Kills land up to a little after a whole upgrade would have ended.
    static let spread = 1.2
    /// Whole upgrades timed before the kills; the median counts.
    static let timingRuns = 3

    @Test func killedAtAnyMomentTheNextRunLeavesTheOriginalOrTheMigratedStore() throws {
        let notes = try NotesCorpus.forUpgrade()
        try killLoop(notes, kills: Self.kills, migrationPasses: true)
    }

    /// The same with a migration that fails its last check: every run restores
    /// the backup, and kills land in the restore too.
    @Test func killedDuringAFailingUpgradeTheNextRunLeavesTheOriginalStore() throws {
        let notes = try NotesCorpus.forUpgrade()
        // The program stage keeps its commits in the -wal: the restore has a
        // failed migration's log to remove.
        try notes.writeProgramStage(NotesCorpus.stage2to3.replacingOccurrences(
            of: "sqlite3 \"$FIXTUREKIT_STORE\"", with: "sqlite3 -cmd '.dbconfig no_ckpt_on_close on' \"$FIXTUREKIT_STORE\""))
        try notes.writeConfig { configuration in
            configuration["userVersions"] = NotesCorpus.userVersions
            configuration["checks"] = [["name": "never holds", "sql": "SELECT count(*) FROM notes", "expect": -1]]
        }
        try killLoop(notes, kills: max(Self.kills * 2 / 5, 1), migrationPasses: false)
    }

    /// Kills `kills` upgrades of a WAL store with uncheckpointed commits at
    /// moments drawn from ``seed``, and checks what the next run leaves.
    private func killLoop(_ notes: NotesCorpus, kills: Int, migrationPasses: Bool) throws {
        let original = notes.folder.url("original")
        try NotesCorpus.liveStore(in: original, notes: 200)
        let originalContents = try contents(ofStoreAt: original + "/App.sqlite")
        let temporary = notes.folder.url("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        // What a killed run leaves in its temporary folder goes away with the test's.
        environment["TMPDIR"] = temporary
        let live = notes.folder.url("live")
        let store = live + "/App.sqlite"
        let backups = notes.folder.url("backups")
        let upgrade = [toolExecutable, "upgrade", store, "--config", notes.config, "--backups", backups, "--json"]

        // Whole upgrades, started as the victims are and timed (the median of a
        // few: the machine is shared): how long one takes, and when its marker appears.
        var timings: [(duration: Duration, marker: Duration)] = []
        for _ in 0..<Self.timingRuns {
            try copyStoreSet(from: original, to: live)
            timings.append(try timedRun(upgrade, environment: environment, marker: store + UpgradeMarker.suffix, expecting: migrationPasses ? 0 : 1))
        }
        let duration = timings.map(\.duration).sorted()[Self.timingRuns / 2]
        let markerAppears = timings.map(\.marker).sorted()[Self.timingRuns / 2]
        // A passing migration is killed anywhere in the run; a failing one after
        // its marker appears, where the stages, the checks and the restore are.
        let from = migrationPasses ? .zero : markerAppears
        let migratedContents = try contents(ofStoreAt: store)
        #expect((migratedContents != originalContents) == migrationPasses)

        var generator = SplitMix64(seed: Self.seed)
        var outcomes: [String: Int] = [:]
        var finishedBeforeTheKill = 0
        var phases: [String: Int] = [:]
        for kill in 0..<kills {
            try copyStoreSet(from: original, to: live)
            let delay = from + (duration * Self.spread - from) * Double.random(in: 0..<1, using: &generator)
            let victim = try launch(upgrade, environment: environment)
            Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
            Glibc.kill(victim.processIdentifier, SIGKILL)
            victim.waitUntilExit()
            if victim.terminationReason == .exit { finishedBeforeTheKill += 1 }
            let context = "kill \(kill) after \(delay)"

            // The main file is always there; without a marker, the set is already
            // whole; with one, its backup is there to bring the set back.
            #expect(FileManager.default.fileExists(atPath: store), "\(context)")
            if let marker = try UpgradeMarker.read(forStore: store) {
                phases[marker.phase.rawValue, default: 0] += 1
                #expect(FileManager.default.fileExists(atPath: marker.backup), "\(context): the marker's backup is missing")
            } else {
                let now = try contents(ofStoreAt: store)
                #expect(now == originalContents || now == migratedContents, "\(context): no marker, and the store is neither version")
                phases[victim.terminationReason == .exit ? "after the end" : "outside the marker", default: 0] += 1
            }

            // The next run: every other time `restore --pending` alone, else `upgrade`
            // (which finishes the pending job, then upgrades).
            let outcome: String
            if kill % 2 == 0 {
                let next = try run([toolExecutable, "restore", "--pending", store], environment: environment)
                #expect(next.status == 0, "\(context): \(next.standardError)")
                let now = try contents(ofStoreAt: store)
                #expect(now == originalContents || now == migratedContents, "\(context): \(next.standardError)")
                outcome = now == originalContents ? "original" : "migrated"
            } else {
                let next = try run(upgrade, environment: environment)
                #expect(next.status == (migrationPasses ? 0 : 1), "\(context): \(next.standardError)")
                let report = try? JSONDecoder().decode(UpgradeResult.self, from: Data(next.standardOutput.utf8))
                switch (report?.recovery?.outcome, report?.outcome) {
                case (.confirmed?, _), (nil, .current?): outcome = "migrated"
                default: outcome = "original"
                }
                #expect(try contents(ofStoreAt: store) == migratedContents, "\(context): \(next.standardError)")
                // A finished upgrade keeps the last N backups (`restore --pending` leaves them be).
                #expect(StoreBackup.backups(of: "App.sqlite", in: backups).count <= StoreBackup.defaultKeep, "\(context)")
            }
            outcomes[outcome, default: 0] += 1
            #expect(try integrity(ofStoreAt: store) == "ok", "\(context)")
            #expect(!FileManager.default.fileExists(atPath: store + UpgradeMarker.suffix), "\(context)")
            #expect(!FileManager.default.fileExists(atPath: StoreRestore.extractionFolder(forStore: store)), "\(context)")
        }
        #expect(migrationPasses || outcomes["migrated"] == nil)
        print("""
            UpgradeKillTests (\(migrationPasses ? "passing" : "failing") migration): \(kills) kills from \(from) to \(duration) x \(Self.spread) \
            (seed \(String(Self.seed, radix: 16))): the next run left \(outcomes["original"] ?? 0) original and \
            \(outcomes["migrated"] ?? 0) migrated stores; kills landed \(phases.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))
            """)
    }

    /// Runs an upgrade to its end: how long it took, and when its marker appeared.
    private func timedRun(_ command: [String], environment: [String: String], marker: String, expecting status: Int32) throws -> (duration: Duration, marker: Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        let process = try launch(command, environment: environment)
        var appeared: Duration?
        while process.isRunning {
            if appeared == nil, FileManager.default.fileExists(atPath: marker) { appeared = clock.now - start }
            usleep(Self.pollInterval)
        }
        process.waitUntilExit()
        let duration = clock.now - start
        #expect(process.terminationStatus == status)
        return (duration, appeared ?? .zero)
    }

    /// How often the timing runs look for the marker, in microseconds.
    static let pollInterval: useconds_t = 500

    /// Starts the tool, its output discarded.
    private func launch(_ command: [String], environment: [String: String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Copies a store set's files as they are, never through SQLite; what was in
    /// `destination` goes first.
    private func copyStoreSet(from source: String, to destination: String) throws {
        try? FileManager.default.removeItem(atPath: destination)
        try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: source) where !name.hasPrefix(".") {
            try FileManager.default.copyItem(atPath: source + "/" + name, toPath: destination + "/" + name)
        }
    }
}

/// A small, fast generator with a seed (Vigna's SplitMix64): the same numbers on every machine.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
