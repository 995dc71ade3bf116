import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// The size probe: the stages timed on copies grown ×1, ×2, ×4, ×8, their
/// growth exponent fitted on SQLite's count of virtual-machine steps (the wall
/// time is reported beside, never asserted), the time predicted at the declared
/// size against the budget, and the copies refused when the disk lacks room.
@Suite struct SizeProbeTests {
    /// A correlated subquery over an unindexed column: a scan of `notes` per row of `notes`.
    static let quadratic = "UPDATE notes SET title = (SELECT count(*) FROM notes AS other WHERE other.title < notes.title);"
    static let linear = "UPDATE notes SET title = upper(title);"

    /// The exponent each stage line reports by VM steps.
    static func stepExponent(_ probe: CheckResult) throws -> Double {
        let line = try #require(probe.findings?.first { $0.message.hasPrefix("stage 1.0.0 -> 2.0.0: exponent ") }?.message)
        return try #require(Double(line.dropFirst("stage 1.0.0 -> 2.0.0: exponent ".count).prefix { $0 != " " }))
    }

    @Test(arguments: [false, true])
    func quadraticStageFails(wal: Bool) throws {
        let corpus = try FoldersCorpus(wal: wal)
        try corpus.write("stage.sql", Self.quadratic)
        try corpus.writeConfig(stage: ["sql": "stage.sql"])
        let probe = try corpus.probe([.size]).probe(.size)
        #expect(probe.passed == false)
        #expect(probe.error == nil)
        let exponent = try Self.stepExponent(probe)
        #expect(exponent > 1.3)
        #expect(probe.message?.split(separator: "\n").first.map(String.init)
            == "the stages' time grows too fast with their rows: stage 1.0.0 -> 2.0.0 grows as rows^\(MigrationRunner.fixed(exponent)) (by VM steps), above 1.3")
        #expect(probe.findings?.contains { $0.message == "rows at ×8: folders 16, notes 96" } == true)
    }

    @Test(arguments: [false, true])
    func linearStagePasses(wal: Bool) throws {
        let corpus = try FoldersCorpus(wal: wal)
        try corpus.write("stage.sql", Self.linear)
        try corpus.writeConfig(stage: ["sql": "stage.sql"])
        let probe = try corpus.probe([.size]).probe(.size)
        #expect(probe.passed)
        #expect(try Self.stepExponent(probe) <= 1.3)
        #expect(probe.message?.hasPrefix("the stages' time grows with their rows within exponent 1.3\nstage 1.0.0 -> 2.0.0: exponent ") == true)
    }

    /// The exponent is SQLite's step count: the same at every run, whatever the machine's load.
    @Test func stepCountsAreTheSameEachRun() throws {
        let corpus = try FoldersCorpus()
        try corpus.write("stage.sql", Self.quadratic)
        try corpus.writeConfig(stage: ["sql": "stage.sql"])
        func steps() throws -> String {
            let line = try #require(try corpus.probe([.size]).probe(.size).findings?.first?.message)
            return String(line.prefix { $0 != ")" })
        }
        #expect(try steps() == steps())
    }

    /// A time predicted at the declared size beyond the budget fails, naming both.
    @Test func budgetExceededFails() throws {
        let corpus = try FoldersCorpus()
        try corpus.write("stage.sql", Self.linear)
        try corpus.writeConfig(stage: ["sql": "stage.sql"]) { object in
            object["probes"] = ["size": ["rows": ["notes": 12_000_000_000], "budget": "1ms"]]
        }
        let probe = try corpus.probe([.size]).probe(.size)
        #expect(probe.passed == false)
        let lines = probe.message?.split(separator: "\n").map(String.init) ?? []
        #expect(lines.first?.hasPrefix("the stages' time grows too fast with their rows: predicted ") == true)
        #expect(lines.first?.hasSuffix(" at ×1000000000, over the budget of 1ms") == true)
        let prediction = try #require(lines.first { $0.hasPrefix("predicted ") })
        #expect(prediction.contains(" at ×1000000000 (notes: 12000000000 rows, 12 in 1.0.0), "))
        #expect(prediction.contains(" VM steps of SQL; this machine runs "))
        #expect(prediction.hasSuffix(" SQLite VM steps/s; budget 1ms"))
    }

    /// Within the budget: passes, the prediction said all the same.
    @Test func withinBudgetPassesAndSaysThePrediction() throws {
        let corpus = try FoldersCorpus()
        try corpus.write("stage.sql", Self.linear)
        try corpus.writeConfig(stage: ["sql": "stage.sql"]) { object in
            object["probes"] = ["size": ["factor": 2, "budget": "10min"]]
        }
        let probe = try corpus.probe([.size]).probe(.size)
        #expect(probe.passed)
        #expect(probe.message?.hasPrefix("the stages' time grows with their rows within exponent 1.3 and the budget\n") == true)
        #expect(probe.findings?.contains { $0.message.hasPrefix("predicted ") && $0.message.contains(" at ×2 (\"factor\": 2)") && $0.message.hasSuffix("; budget 10min") } == true)
    }

    /// No room for the copies: one line, the probe could not run (exit status 2), no copy made.
    @Test func refusedWhenTheTemporaryFolderLacksSpace() throws {
        let corpus = try FoldersCorpus()
        try corpus.write("stage.sql", Self.linear)
        try corpus.writeConfig(stage: ["sql": "stage.sql"])
        FaultInjection.report(space: 1000, for: corpus.corpus + "/1.0.0")
        let result = try corpus.probe([.size])
        let probe = try result.probe(.size)
        #expect(probe.passed == false)
        #expect(probe.couldNotRun)
        #expect(result.couldNotRun == true)
        let message = try #require(probe.message)
        #expect(message.hasPrefix("cannot grow the copies: \(ScratchFolder.systemFolder) has 1000 bytes free, they need the ×8 copy of a "))
        #expect(!message.contains("\n"))
        #expect((probe.error as? FileSystemError)?.errno == ENOSPC)
    }

    /// More than the declared disk budget: refused the same way, before the free space is read.
    @Test func refusedBeyondTheDiskBudget() throws {
        let corpus = try FoldersCorpus()
        try corpus.write("stage.sql", Self.linear)
        try corpus.writeConfig(stage: ["sql": "stage.sql"]) { object in object["probes"] = ["size": ["disk": "1K"]] }
        let probe = try corpus.probe([.size]).probe(.size)
        #expect(probe.couldNotRun)
        #expect(probe.message?.hasPrefix("cannot grow the copies: they need more than \"disk\" allows (1.0 KiB): the ×8 copy of a ") == true)
    }

    /// A program stage has no VM steps: its exponent is by wall time, which the line says.
    @Test func programStageIsTimedOnly() throws {
        let corpus = try FoldersCorpus()
        try corpus.write("stage.sh", "#!/bin/sh\nexec sqlite3 \"$FIXTUREKIT_STORE\" 'UPDATE notes SET title = upper(title)'\n")
        chmod(corpus.corpus + "/stage.sh", 0o755)
        try corpus.writeConfig(stage: ["exec": ["./stage.sh"]])
        let probe = try corpus.probe([.size]).probe(.size)
        let line = try #require(probe.findings?.first?.message)
        #expect(line.hasPrefix("stage 1.0.0 -> 2.0.0: exponent "))
        #expect(line.hasSuffix("; a program stage: its connection is its own, no VM steps counted"))
    }

    /// A Swift stage opens the store itself: its statements' steps are counted
    /// on its own connections (``StepCount``), and its exponent is by them.
    @Test(arguments: [quadratic, linear])
    func swiftStageIsCountedOnItsOwnConnection(sql: String) throws {
        let corpus = try FoldersCorpus()
        try corpus.writeConfig(stage: ["swift": "rewrite"])
        let stage = SwiftStage { context in
            let database = try Database(path: context.storePath)
            try database.execute(sql)
            try database.close()
        }
        let probe = try corpus.probe([.size], swiftStages: ["rewrite": stage]).probe(.size)
        #expect(probe.findings?.first?.message.contains(" by VM steps (×1 ") == true, "\(probe.message ?? "")")
        #expect(probe.passed == (sql == Self.linear))
        #expect(try (Self.stepExponent(probe) > 1.3) == (sql == Self.quadratic))
    }

    @Test func configurationIsChecked() throws {
        let corpus = try FoldersCorpus()
        try corpus.write("stage.sql", Self.linear)
        let cases: [([String: Any], String)] = [
            (["size": ["rows": ["notes": 10], "factor": 2]], "probes.size: \"rows\" and \"factor\" both say the size users have: keep one"),
            (["size": ["factor": 0.5]], "probes.size.factor is 0.5: it must be at least 1"),
            (["size": ["rows": ["notes": 0]]], "probes.size.rows.notes is 0: it must be at least 1"),
            (["size": ["budget": "20"]], "probes.size.budget: \"20\" is not a time such as \"20s\", \"500ms\" or \"2min\""),
            (["size": ["budget": "20s"]], "probes.size.budget needs the size to predict at: \"rows\" or \"factor\""),
            (["size": ["disk": "lots"]], "probes.size.disk: \"lots\" is not a size such as \"1G\", \"500M\" or \"1048576\""),
            (["size": ["rowz": 1]], "probes.size: unknown key \"rowz\" (one of budget, disk, factor, rows)"),
            (["locales": ["xx_XX.UTF-8"]], "probes.locales: \"xx_XX.UTF-8\" is not a locale this system has (locale -a lists them: C.UTF-8, de_DE.UTF-8)"),
            (["locales": []], "probes.locales is empty: name the locales to compare, or leave it out"),
        ]
        for (probes, why) in cases {
            try corpus.writeConfig(stage: ["sql": "stage.sql"]) { $0["probes"] = probes }
            #expect(throws: (any Error).self) { try CorpusConfiguration.load(corpus.config) }
            do { _ = try CorpusConfiguration.load(corpus.config) } catch { #expect("\(error)".hasSuffix(why), "\(error)") }
        }
    }
}
