import Dispatch
import Foundation
import Synchronization
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitCrypto
import FixtureKitModels

/// Runs the migration matrix of a corpus: every supported version's fixture,
/// copied into a fresh temporary folder, taken through its stages to the
/// current version, then checked. Fixtures are never touched.
public final class MigrationRunner: Sendable {
    public struct Options: Sendable {
        /// Only the runs that start at this version.
        public var from: String?
        /// Paths run at once; default every core.
        public var jobs: Int?
        /// This machine's share of the matrix: `(1, 2)` is the first of two.
        public var shard: (index: Int, count: Int)?
        /// Where the migrated copy, the log and the findings of a failed path go.
        public var keepFailed: String?
        /// Told of each path done.
        public var progress: WorkProgress?
        /// Told each phase of each path as it ends (the shared `--verbose`).
        public var phases: MigrationProgress?
        /// What stops the run: once it is cancelled no other path starts, the
        /// stages running are ended, and ``MigrationReport/interrupted`` says
        /// why. The tool passes the one SIGINT and SIGTERM cancel
        /// (``Interruption/install()``).
        public var cancellation: Cancellation?
        /// The probes each path runs after its checks (``ProbeKind``): `migrate
        /// --probes` runs the configuration's (``CorpusConfiguration/configuredProbes``).
        public var probes: [ProbeKind] = []
        /// Whether each migrated copy is checked; `probe` runs the stages and the probes alone.
        public var checks = true
        /// Whether each path's stages are also linted (``lint(cancellation:)``): a
        /// ``CheckKind/lint(rule:)`` check for each rule that found something on
        /// the path's fixture, failed by an error-level finding not ignored. On by default.
        public var lint = true

        public init(
            from: String? = nil, jobs: Int? = nil, shard: (index: Int, count: Int)? = nil, keepFailed: String? = nil, progress: WorkProgress? = nil,
            phases: MigrationProgress? = nil, cancellation: Cancellation? = nil
        ) {
            self.from = from
            self.jobs = jobs
            self.shard = shard
            self.keepFailed = keepFailed
            self.progress = progress
            self.phases = phases
            self.cancellation = cancellation
        }
    }

    public let configuration: CorpusConfiguration
    /// Each version's fixture, verified and read once for all the paths that use it.
    let fixtures = Mutex<[String: FixtureSlot]>([:])
    /// Temporary folders, removed with the runner: fixtures unpacked from
    /// archives, and each fixture's checkpointed copy.
    let temporaryFolders = Mutex<[ScratchFolder]>([])

    /// What the runner knows of one version's fixture.
    struct FixtureState: Sendable {
        var folder: String
        /// Why it cannot be used: missing, or it does not verify.
        var problem: FixtureProblem?
        /// Its schema and counts, read from a temporary copy.
        var contents: StoreContents?
        /// A checkpointed copy of its store, kept while the runner lives: the
        /// reference every path from this version compares its values with.
        var copy: String?
        /// Whether its tables' keys are unique, found on a thread of their own.
        var keys: SourceKeys?
        /// The pages of its b-trees, walked on a thread of their own.
        var pages: SourcePages?
        /// Which of its columns hold a value, found on a thread of their own.
        var values: SourceValues?
        /// A copy of its store set made while it was verified, for the first
        /// path that asks for the fixture with `spare` (``MigrationRunner/fixture(_:spare:)``).
        var spare: SpareCopy?
    }

    /// Threads each path's integrity check starts: the cores the paths leave,
    /// but the one the path's own thread keeps for its data diff (it takes the
    /// check's remaining tasks once the diff is done). One more would put three
    /// threads on two cores, and the longest task, the largest table's check,
    /// would share a core for as long as the diff runs, then run alone: on
    /// `bench-migrate`, 4.4–4.5 s of integrity check against 4.9–5.7 s, and
    /// the data diff 0.6–0.9 s against 1.4 s.
    private let integrityWorkers = Mutex<Int>(MigrationRunner.integrityWorkers(cores: ParallelHasher.coreCount, paths: 1))

    /// The threads each of `paths` paths at once gives its integrity check on `cores` cores.
    static func integrityWorkers(cores: Int, paths: Int) -> Int {
        max(1, cores / max(1, paths) - 1)
    }

    /// The columns the corpus' anonymization rules mark as personal.
    let personalColumns: Set<String>?

    /// The corpus' `fixturekit.lock`, when it has one: what fixtures and shipped stages are checked against.
    let history: LockedHistory?
    /// What the fixtures' manifests say for the plan (see MigrationRunner+Sources.swift).
    let sourceFacts: SourceFacts
    /// The code of the configuration's Swift stages, by name.
    let swiftStages: [String: SwiftStage]

    /// - Parameter swiftStages: the code of the configuration's Swift stages
    ///   (`"swift": "NAME"`), by name: an app's tests run its own migration code.
    public init(configuration: CorpusConfiguration, swiftStages: [String: SwiftStage] = [:]) {
        self.configuration = configuration
        self.swiftStages = swiftStages
        personalColumns = configuration.personalColumns
        history = LockedHistory(configuration: configuration)
        sourceFacts = SourceFacts(configuration: configuration)
    }

    deinit {
        // The keys still being checked, and the pages still being walked, read a copy in these folders.
        for slot in fixtures.withLock({ Array($0.values) }) {
            _ = slot.made?.keys?.wait()
            _ = slot.made?.pages?.wait()
            _ = slot.made?.values?.wait()
        }
        temporaryFolders.withLock { $0.removeAll() }
    }

    /// Runs the matrix (or the part `options` selects): the paths most
    /// expensive first (``MigrationSchedule``); the report lists them in the
    /// matrix' order. Once `options.cancellation` is cancelled no other path
    /// starts, those running end with their stage interrupted, and
    /// ``MigrationReport/interrupted`` says why.
    public func run(_ options: Options = Options()) -> MigrationReport {
        let start = ContinuousClock.now
        // SQLite's `localtime` and `utc` read the process' time zone: each path holds the stages' own (``ZoneLease``).
        let matrix = distinctSources(configuration.migrationPaths(from: options.from, evidence: sourceFacts.evidence))
        var sizes: [String: UInt64] = [:]
        for source in Set(matrix.map(\.source)) { sizes[source] = MigrationSchedule.fixtureSize(source, configuration: configuration) }
        let costs = matrix.map { MigrationSchedule.expectedCost($0, fixtureSize: sizes[$0.source] ?? 0) }
        let selected = options.shard.map { MigrationSchedule.share($0.index, of: $0.count, costs: costs) } ?? Array(matrix.indices)
        let paths = selected.map { matrix[$0] }
        let order = MigrationSchedule.startOrder(selected.map { costs[$0] })
        let workers = max(1, min(options.jobs ?? ParallelHasher.coreCount, paths.count))
        integrityWorkers.withLock { $0 = Self.integrityWorkers(cores: ParallelHasher.coreCount, paths: workers) }
        let results = Mutex<[PathResult?]>(Array(repeating: nil, count: paths.count))
        let next = Atomic<Int>(0)
        options.progress?.begin("migrate: paths", total: UInt64(paths.count), unit: .items)
        defer { options.progress?.end() }
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let turn = next.wrappingAdd(1, ordering: .relaxed).oldValue
                // Once cancelled (SIGINT or SIGTERM) no other path starts.
                guard turn < order.count, options.cancellation?.isCancelled != true else { break }
                let index = order[turn]
                let result = run(
                    paths[index], keepFailed: options.keepFailed, phases: options.phases, cancellation: options.cancellation, probes: options.probes,
                    checks: options.checks, lint: options.lint && options.checks)
                results.withLock { $0[index] = result }
                options.progress?.advance(1)
            }
        }
        let done = results.withLock { $0.compactMap { $0 } }
        let whole = options.from == nil ? matrix.count : distinctSources(configuration.migrationPaths(evidence: sourceFacts.evidence)).count
        let failed = done.filter { !$0.passed }.count
        var report = MigrationReport(
            current: configuration.current,
            shard: options.shard.map { "\($0.index)/\($0.count)" },
            paths: done,
            summary: MigrationReport.Summary(passed: done.count - failed, failed: failed, skipped: whole - done.count, seconds: start.secondsSince))
        report.interrupted = options.cancellation?.reason?.name
        report.selected = paths.count
        return report
    }

    /// Runs one path: verifies the source fixture, copies it, runs the stages, checks.
    /// - Parameter phases: told each phase as it ends.
    /// - Parameter cancellation: once cancelled, the stage running is ended and no other runs.
    /// - Parameter probes: the probes run once the path passed its stages (``ProbeKind``).
    /// - Parameter checks: whether the migrated copy is checked.
    public func run(
        _ path: MigrationPath, keepFailed: String? = nil, phases: MigrationProgress? = nil, cancellation: Cancellation? = nil, probes: [ProbeKind] = [],
        checks: Bool = true
    ) -> PathResult {
        run(path, keepFailed: keepFailed, phases: phases, cancellation: cancellation, probes: probes, checks: checks, lint: false)
    }

    /// One path; with `lint`, a path from a supported version to the current one is linted as its stages run.
    private func run(
        _ path: MigrationPath, keepFailed: String?, phases: MigrationProgress?, cancellation: Cancellation?, probes: [ProbeKind], checks: Bool, lint: Bool
    ) -> PathResult {
        let start = ContinuousClock.now
        var run = PathRun(path: path, phases: phases)
        phases?.say("\(run.label): started")
        // The stages and checks that read the process' time zone read the corpus' (probes may run others meanwhile).
        ZoneLease.shared.with(configuration.processTimeZone) {
            execute(path, into: &run, cancellation: cancellation, probes: !probes.isEmpty, checks: checks, lint: lint)
        }
        if let reference = run.probeReference {
            for result in probe(path, kinds: probes, reference: reference, cancellation: cancellation) { run.append(result) }
        }
        var result = PathResult(
            id: path.id, kind: path.kind, source: path.source, target: path.target,
            passed: run.checks.allSatisfy(\.passed), seconds: 0, checks: run.checks, schemaDifferences: run.schemaDifferences,
            preservation: run.preservation, preservationSeconds: run.preservationSeconds, alsoFor: path.alsoFor)
        result.unchecked = run.unchecked
        result.outOfRange = outOfRange(path)
        // A failure of the machine is not a regression: a copy that could not be
        // made, a stage that ran out of room (the temporary folder is full now).
        if !result.passed, run.checks.contains(where: \.couldNotRun) || ScratchFolder.isFull() {
            result.couldNotRun = true
        }
        if !result.passed, let keepFailed { run.keep(in: keepFailed, result: result) }
        result.seconds = start.secondsSince
        phases?.say("\(run.label): \(result.passed ? "PASS" : "FAIL") in \(String(format: "%.2f", result.seconds)) s")
        return result
    }

    // MARK: - One path

    /// - Parameter probes: the migrated copy's content hash is read for the probes (``PathRun/probeReference``).
    private func execute(_ path: MigrationPath, into run: inout PathRun, cancellation: Cancellation?, probes: Bool, checks: Bool, lint: Bool) {
        let start = ContinuousClock.now
        let source = fixture(path.source, spare: true)
        // Taken whatever happens next, so that it goes away with this path.
        let spare = source.spare?.take()
        let verified = start.secondsSince
        let verifies = CheckKind.fixtureVerifies(version: path.source)
        if let problem = source.problem {
            run.fail(verifies, problem.description, seconds: verified)
            return
        }
        if let gap = path.gap {
            run.pass(verifies, seconds: verified)
            run.fail(.chainOfStages(to: path.target), gap)
            return
        }
        // A shipped stage runs only as it was locked.
        for stage in path.stages {
            if let problem = history?.stageProblem(stage) {
                run.pass(verifies, seconds: verified)
                run.fail(.stage(from: stage.from, to: stage.to), problem)
                return
            }
        }
        let copy: MigrationCopy
        let copying = ContinuousClock.now
        do {
            if let spare {
                copy = MigrationCopy(copy: try spare.get(), swiftStages: swiftStages, cancellation: cancellation)
            } else {
                copy = try MigrationCopy(fixture: source.folder, store: configuration.store, swiftStages: swiftStages, cancellation: cancellation)
            }
        } catch {
            run.pass(verifies, seconds: verified)
            run.fail(.copyFixture(version: path.source), error.description, seconds: copying.secondsSince, error: error)
            return
        }
        // Verifying the fixture (once for every path from it) and this path's copy.
        run.pass(verifies, seconds: start.secondsSince)
        run.copy = copy
        let before = source.contents?.tables ?? [:]
        // The lint watches the stages of a path from a supported version as they run, on the same copy.
        let watcher = lint && path.kind == .path ? LintWatcher(version: path.source, configuration: configuration) { try? copy.open() } : nil
        copy.stages.watcher = watcher
        defer { copy.stages.watcher = nil }
        func addLint(_ run: inout PathRun) {
            guard let watcher else { return }
            for check in lintChecks(path, watcher: watcher) { run.append(check) }
        }
        for (index, stage) in path.stages.enumerated() {
            if let reason = cancellation?.reason {
                run.fail(.stage(from: stage.from, to: stage.to), "not run: \(reason)")
                return
            }
            // The check of the path counts the store's violations after its last stage.
            watcher?.countsStoreAtEnd = checks && index == path.stages.count - 1
            let staging = ContinuousClock.now
            let failure = watcher.map { $0.run(stage, on: copy, configuration: configuration, log: &run.log) } ?? copy.run(stage, configuration: configuration, log: &run.log)
            run.append(copy.stages.result(stage, failure, seconds: staging.secondsSince))
            if failure != nil {
                addLint(&run)
                return
            }
        }
        addLint(&run)
        guard cancellation?.isCancelled != true else { return }
        if probes {
            do { run.probeReference = ProbeReference(digest: try copy.open().contentHash(), storePath: copy.storePath) } catch {
                run.fail(.readMigratedStore, error.description, error: error)
                return
            }
            // The probes' findings read it from other connections.
            if !checks { copy.close() }
        }
        guard checks else { return }
        check(path, copy: copy, sourceCounts: before, violations: watcher?.violationsAtEnd, into: &run)
    }

    /// - Parameter violations: the rows that violate a foreign key in the
    ///   migrated store, when the lint counted them at the last stage's end.
    private func check(_ path: MigrationPath, copy: MigrationCopy, sourceCounts: [String: Int], violations: Int?, into run: inout PathRun) {
        // The stage's connection is closed (folding a WAL in) before the
        // integrity check's threads open the migrated file, and before it is
        // compared page by page with the source's.
        copy.close()
        let integrity = MigrationChecks.integrity(path: copy.storePath, sizes: sourceCounts, workers: integrityWorkers.withLock { $0 })
        let comparing = ContinuousClock.now
        let changedPages = fixture(path.source).copy.flatMap { ChangedPages.compare(migrated: copy.storePath, source: $0) }
        let pagesSeconds = comparing.secondsSince
        let integritySlot = run.checks.count
        run.checks.append(CheckResult(.integrity, passed: false))
        var integrityDone = false
        func finishIntegrity(_ run: inout PathRun) {
            guard !integrityDone else { return }
            integrityDone = true
            run.checks[integritySlot] = integrity.result()
            run.report(run.checks[integritySlot])
        }
        defer { finishIntegrity(&run) }

        let database: Database
        var migrated: StoreContents
        let reading = ContinuousClock.now
        do { database = try copy.open() } catch {
            run.fail(.openMigratedStore, error.description)
            return
        }
        do { migrated = try StoreContents(database: database, countingForeignKeys: violations == nil) } catch {
            run.fail(.readMigratedStore, error.why, seconds: reading.secondsSince)
            return
        }
        if let violations { migrated.foreignKeyViolations = violations }
        // The contents count the rows that violate a foreign key; the pragma
        // runs only to name them. The time is the contents' (row counts and
        // foreign keys) and the pragma's.
        if migrated.foreignKeyViolations == 0 {
            run.pass(.foreignKeys, seconds: reading.secondsSince)
        } else {
            do {
                var result = try MigrationChecks.foreignKeys(database)
                result.seconds = reading.secondsSince
                run.append(result)
            } catch {
                run.fail(.foreignKeys, error.description, statement: error.sql, seconds: reading.secondsSince)
            }
        }

        let comparingSchema = ContinuousClock.now
        let reference = fixture(path.target)
        if let expected = reference.contents {
            if expected.userVersion != 0 {
                migrated.userVersion == expected.userVersion
                    ? run.pass(.userVersion, seconds: 0)
                    : run.fail(.userVersion, "\(migrated.userVersion) here, \(expected.userVersion) in \(path.target)", statement: "PRAGMA user_version", seconds: 0)
            }
            let differences = SchemaDiff.differences(migrated.schema, from: expected.schema, referenceName: path.target)
            run.schemaDifferences = differences
            differences.isEmpty
                ? run.pass(.schema(target: path.target), seconds: comparingSchema.secondsSince)
                : run.fail(.schema(target: path.target), differences.joined(separator: "\n"), seconds: comparingSchema.secondsSince)
        } else {
            let problem = reference.problem?.description ?? "missing"
            run.fail(.schema(target: path.target), "no fixture of \(path.target) to compare with: \(problem)", seconds: comparingSchema.secondsSince)
        }

        let counting = ContinuousClock.now
        var counts = MigrationChecks.counts(
            rules: configuration.countRules, source: path.source, before: sourceCounts, after: migrated.tables,
            atCurrent: path.target == configuration.current, renamed: configuration.renamedTables)
        counts.seconds = counting.secondsSince
        run.append(counts)
        checkPreservation(path, database: database, migrated: migrated, changedPages: changedPages, pagesSeconds: pagesSeconds, into: &run)

        // The configuration's own checks describe the current version. They run
        // once the integrity check is done: a check that writes must not wait
        // for its readers.
        guard path.target == configuration.current else { return }
        finishIntegrity(&run)
        // The source fixture's private copy is attached read-only as `source`.
        let checks = ConfiguredChecks.run(configuration.checks ?? [], from: path.source, on: database, source: fixture(path.source).copy, personal: personalColumns)
        for result in checks { run.append(result) }
    }

    /// Every surviving value, by key, against the source fixture's copy.
    /// - Parameter pagesSeconds: what comparing the stores page by page took.
    private func checkPreservation(
        _ path: MigrationPath, database: Database, migrated: StoreContents, changedPages: ChangedPages?, pagesSeconds: Double, into run: inout PathRun
    ) {
        let start = ContinuousClock.now
        let source = fixture(path.source)
        guard let schema = source.contents?.schema, let reference = source.copy else { return }
        do {
            let check = PreservationCheck(
                database: database, keys: configuration.keys ?? [:], changes: configuration.declaredChanges, source: schema, migrated: migrated.schema,
                sourceCounts: source.contents?.tables ?? [:], migratedCounts: migrated.tables, sourceKeys: source.keys, sourcePages: source.pages,
                personal: personalColumns, renames: configuration.renameMap, moves: configuration.declaredMoves)
            run.preservation = try check.run(sourcePath: reference, changedPages: changedPages)
            run.unchecked = check.unchecked(version: path.source, held: source.values?.wait())
        } catch {
            run.preservationSeconds = pagesSeconds + start.secondsSince
            run.fail(.dataPreserved, error.description, seconds: run.preservationSeconds)
            return
        }
        run.preservationSeconds = pagesSeconds + start.secondsSince
        let findings = run.preservation.compactMap(\.finding)
        findings.isEmpty
            ? run.pass(.dataPreserved, seconds: run.preservationSeconds)
            : run.fail(.dataPreserved, findings.joined(separator: "\n"), seconds: run.preservationSeconds)
    }

    /// The configuration's checks that a path to the current version does not
    /// run because their `from` leaves out its source; `nil` when none.
    private func outOfRange(_ path: MigrationPath) -> [String]? {
        guard path.target == configuration.current else { return nil }
        let names = (configuration.checks ?? []).filter { !($0.from?.contains(path.source) ?? true) }.map(\.name)
        return names.isEmpty ? nil : names
    }
}
