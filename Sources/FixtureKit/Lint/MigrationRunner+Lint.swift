import Dispatch
import Synchronization
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

extension MigrationRunner {
    /// What one fixture's run of its stages showed the lint.
    struct LintRun: Sendable {
        var versions: [String]
        var observations: [LintObservation] = []
        var ran: Set<StagePlace> = []
        var problem: String?
    }

    /// Lints the plan: every supported version's fixture, verified and copied into
    /// a temporary folder, taken through its chain of stages with a
    /// ``LintWatcher`` on the connection; what the watchers saw is gathered by
    /// rule and place, counted per fixture (``LintReport``). Fixtures are never touched.
    /// - Parameter cancellation: once cancelled, no other fixture starts and the stage running is ended.
    public func lint(cancellation: Cancellation? = nil) -> LintReport {
        let paths = distinctSources(configuration.migrationPaths(evidence: sourceFacts.evidence).filter { $0.kind == .path && $0.gap == nil })
        let runs = Mutex<[LintRun?]>(Array(repeating: nil, count: paths.count))
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: max(1, min(ParallelHasher.coreCount, paths.count))) { _ in
            while true {
                let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < paths.count, cancellation?.isCancelled != true else { break }
                // The stages read the process' time zone: the corpus' own, held while they run (``ZoneLease``).
                let run = ZoneLease.shared.with(configuration.processTimeZone) { lint(paths[index], cancellation: cancellation) }
                runs.withLock { $0[index] = run }
            }
        }
        return gather(runs.withLock { $0.compactMap { $0 } })
    }

    /// Runs one path's stages on a copy of its source fixture under a watcher.
    private func lint(_ path: MigrationPath, cancellation: Cancellation?) -> LintRun {
        var run = LintRun(versions: [path.source] + (path.alsoFor ?? []))
        let source = fixture(path.source)
        if let problem = source.problem {
            run.problem = "\(path.source): \(problem.description)"
            return run
        }
        let copy: MigrationCopy
        do {
            copy = try MigrationCopy(fixture: source.folder, store: configuration.store, swiftStages: swiftStages, cancellation: cancellation)
        } catch {
            run.problem = "\(path.source): \(error.description)"
            return run
        }
        let watcher = LintWatcher(version: path.source, configuration: configuration) { try? copy.open() }
        copy.stages.watcher = watcher
        defer { copy.stages.watcher = nil }
        var log: [String] = []
        for (index, stage) in path.stages.enumerated() {
            let file = stage.sql ?? stage.folder
            // A shipped stage that changed since the lock does not run (as in `migrate`).
            if let problem = history?.stageProblem(stage) {
                watcher.observe(.historyChange, file.map { StagePlace(file: $0, line: 0) }, problem)
                break
            }
            let failed = watcher.run(stage, on: copy, configuration: configuration, log: &log) != nil
            if let legacy = watcher.renamedUnderReferences { watcher.adopt(otherLegacyObservations(path, stage: index, legacy: legacy, cancellation: cancellation)) }
            if failed {
                watcher.notLinted(path.stages.dropFirst(index + 1))
                break
            }
        }
        run.observations = watcher.observations
        run.ran = watcher.ran
        return run
    }

    /// The lint's checks of one path of the matrix, from what `watcher` saw of its
    /// stages; without P001, F001 and X001, which the stage's own check reports (its
    /// warnings, its failure).
    func lintChecks(_ path: MigrationPath, watcher: LintWatcher) -> [CheckResult] {
        let observations = watcher.observations.filter { ![LintRule.ignoredPragma, .stageFails, .notReplayable].contains($0.rule) }
        let run = LintRun(versions: [path.source] + (path.alsoFor ?? []), observations: observations, ran: watcher.ran)
        return gather([run]).checks
    }

    /// The observations of every fixture gathered into findings: one for each
    /// rule, place and subject, counted in each fixture the place ran on.
    private func gather(_ runs: [LintRun]) -> LintReport {
        struct Key: Hashable {
            var rule: String, file: String?, line: Int?, subject: String
        }
        var order: [Key] = []
        var seen: [Key: [(versions: [String], observation: LintObservation)]] = [:]
        for run in runs {
            for observation in run.observations {
                let key = Key(rule: observation.rule.code, file: observation.file, line: observation.line == 0 ? nil : observation.line, subject: observation.subject)
                if seen[key] == nil { order.append(key) }
                seen[key, default: []].append((run.versions, observation))
            }
        }
        let settings = configuration.lint ?? CorpusConfiguration.LintSettings()
        var findings: [LintFinding] = []
        for key in order {
            guard let rule = LintRule.named(key.rule), settings.severity(of: rule) != .off, let found = seen[key] else { continue }
            var counts: [String: Int] = [:]
            var details: [String: String] = [:]
            for (versions, observation) in found {
                for version in versions {
                    if let count = observation.count { counts[version, default: 0] += count }
                    if let detail = observation.detail, details[version] == nil { details[version] = detail }
                }
            }
            var fixtures = Set(found.flatMap(\.versions))
            if let file = key.file, let line = key.line {
                for run in runs where run.ran.contains(StagePlace(file: file, line: line)) { fixtures.formUnion(run.versions) }
            }
            let ordered = fixtures.sorted(by: Self.versionOrder)
            let counted = rule.unit != nil && key.rule != LintRule.historyChange.code
            if counted { for version in ordered where counts[version] == nil { counts[version] = 0 } }
            let detail = ordered.first { details[$0] != nil }.map { " in \($0): \(details[$0] ?? "")" } ?? ""
            let isHistory = key.rule == LintRule.historyChange.code
            findings.append(LintFinding(
                rule: key.rule, severity: settings.severity(of: rule), file: key.file, line: key.line, message: key.subject + detail,
                fixtures: isHistory ? [] : ordered, counts: counted ? counts : nil, unit: counted ? rule.unit : nil,
                ignored: settings.ignore(key.rule, file: key.file, line: key.line)?.why))
        }
        findings.sort { ($0.file ?? "", $0.line ?? 0, $0.rule, $0.message) < ($1.file ?? "", $1.line ?? 0, $1.rule, $1.message) }
        return LintReport(findings: findings, problems: runs.compactMap(\.problem).sorted())
    }

    /// Versions in version order (`1.10.0` after `1.9.0`); labels that are not versions after, bytewise.
    static func versionOrder(_ lhs: String, _ rhs: String) -> Bool {
        switch (Version(lhs), Version(rhs)) {
        case let (left?, right?): left < right
        case (.some, nil): true
        case (nil, .some): false
        case (nil, nil): lhs < rhs
        }
    }
}
