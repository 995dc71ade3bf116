import Foundation

/// A fixture's store set copied into a fresh temporary folder, where stages run.
final class MigrationCopy {
    private let scratch: ScratchFolder
    let storePath: String
    private var database: Database?

    init(fixture: String, store: String) throws(FixtureKitError) {
        let set = try StoreSet(storePath: fixture.appendingPath(store))
        do {
            scratch = try ScratchFolder()
            try set.copyMembers(to: scratch.path, sync: false)
        } catch {
            throw FixtureKitError(what: "copy fixture: \(error.operation)", path: error.path, why: error.reason)
        }
        storePath = scratch.path.appendingPath(store)
    }

    /// The connection to the copy, opened once and reused by the SQL stages.
    func open() throws(SQLiteError) -> Database {
        if let database { return database }
        let opened = try Database(path: storePath, options: .init(busyTimeout: 5000))
        database = opened
        return opened
    }

    /// Closes the connection, so a program can have the store to itself.
    func close() {
        try? database?.close()
        database = nil
    }

    struct Failure {
        var message: String
        var statement: String?
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = Array(argv.dropFirst())
        process.currentDirectoryURL = URL(fileURLWithPath: configuration.folder)
        var environment = ProcessInfo.processInfo.environment
        environment["FIXTUREKIT_STORE"] = storePath
        environment["FIXTUREKIT_FROM"] = stage.from
        environment["FIXTUREKIT_TO"] = stage.to
        process.environment = environment
        let outputPath = scratch.path.appendingPath(".stage-\(stage.from)-\(stage.to).log")
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        guard let output = FileHandle(forWritingAtPath: outputPath) else {
            return Failure(message: "cannot create \(outputPath)")
        }
        defer { try? output.close() }
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            return Failure(message: "\(argv[0]): cannot start: \(error.localizedDescription)", statement: argv.joined(separator: " "))
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

    /// Moves the migrated store set into `folder` (for `--keep-failed`).
    func move(to folder: String) {
        close()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: scratch.path)) ?? [] {
            try? FileManager.default.moveItem(atPath: scratch.path.appendingPath(name), toPath: folder.appendingPath(name))
        }
    }

    deinit { close() }
}
