import Foundation
import Synchronization
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// Where a path's time goes, and how the matrix is scheduled and shared.
@Suite struct MigrateScheduleTests {
    /// Every check carries its time; a stage that sleeps shows it where it
    /// happened, in --json, the summary, JUnit and --verbose alike.
    @Test func everyPhaseOfEveryPathHasItsTime() throws {
        let notes = try NotesCorpus()
        try notes.writeProgramStage(NotesCorpus.stage2to3.replacingOccurrences(of: "set -eu\n", with: "set -eu\nsleep 0.4\n"))
        let junit = notes.folder.url("report.xml")
        let result = fixturekit("migrate", "--config", notes.config, "--from", "2.0.0", "--json", "--junit", junit, "--verbose")
        #expect(result.status == 0, "\(result.standardError)")
        let report = try JSONDecoder().decode(MigrationReport.self, from: Data(result.standardOutput.utf8))
        let path = try #require(report.paths.first)
        #expect(path.checks.allSatisfy { $0.seconds != nil }, "\(path.checks)")
        let stage = try #require(path.checks.first { $0.name == "stage 2.0.0 -> 3.0.0" }?.seconds)
        #expect(stage >= 0.4 && stage <= path.seconds)
        for check in path.checks where check.name != "stage 2.0.0 -> 3.0.0" && check.name != "integrity_check" {
            #expect(try #require(check.seconds) < 0.4, "\(check.name) took the stage's time")
        }
        #expect(path.checks.first { $0.name == "data preserved" }?.seconds == path.preservationSeconds)

        // The summary: one line of times per path, in the order the checks ran.
        let lines = result.standardError.split(separator: "\n").map(String.init)
        let times = try #require(lines.first { $0.hasPrefix("      time: ") })
        #expect(times.hasPrefix("      time: verify and copy "), "\(times)")
        let names = ["stage 2.0.0 -> 3.0.0 ", "integrity_check ", "foreign_key_check ", "schema ", "data diff ", "checks "]
        let positions = names.map { times.range(of: ", " + $0)?.lowerBound }
        #expect(positions.allSatisfy { $0 != nil } && positions.compactMap { $0 } == positions.compactMap { $0 }.sorted(), "\(times)")
        #expect(times.contains(String(format: "stage 2.0.0 -> 3.0.0 %.2f s", stage)))
        #expect(!times.contains("user_version") && !times.contains("row counts") && !times.contains("no orphan notes"))

        // JUnit: each testcase's time is its check's.
        let xml = String(decoding: try notes.folder.read("report.xml"), as: UTF8.self)
        #expect(xml.contains("name=\"2.0.0 -&gt; 3.0.0: stage 2.0.0 -&gt; 3.0.0\" time=\"\(String(format: "%.3f", stage))\""), "\(xml)")
        #expect(xml.components(separatedBy: "<testcase ").dropFirst().allSatisfy { $0.contains(" time=\"") })

        // --verbose: each phase as it ends, the path's start and end around them.
        let verbose = lines.filter { $0.hasPrefix("migrate: 2.0.0 -> 3.0.0: ") }.map { $0.dropFirst("migrate: 2.0.0 -> 3.0.0: ".count) }
        #expect(verbose.first == "started")
        #expect(verbose.last?.hasPrefix("PASS in ") == true)
        #expect(verbose.contains { $0 == "stage 2.0.0 -> 3.0.0 passed in \(String(format: "%.2f", stage)) s" }, "\(verbose)")
        #expect(Set(verbose.dropFirst().dropLast().map { String($0.prefix { $0 != " " }) }).count >= 6, "\(verbose)")
        #expect(verbose.count == path.checks.count + 2)
    }

    @Test func theJSONSummaryCountsPassedFailedAndSkippedPaths() throws {
        let notes = try NotesCorpus()
        try notes.folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", NotesCorpus.stage1to2 + "\nDELETE FROM notes WHERE id = 1;\n")
        let all = try MigrationRunner.runMatrix(config: notes.config)
        let summary = try #require(all.summary)
        #expect((summary.passed, summary.failed, summary.skipped) == (1, 2, 0))
        #expect(summary.seconds >= all.paths.map(\.seconds).max() ?? 0)
        let from = try #require(try MigrationRunner.runMatrix(config: notes.config, options: .init(from: "2.0.0")).summary)
        #expect((from.passed, from.failed, from.skipped) == (1, 0, 2))
        let shares = try (1...3).map { try #require(try MigrationRunner.runMatrix(config: notes.config, options: .init(shard: ($0, 3))).summary) }
        #expect(shares.map(\.skipped) == [2, 2, 2])
        #expect(shares.map { $0.passed + $0.failed } == [1, 1, 1])
        let json = fixturekit("migrate", "--config", notes.config, "--json").standardOutput
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(Set((object["summary"] as? [String: Any])?.keys.map { $0 } ?? []) == ["passed", "failed", "skipped", "seconds"])
    }

    /// Shares by expected cost: every path in exactly one share, for every
    /// count of shares; no share heavier than another by more than its
    /// heaviest path; the same shares every time.
    @Test(arguments: [1, 2, 3, 4, 7])
    func sharesHoldEveryPathOnceAndBalanceTheirCost(_ count: Int) {
        var generator = SplitMix64(seed: UInt64(count))
        for _ in 0..<50 {
            let costs = (0..<Int(generator.next() % 40)).map { _ in Double(generator.next() % 1000) }
            let shares = (1...count).map { MigrationSchedule.share($0, of: count, costs: costs) }
            #expect(shares.flatMap { $0 }.sorted() == Array(costs.indices))
            #expect(shares.allSatisfy { $0 == $0.sorted() })
            let totals = shares.map { $0.reduce(0) { $0 + costs[$1] } }
            #expect((totals.max() ?? 0) - (totals.min() ?? 0) <= (costs.max() ?? 0))
            #expect((1...count).map { MigrationSchedule.share($0, of: count, costs: costs) } == shares)
        }
        // The most expensive paths start first, the matrix order on a tie.
        #expect(MigrationSchedule.startOrder([1, 5, 5, 2]) == [1, 2, 3, 0])
    }

    /// The runner takes the share the costs give, from the fixtures' sizes.
    @Test func aShareOfTheNotesCorpusIsChosenByCost() throws {
        let notes = try NotesCorpus()
        let configuration = try CorpusConfiguration.load(notes.config)
        let paths = configuration.migrationPaths()
        #expect(paths.map(\.id) == ["1.0.0 -> 2.0.0 -> 3.0.0", "2.0.0 -> 3.0.0", "1.0.0 -> 2.0.0"])
        let sizes = paths.map { MigrationSchedule.fixtureSize($0.source, configuration: configuration) }
        let folder = notes.corpus + "/1.0.0/"
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(sizes[0] == files.reduce(0) { $0 + UInt64((try? FileManager.default.attributesOfItem(atPath: folder + $1)[.size] as? Int) ?? 0) })
        let costs = zip(paths, sizes).map { MigrationSchedule.expectedCost($0, fixtureSize: $1) }
        #expect(costs[0] == Double(sizes[0]) * 4 && costs[1] == Double(sizes[1]) * 3)
        for index in 1...2 {
            let share = try MigrationRunner.runMatrix(config: notes.config, options: .init(shard: (index, 2)))
            #expect(share.paths.map(\.id) == MigrationSchedule.share(index, of: 2, costs: costs).map { paths[$0].id })
            #expect(share.shard == "\(index)/2")
        }
    }

    /// Two paths that start at the same version at the same time verify and
    /// read its fixture once: the second waits for the first.
    @Test func aFixtureIsReadOnceWhateverAsksForItAtOnce() {
        let slot = FixtureSlot()
        let made = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let state = slot.resolve {
                made.wrappingAdd(1, ordering: .relaxed)
                usleep(50_000)
                return MigrationRunner.FixtureState(folder: "made")
            }
            #expect(state.folder == "made")
        }
        #expect(made.load(ordering: .relaxed) == 1)
    }

    /// Each path's integrity check starts one thread fewer than the cores the
    /// paths leave: the path's own thread keeps a core for its data diff, then
    /// takes the check's remaining tasks. Never fewer than one.
    @Test func theIntegrityCheckLeavesThePathItsCore() {
        let workers = [(2, 1), (4, 1), (2, 2), (1, 1), (8, 3), (16, 2), (2, 5)].map { MigrationRunner.integrityWorkers(cores: $0.0, paths: $0.1) }
        #expect(workers == [1, 3, 1, 1, 1, 7, 1])
    }
}
