import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport
@testable import FixtureKitTool

/// Output that cannot be written is never ignored: every command, with `--json`
/// and without, run with stdout and with stderr on a full disk (`/dev/full`)
/// and closed, exits 2, with one line on stderr when stderr still works; a
/// reader that closes the pipe early (`| head -n1`) ends it by SIGPIPE, without
/// a word, as `sha256sum` ends.
@Suite struct OutputFailureTests {
    /// Where a stream goes in one run.
    enum Stream: String, CaseIterable, Sendable {
        case normal, full, closed, brokenPipe
    }

    /// What every command is run on: a corpus with its lock, a live WAL store,
    /// an archive, a backup of the live store, rules, in a fresh folder.
    final class Bench {
        let notes: NotesCorpus
        let live: String
        let archive: String
        let backup: String
        var out: String { notes.folder.url("out") }

        init() throws {
            notes = try NotesCorpus.forUpgrade()
            live = try NotesCorpus.liveStore(in: notes.folder.url("live"))
            try FileManager.default.createDirectory(atPath: notes.folder.url("out"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: notes.folder.url("made"), withIntermediateDirectories: true)
            archive = notes.folder.url("made/App-1.0.0.tar.zst")
            #expect(fixturekit("pack", "--quiet", notes.corpus + "/1.0.0", "-o", archive).status == 0)
            let backup = fixturekit("backup", "--json", live, "--to", notes.folder.url("made/backups"))
            #expect(backup.status == 0, "\(backup.standardError)")
            let report = try JSONSerialization.jsonObject(with: Data(backup.standardOutput.utf8)) as? [String: Any]
            self.backup = try #require((report?["archive"] as? [String: Any])?["path"] as? String, "\(backup.standardOutput)")
            try notes.folder.write("made/rules.json", #"{"tables": {"notes": {"title": {"strategy": "fake", "kind": "text"}}}}"#)
        }

        /// The command's words, the bench's paths in place of the placeholders.
        func arguments(_ words: [String]) -> [String] {
            words.map { word in
                [("{corpus}", notes.corpus), ("{config}", notes.config), ("{live}", live), ("{archive}", archive),
                 ("{backup}", backup), ("{out}", out), ("{rules}", notes.folder.url("made/rules.json"))]
                    .reduce(word) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
            }
        }
    }

    /// A run of each command that succeeds; `nil` for the top level (`--help`, `--version`).
    static let runs: [String: [String]] = [
        "init": ["init", "{live}", "--corpus", "{out}/new"],
        "sums": ["sums", "{corpus}/1.0.0"],
        "verify": ["verify", "{corpus}"],
        "inspect": ["inspect", "{corpus}/2.0.0"],
        "sql": ["sql", "{corpus}/2.0.0", "SELECT count(*) FROM notes"],
        "capture": ["capture", "--no-anonymize", "{live}", "--version", "4.0.0", "--corpus", "{out}/c"],
        "checkpoint": ["checkpoint", "{live}"],
        "anonymize": ["anonymize", "{live}", "--rules", "{rules}", "-o", "{out}/anonymized.sqlite"],
        "pack": ["pack", "{corpus}/2.0.0", "-o", "{out}/p.tar.zst"],
        "unpack": ["unpack", "{archive}", "{out}/u"],
        "list": ["list", "{archive}"],
        "freeze": ["freeze", "{live}", "--version", "3.0.1", "--config", "{config}", "--no-anonymize"],
        "migrate": ["migrate", "--config", "{config}", "--jobs", "1"],
        "probe": ["probe", "--config", "{config}", "--jobs", "1", "--only", "order"],
        "lint": ["lint", "--config", "{config}"],
        "drift": ["drift", "{live}", "--against", "{corpus}/1.0.0"],
        "upgrade": ["upgrade", "{live}", "--config", "{config}", "--backups", "{out}/b"],
        "backup": ["backup", "{live}", "--to", "{out}/b"],
        "restore": ["restore", "{backup}", "{live}"],
        "status": ["status", "--config", "{config}"],
        "hash": ["hash", "{corpus}/1.0.0", "{archive}"],
        "lock": ["lock", "{corpus}"],
        "completions": ["completions", "bash"],
        "--help": ["--help"],
        "--version": ["--version"],
        "help": ["help", "verify"],
    ]

    @Test func everyCommandIsTried() {
        let names = Set(Tool.visibleCommands.map(\.name))
        #expect(names.subtracting(Self.runs.keys).isEmpty, "\(names.subtracting(Self.runs.keys))")
    }

    /// Runs the built tool with stdout and stderr as told.
    static func run(_ arguments: [String], stdout: Stream, stderr: Stream, folder: String) throws -> RunResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let redirect = [stdout == .full ? ">/dev/full" : stdout == .closed ? ">&-" : "", stderr == .full ? "2>/dev/full" : stderr == .closed ? "2>&-" : ""]
        process.arguments = ["-c", "exec \"$0\" \"$@\" " + redirect.joined(separator: " "), toolExecutable] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["FIXTUREKIT_ANON_KEY"] = "a-key-for-the-output-failure-tests"
        environment["SOURCE_DATE_EPOCH"] = "0"
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        let files = (folder + "/.stdout-\(UUID().uuidString)", folder + "/.stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: files.0, contents: nil)
        _ = FileManager.default.createFile(atPath: files.1, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: files.0); try? FileManager.default.removeItem(atPath: files.1) }
        // A pipe whose reader is gone before anything is written: every write fails with EPIPE.
        func stream(_ stream: Stream, file: String) throws -> Any {
            guard stream == .brokenPipe else { return try FileHandle(forWritingTo: URL(fileURLWithPath: file)) }
            let pipe = Pipe()
            try pipe.fileHandleForReading.close()
            return pipe
        }
        process.standardOutput = try stream(stdout, file: files.0)
        process.standardError = try stream(stderr, file: files.1)
        try process.run()
        process.waitUntilExit()
        let status = process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
        return RunResult(
            status: status,
            standardOutput: String(decoding: try Data(contentsOf: URL(fileURLWithPath: files.0)), as: UTF8.self),
            standardError: String(decoding: try Data(contentsOf: URL(fileURLWithPath: files.1)), as: UTF8.self))
    }

    /// Every command's runs, with `--json` when it takes it.
    static var cases: [[String]] {
        var cases: [[String]] = []
        for (name, words) in runs.sorted(by: { $0.key < $1.key }) {
            cases.append(words)
            let takesJSON = Tool.commands.first { $0.configuration.name == name }?.configuration.options.contains { $0.names.contains("--json") } ?? false
            if takesJSON { cases.append(words + ["--json"]) }
        }
        return cases
    }

    @Test(arguments: cases)
    func aFailedWriteExits2AndABrokenPipeEndsAsSha256sumDoes(words: [String]) throws {
        let label = words.joined(separator: " ")
        let first = try Bench()
        let baseline = try Self.run(first.arguments(words), stdout: .normal, stderr: .normal, folder: first.notes.folder.path)
        #expect(baseline.status == 0, "\(label): \(baseline.standardError)")
        let written = (stdout: !baseline.standardOutput.isEmpty, stderr: !baseline.standardError.isEmpty)
        var variants: [(Stream, Stream)] = []
        if written.stdout { variants += [(.full, .normal), (.closed, .normal), (.brokenPipe, .normal)] }
        if written.stderr { variants += [(.normal, .full), (.normal, .closed)] }
        for (stdout, stderr) in variants {
            let bench = try Bench()
            let result = try Self.run(bench.arguments(words), stdout: stdout, stderr: stderr, folder: bench.notes.folder.path)
            let place = "\(label) with stdout \(stdout), stderr \(stderr)"
            let lastLine = result.standardError.split(separator: "\n").last.map(String.init) ?? ""
            if stdout == .brokenPipe || stderr == .brokenPipe {
                // SIGPIPE, and no message: as `sha256sum | head -n1`.
                #expect(result.status == 128 + SIGPIPE, "\(place): \(result.status) \(result.standardError)")
                #expect(!result.standardError.contains("fixturekit: write"), "\(place): \(result.standardError)")
            } else if stdout != .normal {
                #expect(result.status == 2, "\(place): \(result.status) \(result.standardError)")
                let why = stdout == .full ? "no space left on device" : "not open"
                #expect(lastLine.hasPrefix("fixturekit: write ") && lastLine.contains(": stdout: \(why)"), "\(place): \(result.standardError)")
                #expect(result.standardError.split(separator: "\n").filter { $0.hasPrefix("fixturekit: write") }.count == 1, "\(place)")
            } else {
                #expect(result.status == 2, "\(place): \(result.status) \(result.standardError)")
            }
            #expect(!result.standardError.contains("Fatal error") && !result.standardError.contains("Stack trace"), "\(place)")
            withExtendedLifetime(bench) {}
        }
        withExtendedLifetime(first) {}
    }
}
