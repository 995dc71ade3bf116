import Foundation

/// Runs migration stages on one store: SQL stages through a connection kept
/// open between them, exec stages as programs that have the store to themselves.
///
/// The matrix runs it on a temporary copy of a fixture (``MigrationCopy``);
/// `upgrade` runs it on the live store, with a connection that holds the
/// store's exclusive lock (``ExclusiveStore``).
final class StageRunner {
    /// How many times a program stage is started before its start counts as failed.
    static let startAttempts = 5

    /// What went wrong in a stage.
    struct Failure: Equatable {
        var message: String
        /// The statement or the command line that failed, when there is one.
        var statement: String?
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

    /// - Parameter database: a connection already open on the store, used until
    ///   a program needs the store to itself.
    init(storePath: String, logFolder: String, database: Database? = nil, connect: @escaping Connect) {
        self.storePath = storePath
        self.logFolder = logFolder
        self.database = database
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

    /// Runs one stage; `nil` when it succeeded.
    func run(_ stage: CorpusConfiguration.Stage, configuration: CorpusConfiguration, log: inout [String]) -> Failure? {
        if let sql = stage.sql { return runSQL(configuration.resolve(sql), log: &log) }
        if let argv = stage.exec { return runProgram(argv, stage: stage, configuration: configuration, log: &log) }
        return Failure(message: "the stage has neither \"sql\" nor \"exec\"")
    }

    /// The file's statements, one by one, in one transaction.
    private func runSQL(_ path: String, log: inout [String]) -> Failure? {
        let script: String
        do { script = String(decoding: try POSIX.readFile(path), as: UTF8.self) } catch {
            return Failure(message: "cannot read \(path): \(error.reason)")
        }
        do throws(SQLiteError) {
            let database = try open()
            try database.execute("BEGIN IMMEDIATE")
            do throws(SQLiteError) {
                try database.executeScript(script) { log.append($0) }
                try database.execute("COMMIT")
            } catch {
                try? database.execute("ROLLBACK")
                throw error
            }
        } catch {
            return Failure(message: "SQLite error \(error.code): \(error.message)", statement: error.sql)
        }
        return nil
    }

    /// A program, without a shell, with the store's path and the versions in its environment.
    private func runProgram(_ argv: [String], stage: CorpusConfiguration.Stage, configuration: CorpusConfiguration, log: inout [String]) -> Failure? {
        close()
        guard let executable = Self.resolveExecutable(argv[0], in: configuration.folder) else {
            let path = argv[0].hasPrefix("/") ? argv[0] : configuration.folder.appendingPath(argv[0])
            let exists = argv[0].contains("/") && FileManager.default.fileExists(atPath: path)
            return Failure(message: "\(argv[0]): \(exists ? "not executable (chmod +x it)" : "no such program")", statement: argv.joined(separator: " "))
        }
        log.append("exec " + argv.joined(separator: " "))
        var environment = ProcessInfo.processInfo.environment
        environment["FIXTUREKIT_STORE"] = storePath
        environment["FIXTUREKIT_FROM"] = stage.from
        environment["FIXTUREKIT_TO"] = stage.to
        let outputPath = logFolder.appendingPath(".stage-\(stage.from)-\(stage.to).log")
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        guard let output = FileHandle(forWritingAtPath: outputPath) else {
            return Failure(message: "cannot create \(outputPath)")
        }
        defer { try? output.close() }
        var process = Process()
        // A program file that was just written may still be open for writing in a
        // child that another thread forked meanwhile: exec fails with ETXTBSY
        // until that child execs or exits. A few short retries ride it out.
        for attempt in 1...Self.startAttempts {
            process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = Array(argv.dropFirst())
            process.currentDirectoryURL = URL(fileURLWithPath: configuration.folder)
            process.environment = environment
            process.standardOutput = output
            process.standardError = output
            process.standardInput = FileHandle.nullDevice
            do {
                try process.run()
                break
            } catch {
                guard attempt < Self.startAttempts else {
                    return Failure(message: "\(argv[0]): cannot start: \(error.localizedDescription)", statement: argv.joined(separator: " "))
                }
                usleep(useconds_t(attempt) * 20_000)
            }
        }
        process.waitUntilExit()
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        log += text.split(separator: "\n").map { "  | " + $0 }
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let how = process.terminationReason == .exit ? "exited with status \(process.terminationStatus)" : "was killed by signal \(process.terminationStatus)"
            let last = text.split(separator: "\n").last.map { ": \($0)" } ?? ""
            return Failure(message: "\(argv[0]) \(how)\(last)", statement: argv.joined(separator: " "))
        }
        return nil
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
