import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// One `upgrade`, `backup` or `restore` of a store at a time: two upgrades of one
/// store started a moment apart, again and again; each of the other commands
/// while an upgrade runs.
///
/// 4 pairs by default; `FIXTUREKIT_TORTURE_RUNS=N` asks for N (`make torture`).
@Suite(.serialized) struct UpgradeConcurrencyTests {
    /// The second upgrade starts up to this long after the first, which takes
    /// over two seconds (its program stage sleeps first): longer than the start
    /// offset plus the half second a run tries the lock for before it gives up.
    static let maxOffset = 0.5
    /// Pairs run at once, each on its own store.
    static let parallel = 4
    static let seed: UInt64 = 0xC0_4C_0A_2E

    /// The Notes stage 2.0.0 -> 3.0.0, after a pause: an upgrade that lasts.
    static let slowStage = NotesCorpus.stage2to3.replacingOccurrences(of: "set -eu\n", with: "set -eu\nsleep 2\n")

    @Test func twoUpgradesOfOneStoreStartedAMomentApart() throws {
        let notes = try NotesCorpus.forUpgrade()
        try notes.writeProgramStage(Self.slowStage)
        let original = notes.folder.url("original")
        try NotesCorpus.liveStore(in: original, notes: 200)
        // What one upgrade alone makes of the store.
        let reference = notes.folder.url("reference")
        try copyFiles(from: original, to: reference)
        #expect(fixturekit("upgrade", reference + "/App.sqlite", "--config", notes.config).status == 0)
        let migrated = try contents(ofStoreAt: reference + "/App.sqlite")

        let pairs = tortureRuns(4)
        var generator = SplitMix64(seed: Self.seed)
        let offsets = (0..<pairs).map { _ in Double.random(in: 0..<Self.maxOffset, using: &generator) }
        let problems = Problems()
        let config = notes.config, folder = notes.folder.path
        DispatchQueue.concurrentPerform(iterations: Self.parallel) { worker in
            for pair in stride(from: worker, to: pairs, by: Self.parallel) {
                do {
                    try runPair(pair, offset: offsets[pair], config: config, folder: folder, original: original, migrated: migrated, problems: problems)
                } catch {
                    problems.add("pair \(pair): \(error)")
                }
            }
        }
        for problem in problems.all { Issue.record(Comment(rawValue: problem)) }
        print("UpgradeConcurrencyTests: \(pairs) pairs, second start 0 to \(Self.maxOffset) s later (seed \(String(Self.seed, radix: 16))): \(problems.all.count) problems")
    }

    private func runPair(_ pair: Int, offset: Double, config: String, folder: String, original: String, migrated: String, problems: Problems) throws {
        let live = folder + "/live-\(pair)"
        try copyFiles(from: original, to: live)
        let store = live + "/App.sqlite"
        let first = try ToolProcess(["upgrade", store, "--config", config], folder: folder)
        Thread.sleep(forTimeInterval: offset)
        let second = try ToolProcess(["upgrade", store, "--config", config], folder: folder)
        let results = [first.wait(), second.wait()]
        let pids = [first.pid, second.pid]
        let context = "pair \(pair), \(String(format: "%.3f", offset)) s apart"
        guard let winner = results.firstIndex(where: { $0.status == 0 }), results[1 - winner].status == 2 else {
            problems.add("\(context): statuses \(results.map(\.status)): \(results.map(\.standardError))")
            return
        }
        let loser = results[1 - winner]
        if !results[winner].standardError.hasSuffix("upgrade: \(store): upgraded to 3.0.0\n") {
            problems.add("\(context): the winner said \(results[winner].standardError)")
        }
        let expected = "fixturekit: upgrade: \(store): another fixturekit upgrade of \(store) is running (pid \(pids[winner])) (hint: wait for it to finish, then try again)\n"
        if loser.standardError != expected { problems.add("\(context): the other said \(loser.standardError)") }
        if try contents(ofStoreAt: store) != migrated { problems.add("\(context): the store is not the migrated one") }
        if try integrity(ofStoreAt: store) != "ok" { problems.add("\(context): integrity_check fails") }
        for leftover in [store + UpgradeMarker.suffix, StoreLock.path(forStore: store), StoreRestore.extractionFolder(forStore: store)] where FileManager.default.fileExists(atPath: leftover) {
            problems.add("\(context): \(leftover) is left")
        }
    }

    @Test func backupRestoreAndPendingAreTurnedAwayWhileAnUpgradeRuns() throws {
        let notes = try NotesCorpus.forUpgrade()
        try notes.writeProgramStage(Self.slowStage.replacingOccurrences(of: "sleep 2\n", with: "sleep 6\n"))
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live)
        let archive = try JSONDecoder().decode(BackupResult.self, from: Data(fixturekit("backup", store, "--json").standardOutput.utf8)).archive.path
        let upgrade = try ToolProcess(["upgrade", store, "--config", notes.config], folder: notes.folder.path)
        // Its marker is there: it is migrating.
        while !FileManager.default.fileExists(atPath: store + UpgradeMarker.suffix), upgrade.process.isRunning { usleep(10_000) }
        let running = "another fixturekit upgrade of \(store) is running (pid \(upgrade.pid)) (hint: wait for it to finish, then try again)\n"
        let attempts: [(String, [String])] = [
            ("upgrade", ["upgrade", store, "--config", notes.config]),
            ("backup", ["backup", store]),
            ("restore", ["restore", archive, store]),
            ("restore --pending", ["restore", "--pending", store]),
        ]
        for (what, arguments) in attempts {
            let result = fixturekit(arguments)
            #expect(result.status == 2, "\(what)")
            #expect(result.standardError == "fixturekit: \(what): \(store): " + running, "\(what)")
        }
        let result = upgrade.wait()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try contents(ofStoreAt: store).hasPrefix("user_version 3\n"))
        #expect(StoreBackup.backups(of: "App.sqlite", in: live + "/.fixturekit-backups").count == 2)
    }

    private func copyFiles(from source: String, to destination: String) throws {
        try? FileManager.default.removeItem(atPath: destination)
        try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: source) where !name.hasPrefix(".") {
            try FileManager.default.copyItem(atPath: source + "/" + name, toPath: destination + "/" + name)
        }
    }
}

/// Problems found on several threads, reported once they are joined.
final class Problems: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []

    func add(_ problem: String) { lock.withLock { list.append(problem) } }
    var all: [String] { lock.withLock { list } }
}
