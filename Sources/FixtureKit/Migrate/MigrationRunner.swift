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

        public init(from: String? = nil, jobs: Int? = nil, shard: (index: Int, count: Int)? = nil, keepFailed: String? = nil, progress: WorkProgress? = nil) {
            self.from = from
            self.jobs = jobs
            self.shard = shard
            self.keepFailed = keepFailed
            self.progress = progress
        }
    }

    public let configuration: CorpusConfiguration
    /// Each version's fixture, verified and read once for all the paths that use it.
    private let fixtures = Mutex<[String: FixtureState]>([:])
    /// Temporary folders, removed with the runner: fixtures unpacked from
    /// archives, and each fixture's checkpointed copy.
    private let temporaryFolders = Mutex<[String]>([])

    /// What the runner knows of one version's fixture.
    struct FixtureState: Sendable {
        var folder: String
        /// Why it cannot be used: missing, or it does not verify.
        var problem: String?
        /// Its schema and counts, read from a temporary copy.
        var contents: StoreContents?
        /// A checkpointed copy of its store, kept while the runner lives: the
        /// reference every path from this version compares its values with.
        var copy: String?
    }

    /// Threads each path's integrity check runs on: the cores the paths leave.
    private let integrityWorkers = Mutex<Int>(ParallelHasher.coreCount)

    /// The columns the corpus' anonymization rules mark as personal.
    private let personalColumns: Set<String>?

    /// The corpus' `fixturekit.lock`, when it has one: what fixtures and shipped stages are checked against.
    let history: LockedHistory?
    /// What the fixtures' manifests say for the plan (see MigrationRunner+Sources.swift).
    let sourceFacts: SourceFacts

    public init(configuration: CorpusConfiguration) {
        self.configuration = configuration
        personalColumns = configuration.personalColumns
        history = LockedHistory(configuration: configuration)
        sourceFacts = SourceFacts(configuration: configuration)
    }

    deinit {
        for folder in temporaryFolders.withLock({ $0 }) { ScratchFolder.remove(folder) }
    }

    /// Runs the matrix (or the part `options` selects).
    public func run(_ options: Options = Options()) -> MigrationReport {
        var selected = distinctSources(configuration.migrationPaths(from: options.from, evidence: sourceFacts.evidence))
        if let shard = options.shard {
            selected = selected.enumerated().filter { $0.offset % shard.count == shard.index - 1 }.map(\.element)
        }
        let paths = selected
        let workers = max(1, min(options.jobs ?? ParallelHasher.coreCount, paths.count))
        integrityWorkers.withLock { $0 = max(1, ParallelHasher.coreCount / workers) }
        let results = Mutex<[PathResult?]>(Array(repeating: nil, count: paths.count))
        let next = Atomic<Int>(0)
        options.progress?.begin("migrate: paths", total: UInt64(paths.count), unit: .items)
        defer { options.progress?.end() }
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                // After SIGINT or SIGTERM no other path starts.
                guard index < paths.count, Interruption.received == nil else { break }
                let result = run(paths[index], keepFailed: options.keepFailed)
                results.withLock { $0[index] = result }
                options.progress?.advance(1)
            }
        }
        var report = MigrationReport(
            current: configuration.current,
            shard: options.shard.map { "\($0.index)/\($0.count)" },
            paths: results.withLock { $0.compactMap { $0 } })
        report.interrupted = Interruption.received.map(Interruption.name)
        report.selected = paths.count
        return report
    }

    /// Runs one path: verifies the source fixture, copies it, runs the stages, checks.
    public func run(_ path: MigrationPath, keepFailed: String? = nil) -> PathResult {
        let clock = ContinuousClock()
        let start = clock.now
        var run = PathRun(path: path)
        execute(path, into: &run)
        var result = PathResult(
            id: path.id, kind: path.kind, source: path.source, target: path.target,
            passed: run.checks.allSatisfy(\.passed), seconds: 0, checks: run.checks, schemaDifferences: run.schemaDifferences,
            preservation: run.preservation, preservationSeconds: run.preservationSeconds, alsoFor: path.alsoFor)
        // A failure of the machine is not a regression: a copy that could not be
        // made, a stage that ran out of room (the temporary folder is full now).
        if !result.passed, run.infrastructure || ScratchFolder.isFull() {
            result.couldNotRun = true
        }
        if !result.passed, let keepFailed { run.keep(in: keepFailed, result: result) }
        let elapsed = clock.now - start
        result.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return result
    }

    // MARK: - One path

    private func execute(_ path: MigrationPath, into run: inout PathRun) {
        let source = fixture(path.source)
        if let problem = source.problem {
            run.fail("fixture \(path.source)", problem)
            return
        }
        run.pass("fixture \(path.source) verifies")
        if let gap = path.gap {
            run.fail("chain of stages to \(path.target)", gap)
            return
        }
        // A shipped stage runs only as it was locked.
        for stage in path.stages {
            if let problem = history?.stageProblem(stage) {
                run.fail("stage \(stage.from) -> \(stage.to)", problem)
                return
            }
        }
        let copy: MigrationCopy
        do {
            copy = try MigrationCopy(fixture: source.folder, store: configuration.store)
        } catch {
            run.fail("copy fixture \(path.source)", error.description)
            run.infrastructure = true
            return
        }
        run.copy = copy
        let before = source.contents?.tables ?? [:]
        for stage in path.stages {
            let name = "stage \(stage.from) -> \(stage.to)"
            if let signal = Interruption.received {
                run.fail(name, "not run: fixturekit received \(Interruption.name(signal))")
                return
            }
            if let failure = copy.run(stage, configuration: configuration, log: &run.log) {
                run.checks.append(CheckResult(name: name, passed: false, message: failure.message, statement: failure.statement))
                run.infrastructure = failure.infrastructure
                return
            }
            run.checks.append(CheckResult(name: name, passed: true, message: copy.stages.note))
        }
        guard Interruption.received == nil else { return }
        check(path, copy: copy, sourceCounts: before, into: &run)
    }

    private func check(_ path: MigrationPath, copy: MigrationCopy, sourceCounts: [String: Int], into run: inout PathRun) {
        // The stage's connection is closed (folding a WAL in) before the
        // integrity check's threads open the migrated file, and before it is
        // compared page by page with the source's.
        copy.close()
        let integrity = MigrationChecks.integrity(path: copy.storePath, sizes: sourceCounts, workers: integrityWorkers.withLock { $0 })
        let changedPages = fixture(path.source).copy.flatMap { ChangedPages.compare(migrated: copy.storePath, source: $0) }
        let integritySlot = run.checks.count
        run.checks.append(CheckResult(name: "integrity_check", passed: false))
        defer { run.checks[integritySlot] = integrity.result() }

        let database: Database
        let migrated: StoreContents
        do { database = try copy.open() } catch {
            run.fail("open the migrated store", error.description)
            return
        }
        do { migrated = try StoreContents(database: database) } catch {
            run.fail("read the migrated store", error.why)
            return
        }
        // The contents count the rows that violate a foreign key; the pragma
        // runs only to name them.
        if migrated.foreignKeyViolations == 0 {
            run.pass("foreign_key_check")
        } else {
            do { run.checks.append(try MigrationChecks.foreignKeys(database)) } catch {
                run.fail("foreign_key_check", error.description, statement: error.sql)
            }
        }

        let reference = fixture(path.target)
        if let expected = reference.contents {
            if expected.userVersion != 0 {
                migrated.userVersion == expected.userVersion
                    ? run.pass("user_version")
                    : run.fail("user_version", "\(migrated.userVersion) here, \(expected.userVersion) in \(path.target)", statement: "PRAGMA user_version")
            }
            let differences = SchemaDiff.differences(migrated.schema, from: expected.schema, referenceName: path.target)
            run.schemaDifferences = differences
            differences.isEmpty ? run.pass("schema matches \(path.target)") : run.fail("schema matches \(path.target)", differences.joined(separator: "\n"))
        } else {
            run.fail("schema matches \(path.target)", "no fixture of \(path.target) to compare with: \(reference.problem ?? "missing")")
        }

        run.checks.append(MigrationChecks.counts(
            rules: configuration.counts ?? [:], source: path.source, before: sourceCounts, after: migrated.tables,
            atCurrent: path.target == configuration.current))
        checkPreservation(path, database: database, migrated: migrated.schema, changedPages: changedPages, into: &run)

        // The configuration's own checks describe the current version. They run
        // once the integrity check is done: a check that writes must not wait
        // for its readers.
        guard path.target == configuration.current else { return }
        run.checks[integritySlot] = integrity.result()
        run.checks += MigrationChecks.configured(configuration.checks ?? [], on: database)
    }

    /// Every surviving value, by key, against the source fixture's copy.
    private func checkPreservation(_ path: MigrationPath, database: Database, migrated: SchemaSnapshot, changedPages: ChangedPages?, into run: inout PathRun) {
        let clock = ContinuousClock()
        let start = clock.now
        defer {
            let elapsed = clock.now - start
            run.preservationSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
        let source = fixture(path.source)
        guard let schema = source.contents?.schema, let reference = source.copy else { return }
        do {
            let check = PreservationCheck(
                database: database, keys: configuration.keys ?? [:], changes: configuration.declaredChanges, source: schema, migrated: migrated,
                sourceCounts: source.contents?.tables ?? [:], personal: personalColumns)
            run.preservation = try check.run(sourcePath: reference, changedPages: changedPages)
        } catch {
            run.fail("data preserved", error.description)
            return
        }
        let findings = run.preservation.compactMap(\.finding)
        findings.isEmpty ? run.pass("data preserved") : run.fail("data preserved", findings.joined(separator: "\n"))
    }

    // MARK: - Fixtures

    /// A version's fixture: verified once, its contents read once from a copy.
    /// When the corpus has no folder for it but its archive (`App-1.0.0.tar.zst`,
    /// as `pack` names it), the archive is unpacked, verified on the way, into a
    /// temporary folder.
    func fixture(_ version: String) -> FixtureState {
        if let known = fixtures.withLock({ $0[version] }) { return known }
        var state = FixtureState(folder: configuration.resolve(version))
        var isOwnCopy = false
        if !FixtureLocator.isFolder(state.folder) {
            if let archive = configuration.archivePath(of: version) {
                do {
                    let scratch = try ScratchFolder.create()
                    temporaryFolders.withLock { $0.append(scratch) }
                    let folder = scratch.appendingPath(version)
                    let result = try FixtureArchive.unpack(archive, to: folder)
                    if let first = result.contents.verification.problems.first {
                        state.problem = "\(archive) does not verify: \(first.file): \(first.summary)"
                    }
                    state.folder = folder
                    isOwnCopy = true
                } catch let error as FileSystemError {
                    state.problem = error.description
                } catch let error as FixtureKitError {
                    state.problem = error.description
                } catch {
                    state.problem = "\(error)"
                }
            } else {
                state.problem = "no fixture of \(version): \(state.folder) does not exist, nor its archive"
            }
        }
        if state.problem == nil {
            let folder = state.folder
            do throws(FixtureKitError) {
                // The paths read a copy that is verified as it was copied: a fixture
                // that changes afterwards (another process, a stage program) cannot
                // change what they migrate.
                let copy = isOwnCopy ? .success(folder) : privateCopy(of: folder)
                // The copy's contents are read on a second thread while it is
                // verified; they are used only once it verifies.
                let reading = BackgroundStage()
                let read = ReadSlot()
                if case .success(let own) = copy {
                    let store = own.appendingPath(configuration.store)
                    reading.start { [self] in read.result = Result { () throws(FixtureKitError) in try readCopy(of: StoreSet(storePath: store)) } }
                }
                defer { reading.drain() }
                let problems = try Verifier.verify((try? copy.get()) ?? folder).flatMap(\.problems)
                reading.drain()
                if let first = problems.first {
                    state.problem = "\(folder) does not verify: \(first.file): \(first.summary)" + (problems.count > 1 ? " (and \(problems.count - 1) more)" : "")
                } else {
                    let verified = try copy.get()
                    guard let result = read.result else { throw FixtureKitError(what: "read fixture", path: verified, why: "not read") }
                    let (contents, reference) = try result.get()
                    state.folder = verified
                    // What was verified must be what the lock records of the version.
                    if let problem = history?.fixtureProblem(version, verifiedFolder: verified, archive: isOwnCopy ? configuration.archivePath(of: version) : nil) {
                        state.problem = problem
                    } else {
                        state.contents = contents
                        state.copy = reference
                    }
                }
            } catch {
                state.problem = error.description
            }
        }
        fixtures.withLock { $0[version] = state }
        return state
    }

    /// ``readCopy(of:)``'s result, written by the reading thread before its
    /// stage is left and read after waiting on it.
    private final class ReadSlot: @unchecked Sendable {
        var result: Result<(StoreContents, String), FixtureKitError>?
    }

    /// Copies a fixture folder into a folder of the runner's, under its own name.
    /// A folder holding something else than files and folders (a link, a FIFO),
    /// or a file that vanishes meanwhile, cannot be copied: verifying the
    /// fixture itself then says what is wrong with it.
    private func privateCopy(of folder: String) -> Result<String, FixtureKitError> {
        let copy: String
        do throws(FileSystemError) {
            let scratch = try ScratchFolder.create()
            temporaryFolders.withLock { $0.append(scratch) }
            let name = folder.trimmingTrailingSlashes.split(separator: "/").last.map(String.init) ?? ""
            copy = scratch.appendingPath(["", ".", ".."].contains(name) ? "fixture" : name)
            try FileCopy.copyFolder(from: folder, to: copy, sync: false)
        } catch {
            return .failure(FixtureKitError(what: "copy fixture", failed: error))
        }
        return .success(copy)
    }

    /// Copies a fixture's store set into a folder of the runner's, reads its
    /// contents there and folds its WAL in, so that the copy is one file that
    /// the paths can attach.
    private func readCopy(of set: StoreSet) throws(FixtureKitError) -> (StoreContents, String) {
        // A lone main file in rollback mode, in the runner's own verified copy
        // of the fixture, is already what the paths need: read it there.
        let inPlace = set.memberNames == [set.storeName] && (try? set.readHeader())?.writeVersion == FileFormat.legacyFormatVersion
        var path = set.storePath
        if !inPlace {
            do {
                let folder = try ScratchFolder.create()
                temporaryFolders.withLock { $0.append(folder) }
                try set.copyMembers(to: folder, sync: false)
                path = folder.appendingPath(set.storeName)
            } catch {
                throw FixtureKitError(what: "read fixture: copy", failed: error)
            }
        }
        do {
            let database = try Database(path: path, options: .init(readOnly: inPlace, busyTimeout: 0))
            let contents = try StoreContents(database: database)
            if inPlace {
                try? database.close()
            } else {
                _ = try database.checkpoint(.truncate)
                try database.close()
            }
            return (contents, path)
        } catch let error as FixtureKitError {
            throw error
        } catch {
            throw FixtureKitError(what: "read fixture", path: set.storePath, why: "\(error)")
        }
    }
}

/// The running record of one path.
struct PathRun {
    let path: MigrationPath
    var checks: [CheckResult] = []
    var schemaDifferences: [String] = []
    /// Every statement run and every program started, in order.
    var log: [String] = []
    var copy: MigrationCopy?
    var preservation: [ColumnPreservation] = []
    var preservationSeconds: Double = 0
    /// The path failed for want of the machine (disk, files), not of the migration.
    var infrastructure = false

    mutating func pass(_ name: String) { checks.append(CheckResult(name: name, passed: true)) }

    mutating func fail(_ name: String, _ message: String, statement: String? = nil) {
        checks.append(CheckResult(name: name, passed: false, message: message, statement: statement))
    }

    /// Leaves the migrated copy and what was found in `folder/<path>/`.
    func keep(in folder: String, result: PathResult) {
        let name = path.id.replacingOccurrences(of: " -> ", with: "_to_")
        let target = folder.appendingPath(path.kind == .hop ? "hop_" + name : name)
        try? FixtureFolder.createFolders(target)
        copy?.move(to: target)
        try? AtomicFile.write(Array((log.joined(separator: "\n") + "\n").utf8), to: target.appendingPath("statements.log"))
        try? AtomicFile.write(CanonicalJSON.file(result), to: target.appendingPath("checks.json"))
        try? AtomicFile.write(Array((result.schemaDifferences.joined(separator: "\n") + "\n").utf8), to: target.appendingPath("schema-diff.txt"))
    }
}
