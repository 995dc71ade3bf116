import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

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
