import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitSystem
@testable import FixtureKitTestSupport

/// A caller stops a matrix or an upgrade with the ``Cancellation`` it passed in
/// the options, at every place the work can stop: before a path starts, between
/// stages, inside an SQL stage's statement, inside a program stage, during
/// `upgrade`'s checks. SIGINT and SIGTERM are the same value, cancelled by the
/// tool's handler (their end-to-end tests: `UpgradeSignalTests`).
@Suite struct CancellationTests {
    @Test func theFirstReasonCountsAndIsWorded() {
        let cancellation = Cancellation()
        #expect(cancellation.reason == nil && !cancellation.isCancelled)
        cancellation.cancel(signal: SIGTERM)
        cancellation.cancel()
        #expect(cancellation.reason == .signal(SIGTERM))
        #expect(cancellation.reason?.description == "fixturekit received SIGTERM")
        #expect(cancellation.reason?.name == "SIGTERM")
        let requested = Cancellation()
        requested.cancel()
        requested.cancel(signal: SIGINT)
        #expect(requested.reason == .requested)
        #expect(requested.reason?.description == "cancelled by its caller")
        #expect(requested.reason?.name == "cancelled")
    }

    @Test func aCancelledMatrixStartsNoPath() throws {
        let notes = try NotesCorpus()
        let cancellation = Cancellation()
        cancellation.cancel()
        let report = try MigrationRunner.runMatrix(config: notes.config, options: .init(cancellation: cancellation))
        #expect(report.paths.isEmpty)
        #expect(report.selected == 3)
        #expect(report.interrupted == "cancelled")
        // Not cancelled: the same matrix runs whole, and says nothing of an interruption.
        let whole = try MigrationRunner.runMatrix(config: notes.config, options: .init(cancellation: Cancellation()))
        #expect(whole.paths.count == 3 && whole.interrupted == nil)
    }

    /// Cancelled by the first stage (a Swift stage of the app's tests): the
    /// second is not run, and says why.
    @Test func aPathCancelledDuringItsFirstStageRunsNoOther() throws {
        let notes = try NotesCorpus()
        try notes.writeConfig { object in
            object["stages"] = [
                ["from": "1.0.0", "to": "2.0.0", "swift": "CancellingMigrator"],
                ["from": "2.0.0", "to": "3.0.0", "exec": ["migrations/2.0.0-3.0.0.sh"]],
            ]
        }
        let cancellation = Cancellation()
        let migrator = SwiftStage { context in
            let database = try Database(path: context.storePath)
            defer { try? database.close() }
            try database.execute(NotesCorpus.stage1to2)
            cancellation.cancel()
        }
        let configuration = try CorpusConfiguration.load(notes.config)
        let runner = MigrationRunner(configuration: configuration, swiftStages: ["CancellingMigrator": migrator])
        let chain = try #require(configuration.migrationPaths().first { $0.stages.count == 2 })
        let path = runner.run(chain, cancellation: cancellation)
        #expect(path.checks.map(\.kind) == [.fixtureVerifies(version: "1.0.0"), .stage(from: "1.0.0", to: "2.0.0"), .stage(from: "2.0.0", to: "3.0.0")])
        #expect(path.checks[1].passed)
        #expect(path.checks[2] == CheckResult(.stage(from: "2.0.0", to: "3.0.0"), passed: false, message: "not run: cancelled by its caller"))
        #expect(path.couldNotRun == nil)
    }

    /// `stage` (with `files` written into the corpus) run by a ``StageRunner`` whose cancellation `reason` cancelled first.
    func runCancelled(_ stage: [String: Any], files: [String: String] = [:], reason: (Cancellation) -> Void) throws -> StageRunner.Failure? {
        let corpus = try FoldersCorpus()
        for (name, text) in files { try corpus.write(name, text) }
        try corpus.writeConfig(stage: stage)
        let configuration = try CorpusConfiguration.load(corpus.config)
        let store = corpus.folder.url("work/App.sqlite")
        try FileManager.default.createDirectory(atPath: corpus.folder.url("work"), withIntermediateDirectories: true)
        let database = try Database(path: store, options: .init(create: true))
        try database.execute(FoldersCorpus.schema1)
        try database.close()
        let cancellation = Cancellation()
        reason(cancellation)
        let runner = StageRunner(storePath: store, logFolder: corpus.folder.url("work"), cancellation: cancellation) { () throws(SQLiteError) in
            try Database(path: store)
        }
        var log: [String] = []
        return runner.run(configuration.stages[0], configuration: configuration, log: &log)
    }

    /// A statement that would never end is interrupted (the connection's watchdog sees the cancellation).
    @Test func anSQLStageIsInterruptedInItsStatement() throws {
        let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c;\n"
        for (cancel, words) in [({ (c: Cancellation) in c.cancel() }, "cancelled by its caller"), ({ $0.cancel(signal: SIGINT) }, "fixturekit received SIGINT")] {
            let failure = try #require(try runCancelled(["sql": "migrations/endless.sql"], files: ["migrations/endless.sql": endless], reason: cancel))
            #expect(failure.message == "interrupted: \(words)")
            guard case .cancelled = failure.reason else { Issue.record("\(failure.reason)"); continue }
            #expect(failure.machineError == nil)
        }
    }

    /// A program that would never end is ended, with the signal received or SIGTERM.
    @Test func aProgramStageIsEnded() throws {
        for (cancel, words, reason) in [
            ({ (c: Cancellation) in c.cancel() }, "cancelled by its caller", Cancellation.Reason.requested),
            ({ $0.cancel(signal: SIGTERM) }, "fixturekit received SIGTERM", .signal(SIGTERM)),
        ] {
            let failure = try #require(try runCancelled(["exec": ["sleep", "600"]], reason: cancel))
            #expect(failure.message == "sleep was interrupted: \(words)")
            #expect(failure.statement == "sleep 600")
            guard case .program(.interrupted(let ended)) = failure.reason else { Issue.record("\(failure.reason)"); continue }
            #expect(ended == reason)
        }
    }

    @Test func aCancelledUpgradeChangesNothing() throws {
        let notes = try NotesCorpus.forUpgrade()
        let folder = try TemporaryFolder()
        let store = try NotesCorpus.liveStore(in: folder.url("live"))
        let before = try storeFiles(folder.url("live"))
        let cancellation = Cancellation()
        cancellation.cancel()
        do throws(FixtureKitError) {
            _ = try Upgrade.upgrade(store: store, configuration: try CorpusConfiguration.load(notes.config), configurationPath: notes.config, options: .init(cancellation: cancellation))
            Issue.record("a cancelled upgrade ran")
        } catch {
            #expect(error.category == .interrupted)
            #expect(error.description == "upgrade: \(store): interrupted: cancelled by its caller; nothing was changed")
        }
        #expect(try storeFiles(folder.url("live")) == before)
    }

    /// Cancelled once the store is being changed: before the stages, or during
    /// the checks (whose statements are interrupted): the backup is restored.
    @Test(arguments: ["stages", "checks"])
    func anUpgradeCancelledOnceTheStoreChangesIsRestored(phase: String) throws {
        let notes = try NotesCorpus.forUpgrade()
        let folder = try TemporaryFolder()
        let store = try NotesCorpus.liveStore(in: folder.url("live"), mode: .rollback)
        let before = try storeFiles(folder.url("live"))
        let cancellation = Cancellation()
        FaultInjection.at(.phase(phase), of: store) { cancellation.cancel() }
        defer { FaultInjection.at(.phase(phase), of: store) {} }
        let result = try Upgrade.upgrade(store: store, configuration: try CorpusConfiguration.load(notes.config), configurationPath: notes.config, options: .init(cancellation: cancellation))
        #expect(result.outcome == .restored)
        #expect(result.interrupted == "cancelled")
        #expect(result.failure == CheckResult(.upgrade, passed: false, message: "interrupted: cancelled by its caller"))
        if phase == "stages" {
            #expect(result.checks == [CheckResult(.stage(from: "1.0.0", to: "2.0.0"), passed: false, message: "not run: cancelled by its caller")])
        } else {
            // The stages ran; the checks were interrupted, or passed too soon for it: the values were not compared.
            #expect(result.checks.filter(\.kind.isStage).count == 2)
            #expect(!result.valuesCompared && result.preservation == nil)
        }
        #expect(result.couldNotRun == nil)
        #expect(try storeFiles(folder.url("live")) == before)
    }
}
