import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitCrypto
import FixtureKitModels

/// The probes of a path (``ProbeKind``): its stages run again on fresh copies
/// of the source fixture, each under one condition, and the result compared
/// with the plain run's by content hash (``Database/contentHash()``).
extension MigrationRunner {
    /// The plain run of a path, which the probes compare with: its migrated copy and its content hash.
    struct ProbeReference {
        var digest: SHA256Digest
        var storePath: String
    }

    /// One stage of a probe's run, and what the probe changes in it.
    typealias ProbeStep = (stage: CorpusConfiguration.Stage, variation: StageVariation)

    /// How a probe's run of the stages ended.
    enum ProbeOutcome {
        /// Every stage ran: the copy, kept for the findings, and its content hash.
        case finished(MigrationCopy, SHA256Digest)
        /// A stage failed: its failure, in the report's words, and the error when the machine kept it from running.
        case failed(CorpusConfiguration.Stage, message: String, error: (any Error)?)
        /// The copy could not be made or read.
        case couldNotRun(String, any Error)
    }

    /// Runs the path's probes of `kinds` after its plain run, in the order of
    /// ``ProbeKind``. The `zones` probe takes the process' zone for each of its
    /// runs (``ZoneLease``): the caller must not hold it.
    func probe(_ path: MigrationPath, kinds: [ProbeKind], reference: ProbeReference, cancellation: Cancellation?) -> [CheckResult] {
        var results: [CheckResult] = []
        for kind in ProbeKind.allCases where kinds.contains(kind) {
            if let reason = cancellation?.reason {
                results.append(CheckResult(.probe(kind: kind.rawValue), passed: false, message: "not run: \(reason)"))
                break
            }
            let start = ContinuousClock.now
            var result: CheckResult
            switch kind {
            case .order: result = probeOrder(path, reference: reference, cancellation: cancellation)
            case .zones: result = probeZones(path, reference: reference, cancellation: cancellation)
            case .interrupted: result = probeInterruptions(path, reference: reference, cancellation: cancellation)
            case .size: result = probeSize(path, cancellation: cancellation)
            }
            result.seconds = start.secondsSince
            results.append(result)
        }
        return results
    }

    /// Every stage again with `PRAGMA reverse_unordered_selects = ON` (a
    /// program or Swift stage is told by ``StageVariation/reverseOrderVariable``).
    private func probeOrder(_ path: MigrationPath, reference: ProbeReference, cancellation: Cancellation?) -> CheckResult {
        var reversed = StageVariation()
        reversed.reverseUnorderedSelects = true
        let label = "under reverse_unordered_selects"
        let outcome = ZoneLease.shared.with(configuration.processTimeZone) {
            probeRun(path, steps: path.stages.map { ($0, reversed) }, cancellation: cancellation)
        }
        var verdict = ProbeVerdict(kind: .order, versions: path.versions)
        verdict.compare(outcome, reference: reference, label: label, personal: personalColumns)
        return verdict.result(headline: "the stages' result depends on the order of unordered SELECTs: it differs \(label)")
    }

    /// Every stage again in each zone of `"probes"."timeZones"` but the corpus'
    /// own, which the plain run ran in; then, when the path has a program stage,
    /// in each locale of `"probes"."locales"` but the programs' own (`LC_ALL`).
    private func probeZones(_ path: MigrationPath, reference: ProbeReference, cancellation: Cancellation?) -> CheckResult {
        var verdict = ProbeVerdict(kind: .zones, versions: path.versions)
        var differing: [String] = [], differingLocales: [String] = []
        for zone in configuration.probeTimeZones where zone != configuration.processTimeZone {
            guard cancellation?.isCancelled != true else { break }
            var zoned = StageVariation()
            zoned.timeZone = zone
            let outcome = ZoneLease.shared.with(zone) { probeRun(path, steps: path.stages.map { ($0, zoned) }, cancellation: cancellation) }
            if verdict.compare(outcome, reference: reference, label: "under TZ=\(zone)", personal: personalColumns, place: "under TZ=\(zone)") { differing.append(zone) }
        }
        // Only programs read LC_ALL: SQLite's functions and collations do not read the locale.
        let plainLocales = Set(path.stages.filter { $0.exec != nil }.map { configuration.connection(of: $0).environment?["LC_ALL"] ?? "" })
        for locale in plainLocales.isEmpty ? [] : configuration.probeLocales where plainLocales != [locale] {
            guard cancellation?.isCancelled != true else { break }
            var localized = StageVariation()
            localized.locale = locale
            let outcome = ZoneLease.shared.with(configuration.processTimeZone) { probeRun(path, steps: path.stages.map { ($0, localized) }, cancellation: cancellation) }
            let label = "under LC_ALL=\(locale)"
            if verdict.compare(outcome, reference: reference, label: label, personal: personalColumns, place: label) { differingLocales.append(locale) }
        }
        let plain = configuration.processTimeZone
        var headlines: [String] = []
        if !differing.isEmpty || differingLocales.isEmpty {
            headlines.append("the stages' result depends on the time zone: it differs under TZ=\(differing.joined(separator: ", TZ=")) from the plain run's (TZ=\(plain))")
        }
        if !differingLocales.isEmpty {
            let own = plainLocales.sorted().map { "LC_ALL=\($0)" }.joined(separator: ", ")
            headlines.append("the program stages' result depends on the locale: it differs under LC_ALL=\(differingLocales.joined(separator: ", LC_ALL=")) from the plain run's (\(own))")
        }
        return verdict.result(headline: headlines.joined(separator: "; "))
    }

    /// Each folder stage that commits more than once (one transaction per
    /// file) stopped after its k-th file, for at most `"maxPoints"` k chosen
    /// evenly, then run again from the start as the app would at its next launch
    /// (with `"record"`, the files recorded are skipped), and the later stages.
    private func probeInterruptions(_ path: MigrationPath, reference: ProbeReference, cancellation: Cancellation?) -> CheckResult {
        var verdict = ProbeVerdict(kind: .interrupted, versions: path.versions)
        var stops: [String] = []
        for (index, stage) in path.stages.enumerated() {
            if stage.exec != nil {
                stops += probeKills(path, at: index, reference: reference, verdict: &verdict, cancellation: cancellation)
                continue
            }
            guard let folder = stage.folder, (stage.transaction ?? .eachFile) == .eachFile,
                let migrations = try? MigrationFolder.read(folder, corpus: configuration.folder, through: stage.through).migrations, migrations.count > 1
            else { continue }
            for point in Self.interruptionPoints(commits: migrations.count, max: configuration.probeMaxPoints) {
                guard cancellation?.isCancelled != true else { break }
                var stopped = StageVariation()
                stopped.files = point
                var steps: [ProbeStep] = path.stages[..<index].map { ($0, StageVariation()) }
                steps += [(stage, stopped), (stage, StageVariation())]
                steps += path.stages[(index + 1)...].map { ($0, StageVariation()) }
                let outcome = ZoneLease.shared.with(configuration.processTimeZone) { probeRun(path, steps: steps, cancellation: cancellation) }
                let place = "stage \(stage.from) -> \(stage.to) stopped after k=\(point) (\(migrations[point - 1].file)) and run again"
                if verdict.compare(outcome, reference: reference, label: "in the interrupted run", personal: personalColumns, place: place) {
                    stops.append("k=\(point)")
                }
            }
        }
        return verdict.result(headline: "a stage interrupted and run again does not end where it ends uninterrupted: at \(stops.joined(separator: ", "))")
    }

    /// A program stage killed with SIGKILL once its k-th commit is seen (in
    /// its `-wal`, or its store's change counter), for at most `"maxPoints"` k
    /// chosen evenly among the commits a first watched run makes, then run again
    /// from the start on the store as the kill left it. The k that differ.
    private func probeKills(_ path: MigrationPath, at index: Int, reference: ProbeReference, verdict: inout ProbeVerdict, cancellation: Cancellation?) -> [String] {
        let stage = path.stages[index]
        let before: [ProbeStep] = path.stages[..<index].map { ($0, StageVariation()) }
        let after: [ProbeStep] = path.stages[(index + 1)...].map { ($0, StageVariation()) }
        var counting = StageVariation()
        counting.countsCommits = true
        let counted = ZoneLease.shared.with(configuration.processTimeZone) { probeRun(path, steps: before + [(stage, counting)], cancellation: cancellation) }
        guard case .finished(let copy, _) = counted, let commits = copy.stages.commitsObserved else {
            verdict.compare(counted, reference: reference, label: "in the watched run", personal: personalColumns, place: "stage \(stage.from) -> \(stage.to) watched")
            return []
        }
        var stops: [String] = []
        for point in Self.interruptionPoints(commits: commits, max: configuration.probeMaxPoints) {
            guard cancellation?.isCancelled != true else { break }
            var killed = StageVariation()
            killed.killAtCommit = point
            let steps = before + [(stage, killed), (stage, StageVariation())] + after
            let outcome = ZoneLease.shared.with(configuration.processTimeZone) { probeRun(path, steps: steps, cancellation: cancellation) }
            let place = "stage \(stage.from) -> \(stage.to) killed at commit k=\(point) of \(commits) and run again"
            if verdict.compare(outcome, reference: reference, label: "in the interrupted run", personal: personalColumns, place: place) { stops.append("k=\(point)") }
        }
        return stops
    }

    /// At most `max` of the commits 1 to `commits - 1` (stopping after the last
    /// is no interruption), spread evenly, the first and the last included.
    static func interruptionPoints(commits: Int, max: Int) -> [Int] {
        let last = commits - 1
        guard last > 0 else { return [] }
        guard last > max else { return Array(1...last) }
        guard max > 1 else { return [1] }
        return Set((0..<max).map { 1 + Int((Double($0) * Double(last - 1) / Double(max - 1)).rounded()) }).sorted()
    }

    /// Runs `steps` on a fresh copy of the path's source fixture, with the
    /// plain run's timeout and cancellation, and reads the result's content hash.
    func probeRun(_ path: MigrationPath, steps: [ProbeStep], cancellation: Cancellation?) -> ProbeOutcome {
        let copy: MigrationCopy
        do {
            copy = try MigrationCopy(fixture: fixture(path.source).folder, store: configuration.store, swiftStages: swiftStages, cancellation: cancellation)
        } catch {
            return .couldNotRun("copy fixture \(path.source): \(error.description)", error)
        }
        var log: [String] = []
        for (stage, variation) in steps {
            copy.stages.variation = variation
            if let failure = copy.run(stage, configuration: configuration, log: &log) {
                return .failed(stage, message: failure.message, error: failure.machineError)
            }
        }
        copy.stages.variation = StageVariation()
        do { return .finished(copy, try copy.open().contentHash()) } catch {
            return .couldNotRun("read the probed store: \(error.description)", error)
        }
    }
}

/// The findings of one probe of one path, gathered run by run.
struct ProbeVerdict {
    let kind: ProbeKind
    /// The fixtures the path stands for (its source, and ``MigrationPath/alsoFor``): a difference's rows are counted in each.
    let versions: [String]
    var findings: [CheckResult.Finding] = []
    var error: (any Error)?

    /// Compares one of the probe's runs with the plain run; whether it differs.
    /// - Parameter place: what a finding is prefixed with: the run, when the probe makes several.
    @discardableResult
    mutating func compare(_ outcome: MigrationRunner.ProbeOutcome, reference: MigrationRunner.ProbeReference, label: String, personal: Set<String>?, place: String? = nil) -> Bool {
        let prefix = (place ?? label) + ": "
        switch outcome {
        case .finished(let copy, let digest):
            guard digest != reference.digest else { return false }
            var lines: [ProbeDiff.Line]
            do { lines = try ProbeDiff.findings(probe: try copy.open(), plain: reference.storePath, personal: personal, label: label) } catch {
                lines = [ProbeDiff.Line("the content hashes differ; what differs could not be read: \(error.description)")]
            }
            if lines.isEmpty { lines = [ProbeDiff.Line("the content hashes differ")] }
            for line in lines { add((place.map { $0 + ": " } ?? "") + line.text, rows: line.rows) }
            return true
        case .failed(let stage, let message, let failure):
            add(prefix + "stage \(stage.from) -> \(stage.to) fails: " + (message.split(separator: "\n").first.map(String.init) ?? message))
            if let failure { error = error ?? failure }
            return true
        case .couldNotRun(let message, let failure):
            add(prefix + message)
            error = error ?? failure
            return true
        }
    }

    /// - Parameter rows: the rows the difference concerns, the same in each of ``versions`` (their content is one).
    private mutating func add(_ message: String, rows: Int? = nil) {
        findings.append(CheckResult.Finding(message: message, counts: rows.map { rows in Dictionary(versions.map { ($0, rows) }, uniquingKeysWith: { first, _ in first }) }))
    }

    /// A finding as the reports' lines say it: with its rows in each fixture, as
    /// lint's findings say theirs: `notes.title: 6 of 12 rows differ (...) (fixtures: 1.0.0 6 rows)`.
    func line(_ finding: CheckResult.Finding) -> String {
        guard let counts = finding.counts else { return finding.message }
        let each = versions.compactMap { version in counts[version].map { "\(version) \($0) \($0 == 1 ? "row" : "rows")" } }
        return finding.message + " (fixtures: \(each.joined(separator: ", ")))"
    }

    /// The probe's check: passed when no run differed; else `headline` and a line per finding.
    func result(headline: String) -> CheckResult {
        var result = CheckResult(.probe(kind: kind.rawValue), passed: findings.isEmpty, error: error)
        guard !findings.isEmpty else { return result }
        result.message = ([error == nil ? headline : "could not run"] + findings.map(line)).joined(separator: "\n")
        result.findings = findings
        return result
    }
}

extension MigrationPath {
    /// The fixtures the path stands for: its source, and the versions of ``alsoFor``.
    var versions: [String] { [source] + (alsoFor ?? []) }
}
