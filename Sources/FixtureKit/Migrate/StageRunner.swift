import Foundation
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// Runs migration stages on one store: SQL stages through a connection kept
/// open between them (``SQLStage``), exec stages as programs that have the store
/// to themselves, Swift stages as closures of the app's tests (``SwiftStage``),
/// each with the connection settings it declares (``ConnectionSettings``).
///
/// The matrix runs it on a temporary copy of a fixture (``MigrationCopy``);
/// `upgrade` runs it on the live store, with a connection that holds the
/// store's exclusive lock (``ExclusiveStore``).
final class StageRunner {
    /// How many times a program stage is started before its start counts as failed.
    static let startAttempts = 5
    /// How long a stage of the matrix may run unless its `timeout` says otherwise:
    /// a fixture is small, and a stage that hangs must not hold up a CI job for hours.
    static let matrixTimeout: Duration = .seconds(600)

    /// Why a stage failed: what happened, as a value, and the words the reports print.
    struct Failure: Error {
        enum Reason {
            /// A statement failed: SQLite's error.
            case statement(SQLiteError)
            /// The program ended as it should not have: a status, a signal, its
            /// timeout, a cancellation, an `execve` that failed.
            case program(StageProcess.End)
            /// The Swift stage's code threw this error.
            case swiftStage(any Error)
            /// The stage's SQL ran past its timeout, in seconds.
            case timedOut(Double)
            /// The run was cancelled while the stage's SQL ran.
            case cancelled(Cancellation.Reason)
            /// The stage cannot run as it is declared or written (no kind, a
            /// transaction statement where none can run, a file that cannot be
            /// read, no such program, a Swift stage the tool was not given): the
            /// error behind it, when there is one.
            case invalid((any Error)?)
            /// Its statements that did nothing where they stand, under `"strictStages": true`.
            case ignoredStatements([String])
            /// The machine kept the stage from running: its connection could not
            /// be opened, its log not created, its program not started; SQLite
            /// ran out of disk or hit an I/O error. The error.
            case machine(any Error)
        }

        var reason: Reason
        /// What went wrong, in the report's words.
        var message: String
        /// The statement or the command line that failed, when there is one.
        var statement: String?

        init(_ reason: Reason, _ message: String, statement: String? = nil) {
            (self.reason, self.message, self.statement) = (reason, message, statement)
        }

        /// The error that kept the stage from running, when the machine did.
        var machineError: (any Error)? {
            guard case .machine(let error) = reason else { return nil }
            return error
        }
    }

    /// Opens the connection the SQL stages and the checks use.
    typealias Connect = () throws(SQLiteError) -> Database

    /// The store's main file, as the stages see it: a program gets it in
    /// `FIXTUREKIT_STORE` and runs in the corpus folder, so it is absolute there.
    let storePath: String
    /// Where a program's output is collected while it runs.
    private let logFolder: String
    private let connect: Connect
    private var database: Database?
    /// How long a stage may run when the configuration does not say.
    let timeout: Duration?
    /// What the last stage run left to say though it passed: `stage left 1
    /// process running: killed`.
    private(set) var note: String?
    /// What the last stage ran with (``CorpusConfiguration/appliedConnection(of:)``),
    /// as its connection reported it back.
    private(set) var connection: ConnectionSettings?
    /// The statements of the last stage that did nothing where they stand.
    private(set) var warnings: [String] = []
    /// The same statements at their places (``PragmaProbe/ignored``).
    private(set) var ignored: [CheckResult.Finding] = []
    /// Told of each statement of the SQL stages as it runs (`lint`).
    var watcher: StatementWatcher?
    /// The Swift stages of the app's tests, by the name the configuration gives them.
    let swiftStages: [String: SwiftStage]
    /// What a running stage is stopped by: its SQL interrupted, its program signalled.
    let cancellation: Cancellation?
    /// What a probe changes in the next stages run (``StageVariation``).
    var variation = StageVariation()
    /// The commits the last program stage was seen to make, when ``variation`` watched them.
    private(set) var commitsObserved: Int?
    /// The virtual-machine operations of the last stage's SQL (``Statement/virtualMachineSteps``,
    /// summed; for a Swift stage, those of its own connections to the store, ``StepCount``);
    /// `nil` for a program stage, or a Swift stage whose statements SQLite did not tell of.
    private(set) var stepsCounted: Int?

    /// - Parameter database: a connection already open on the store, used until
    ///   a program needs the store to itself.
    /// - Parameter timeout: how long a stage may run unless its `timeout` says otherwise.
    /// - Parameter cancellation: what stops a running stage.
    init(
        storePath: String, logFolder: String, database: Database? = nil, timeout: Duration? = nil, swiftStages: [String: SwiftStage] = [:],
        cancellation: Cancellation? = nil, connect: @escaping Connect
    ) {
        self.storePath = storePath
        self.logFolder = logFolder
        self.database = database
        self.timeout = timeout
        self.swiftStages = swiftStages
        self.cancellation = cancellation
        self.connect = connect
    }

    deinit { close() }

    /// The connection, opened on first use and reused by the SQL stages.
    func open() throws(SQLiteError) -> Database {
        if let database { return database }
        let opened = try connect()
        database = opened
        return opened
    }

    /// Closes the connection (and gives up the locks it holds), so a program can
    /// have the store to itself.
    func close() {
        try? database?.close()
        database = nil
    }

    /// Runs one stage; `nil` when it succeeded. With `"strictStages": true`, a
    /// statement that did nothing where it stands fails it.
    func run(_ stage: CorpusConfiguration.Stage, configuration: CorpusConfiguration, log: inout [String]) -> Failure? {
        note = nil
        warnings = []
        ignored = []
        stepsCounted = nil
        connection = configuration.appliedConnection(of: stage)
        let failure: Failure?
        if stage.runsSQL {
            failure = runSQL(stage, configuration: configuration, log: &log)
        } else if let argv = stage.exec {
            failure = runProgram(argv, stage: stage, configuration: configuration, log: &log)
        } else if let name = stage.swift {
            failure = runSwift(name, stage: stage, configuration: configuration, log: &log)
        } else {
            failure = Failure(.invalid(nil), "the stage has neither \"sql\", \"folder\", \"exec\" nor \"swift\"")
        }
        if failure == nil, configuration.strictStages == true, !warnings.isEmpty {
            return Failure(.ignoredStatements(warnings), warnings.joined(separator: "\n"))
        }
        return failure
    }

    /// The check of the stage just run, `failure` its outcome: with the settings
    /// it ran with, its warnings, and the machine's error when it could not run.
    func result(_ stage: CorpusConfiguration.Stage, _ failure: Failure?, seconds: Double? = nil) -> CheckResult {
        var result = CheckResult(
            .stage(from: stage.from, to: stage.to), passed: failure == nil, message: failure?.message ?? note, statement: failure?.statement, seconds: seconds,
            error: failure?.machineError)
        result.connection = connection
        result.warnings = warnings.isEmpty ? nil : warnings
        return result
    }

    /// `migrations/a.sql:7:12: SQLite error 1: near "FORM": syntax error`.
    static func describe(at location: String?, _ error: SQLiteError) -> String {
        (location.map { $0 + ": " } ?? "") + "SQLite error \(error.code): \(error.message)"
    }

    /// The stage's SQL files (``SQLStage``), with its connection settings set
    /// before its first transaction opens, interrupted when they outlast `timeout`
    /// or fixturekit receives SIGINT or SIGTERM. The connection goes back to the
    /// default settings afterwards.
    private func runSQL(_ stage: CorpusConfiguration.Stage, configuration: CorpusConfiguration, log: inout [String]) -> Failure? {
        var files: [SQLStage.File] = []
        if let sql = stage.sql { files = [SQLStage.File(path: sql, absolute: configuration.resolve(sql))] }
        if let folder = stage.folder {
            do {
                let migrations = try MigrationFolder.read(folder, corpus: configuration.folder, through: stage.through).migrations
                files = migrations.map { migration in
                    SQLStage.File(path: migration.file, absolute: configuration.resolve(migration.file), recorded: stage.record.map { $0.value == .version ? migration.version : migration.name })
                }
            } catch {
                return Failure(.invalid(error), error.message)
            }
        }
        if let count = variation.files { files = Array(files.prefix(count)) }
        let database: Database
        do {
            database = try open()
            var applied = try configuration.connection(of: stage).apply(to: database)
            applied.environment = connection?.environment
            connection = applied
            if variation.reverseUnorderedSelects { try database.execute("PRAGMA reverse_unordered_selects = ON") }
        } catch {
            return Failure(.machine(error), Self.describe(at: nil, error), statement: error.sql)
        }
        defer {
            _ = try? ConnectionSettings.defaults.sqlite.apply(to: database)
            if variation.reverseUnorderedSelects { try? database.execute("PRAGMA reverse_unordered_selects = OFF") }
        }
        let pragmas = PragmaProbe(folder: logFolder)
        defer { pragmas.close() }
        var run = SQLStage(
            database: database, files: files, transaction: stage.transaction ?? .eachFile, record: stage.record,
            probe: ConstraintProbe(database: database, configuration: configuration), pragmas: pragmas, watcher: watcher)
        let timeout = stage.timeout.map(Self.duration) ?? timeout
        let (outcome, stopped) = database.withWatchdog(deadline: timeout.map { ContinuousClock.now + $0 }, cancellation: cancellation) { () throws(Failure) in try run.run() }
        log += run.log
        stepsCounted = run.steps
        warnings = pragmas.warnings
        ignored = pragmas.ignored
        guard case .failure(let failure) = outcome else { return nil }
        switch stopped {
        case .deadline?:
            let seconds = Self.seconds(timeout ?? .zero)
            return Failure(.timedOut(seconds), "timed out after \(Self.describe(seconds: seconds)) s", statement: failure.statement)
        case .cancelled(let reason)?:
            return Failure(.cancelled(reason), "interrupted: \(reason)", statement: failure.statement)
        case nil:
            return failure
        }
    }

    /// A Swift stage: the closure the app's tests gave for its name, on the
    /// store's path, which it opens itself.
    private func runSwift(_ name: String, stage: CorpusConfiguration.Stage, configuration: CorpusConfiguration, log: inout [String]) -> Failure? {
        guard let body = swiftStages[name] else {
            return Failure(.invalid(nil), "\"swift\": \"\(name)\" is a Swift stage: it runs in the app's own tests, which give its code to MigrationRunner (swiftStages:); the fixturekit tool cannot run it")
        }
        close()
        log.append("swift " + name)
        var settings = configuration.connection(of: stage)
        settings.environment = (settings.environment ?? [:]).merging(variation.environment) { _, probed in probed }
        let context = SwiftStage.Context(storePath: storePath, from: stage.from, to: stage.to, connection: settings)
        // Its statements' steps, on the connections it opens to the store (the size probe's cost).
        do { stepsCounted = try StepCount.counting(storePath) { () throws(any Error) in try body.body(context) }.1 } catch {
            return Failure(.swiftStage(error), "\(name): \(error)", statement: "swift " + name)
        }
        return nil
    }

    /// A program, without a shell, with the store's path and the versions in its
    /// environment, run as a ``StageProcess``: it ends with its main process,
    /// every process it left running is terminated, and it is ended when it
    /// outlasts its timeout or the run is cancelled (fixturekit receives SIGINT or SIGTERM).
    private func runProgram(_ argv: [String], stage: CorpusConfiguration.Stage, configuration: CorpusConfiguration, log: inout [String]) -> Failure? {
        close()
        let command = argv.joined(separator: " ")
        guard let executable = Self.resolveExecutable(argv[0], in: configuration.folder) else {
            let path = argv[0].hasPrefix("/") ? argv[0] : configuration.folder.appendingPath(argv[0])
            let exists = argv[0].contains("/") && FileManager.default.fileExists(atPath: path)
            return Failure(.invalid(nil), "\(argv[0]): \(exists ? "not executable (chmod +x it)" : "no such program")", statement: command)
        }
        log.append("exec " + command)
        var environment = ProcessInfo.processInfo.environment
        // The declared environment (TZ and LC_ALL pinned unless declared), then fixturekit's own.
        environment.merge(configuration.connection(of: stage).environment ?? [:]) { _, declared in declared }
        environment.merge(variation.environment) { _, probed in probed }
        environment["FIXTUREKIT_STORE"] = storePath
        environment["FIXTUREKIT_FROM"] = stage.from
        environment["FIXTUREKIT_TO"] = stage.to
        let outputPath = logFolder.appendingPath(".stage-\(stage.from)-\(stage.to).log")
        let output: FileDescriptor
        do { output = try FileDescriptor.open(outputPath, .writeOnly, options: [.create, .truncate], permissions: 0o600) } catch {
            return Failure(.machine(error), "cannot create \(outputPath): \(error.reason)")
        }
        defer { try? output.close() }
        let timeout = stage.timeout.map(Self.duration) ?? self.timeout
        var outcome = StageProcess.Outcome(end: .cannotStart(0), leftRunning: 0)
        let watch = variation.killAtCommit != nil || variation.countsCommits ? CommitWatch(storePath: storePath) : nil
        let killAt = variation.killAtCommit
        let killWhen = watch.map { watch in { () -> Bool in watch.commits() >= (killAt ?? Int.max) } }
        commitsObserved = nil
        defer { commitsObserved = watch?.commits() }
        // A program file that was just written may still be open for writing in a
        // child that another thread forked meanwhile: exec fails with ETXTBSY
        // until that child execs or exits. A few short retries ride it out.
        for attempt in 1...Self.startAttempts {
            do throws(FileSystemError) {
                // Absolute: the program starts in the corpus folder.
                outcome = try StageProcess.run(
                    executable: POSIX.absolutePath(executable), argv: argv, environment: environment, directory: configuration.folder, output: output.rawValue, timeout: timeout,
                    cancellation: cancellation, killWhen: killWhen)
            } catch {
                return Failure(.machine(error), "\(argv[0]): cannot start: \(error.reason)", statement: command)
            }
            guard case .cannotStart(let code) = outcome.end, Errno(rawValue: code) == .textFileBusy, attempt < Self.startAttempts else { break }
            POSIX.pause(microseconds: UInt32(attempt) * 20_000)
        }
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        log += text.split(separator: "\n").map { "  | " + $0 }
        let left = outcome.leftRunning > 0 ? "stage left \(outcome.leftRunning) \(outcome.leftRunning == 1 ? "process" : "processes") running: killed" : nil
        if let left { log.append("  " + left) }
        note = left
        let last = text.split(separator: "\n").last.map { ": \($0)" } ?? ""
        let how: String
        // Killed where the probe wanted it: the stage stopped, as the app would have.
        if outcome.killed {
            log.append("  killed (SIGKILL) after \(watch?.commits() ?? 0) commits")
            return nil
        }
        switch outcome.end {
        case .exited(0): return nil
        case .exited(let status): how = "\(argv[0]) exited with status \(status)\(last)"
        case .signaled(let signal): how = "\(argv[0]) was killed by signal \(signal)\(last)"
        case .timedOut(let seconds): how = "\(argv[0]) timed out after \(Self.describe(seconds: seconds)) s"
        case .interrupted(let reason): how = "\(argv[0]) was interrupted: \(reason)"
        case .cannotStart(let code): return Failure(.program(outcome.end), "\(argv[0]): cannot start: \(Errno(rawValue: code))", statement: command)
        }
        return Failure(.program(outcome.end), how + (left.map { "\n" + $0 } ?? ""), statement: command)
    }

    /// `2` for 2.0, `2.5` for 2.5: a timeout as the configuration would say it.
    static func describe(seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int64(seconds)) : String(seconds)
    }

    /// A number of seconds as a duration, to the millisecond.
    static func duration(_ seconds: Double) -> Duration { .milliseconds(Int64((seconds * 1000).rounded())) }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// `argv[0]`: relative to the corpus when it holds a `/`, else found on PATH.
    static func resolveExecutable(_ name: String, in folder: String) -> String? {
        if name.contains("/") {
            let path = name.hasPrefix("/") ? name : folder.appendingPath(name)
            return FileManager.default.isExecutableFile(atPath: path) ? path : nil
        }
        let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in searchPath.split(separator: ":") {
            let candidate = String(directory).appendingPath(name)
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
