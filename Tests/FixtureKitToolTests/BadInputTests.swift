import Foundation
import Testing
@testable import FixtureKit

/// Every command on the inputs users feed it from the field: one line on stderr,
/// `fixturekit: <what>: <path>: <why>`, and a documented exit code; never a crash.
@Suite struct BadInputTests {
    /// A folder of bad inputs, each under the name it is used by.
    static func makeInputs() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try folder.write("empty", [UInt8]())
        try folder.write("text", "just some text, not a database\n")
        try folder.write("short-sqlite", "SQLite format 3\0")
        try folder.write("two\nlines", "x")
        try FileManager.default.createDirectory(atPath: folder.url("a-folder"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.url("loop"), withDestinationPath: folder.url("loop"))
        try folder.write("bad.tar.zst", "not an archive at all")
        try folder.write("bad.json", "{ not json")
        return folder
    }

    static let inputs = ["empty", "text", "short-sqlite", "two\nlines", "a-folder", "loop", "missing", "bad.tar.zst", "bad.json"]

    /// Each command with `{}` standing for the bad input.
    static let commands: [[String]] = [
        ["inspect", "{}"], ["capture", "{}", "--version", "1.0.0", "--corpus", "{out}"], ["checkpoint", "{}"],
        ["sums", "{}"], ["verify", "{}"], ["verify", "--deep", "{}"], ["pack", "{}", "-o", "{out}/x.tar.zst"],
        ["unpack", "{}", "{out}/dest"], ["list", "{}"], ["drift", "{}", "--against", "{}"],
        ["migrate", "--config", "{}"], ["anonymize", "{}", "--rules", "{}", "--output", "{out}/a.sqlite"],
        ["freeze", "{}", "--version", "1.0.0", "--config", "{}"], ["hash", "{}"], ["lock", "{}"],
    ]

    @Test(arguments: commands)
    func oneLineAndADocumentedExitCode(command: [String]) throws {
        let folder = try Self.makeInputs()
        for input in Self.inputs {
            let arguments = command.map { $0 == "{}" ? folder.url(input) : $0.replacingOccurrences(of: "{out}", with: folder.url("out")) }
            let result = fixturekit(arguments, environment: ["FIXTUREKIT_ANON_KEY": "a-key-for-bad-input-tests"])
            let label = "\(command[0]) on \(input.debugDescription)"
            #expect([1, 2, 64].contains(result.status), "\(label): exit \(result.status)")
            let lines = result.standardError.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            let errors = lines.filter { $0.hasPrefix("fixturekit: ") }
            #expect(!errors.isEmpty || result.standardError.hasPrefix("Error: "), "\(label): \(result.standardError)")
            for line in errors {
                // `fixturekit: <what>: <path>: <why>`: at least three parts, no raw line feed.
                #expect(line.split(separator: ": ", omittingEmptySubsequences: false).count >= 3, "\(label): \(line)")
            }
        }
        // Nothing was written outside the output folder it was told to use.
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
        #expect(names.subtracting(["out"]) == Set(Self.inputs.filter { $0 != "missing" }))
    }

    @Test func theBuiltToolNeverDiesOfASignal() throws {
        let folder = try Self.makeInputs()
        for input in ["empty", "text", "a-folder", "loop", "bad.tar.zst"] {
            for command in [["inspect"], ["verify", "--deep"], ["list"], ["sums"], ["hash"], ["lock"]] {
                let result = try run([toolExecutable] + command + [folder.url(input)])
                #expect([1, 2].contains(result.status), "\(command) \(input): \(result.status) \(result.standardError)")
                #expect(!result.standardError.contains("Fatal error") && !result.standardError.contains("Stack trace"))
            }
        }
    }
}

/// Writing where the disk or the permissions say no.
@Suite struct WriteFailureTests {
    @Test func aFileSizeLimitFailsCleanly() throws {
        let folder = try TemporaryFolder()
        let store = try TortureTests.liveStore(folder)
        // 1 MiB at most per file: the 4 MiB store cannot be copied.
        let result = try run(["sh", "-c", "ulimit -f 2048; exec \"$0\" \"$@\"", toolExecutable, "capture", "--no-anonymize", store, "--version", "1.0.0", "--corpus", folder.url("corpus")])
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError.hasPrefix("fixturekit: capture: "))
        #expect(result.standardError.contains("(disk full, or a file-size limit)"), "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1)
        // Nothing under the fixture's name, no staging folder left.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url("corpus")) == [])
        let pack = try run(["sh", "-c", "ulimit -f 16; exec \"$0\" \"$@\"", toolExecutable, "sums", folder.path])
        #expect(pack.status == 2 || pack.status == 0)
    }

    @Test func aReadOnlyCorpusFailsCleanly() throws {
        let folder = try TemporaryFolder()
        let store = try TortureTests.liveStore(folder)
        try FileManager.default.createDirectory(atPath: folder.url("corpus"), withIntermediateDirectories: true)
        chmod(folder.url("corpus"), 0o555)
        chmod(folder.path, 0o755)
        chmod(store, 0o644)
        // Root writes anywhere: as root, the tool runs as `nobody`.
        var command = [toolExecutable, "capture", "--no-anonymize", store, "--version", "1.0.0", "--corpus", folder.url("corpus")]
        if getuid() == 0 { command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + command }
        let result = try run(command)
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError.hasPrefix("fixturekit: capture: "), "\(result.standardError)")
        #expect(result.standardError.contains("permission denied"), "\(result.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url("corpus")) == [])
    }
}
