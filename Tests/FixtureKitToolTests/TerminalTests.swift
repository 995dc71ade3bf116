import Foundation
import Testing
@testable import FixtureKitSystem
@testable import FixtureKitTestSupport
@testable import FixtureKitTool

/// What a user sees on a terminal: colour as colour, NO_COLOR honoured,
/// progress drawn and erased. Run through a pseudo-terminal, as a shell runs it.
@Suite struct TerminalTests {
    /// verify, status, inspect and unpack, each with a result word in colour.
    static func coloredCommands(_ corpus: NotesCorpus) throws -> [[String]] {
        let archive = corpus.folder.url("App-1.0.0.tar.zst")
        #expect(fixturekit("pack", corpus.corpus + "/1.0.0", "-o", archive, "-q").status == 0)
        return [
            ["verify", corpus.corpus + "/1.0.0"],
            ["status", "--config", corpus.config],
            ["inspect", archive],
            ["unpack", archive, corpus.folder.url("unpacked")],
        ]
    }

    @Test func colourReachesATerminalAsColour() throws {
        let corpus = try NotesCorpus()
        for arguments in try Self.coloredCommands(corpus) {
            let run = try runOnTerminal(arguments)
            #expect(run.status == 0, "\(arguments): \(run.output)")
            #expect(run.output.contains("\u{1B}[32mOK\u{1B}[0m"), "\(arguments): \(run.output)")
            // Never escaped after it was added, as it used to be.
            #expect(!run.output.contains("\\u{1B}") && !run.output.contains("\\e["), "\(arguments): \(run.output)")
        }
    }

    @Test func noColorTurnsColourOff() throws {
        let corpus = try NotesCorpus()
        for arguments in try Self.coloredCommands(corpus) {
            let run = try runOnTerminal(arguments, environment: ["NO_COLOR": "1"])
            #expect(run.status == 0)
            #expect(run.output.contains("OK"))
            #expect(!run.output.contains("\u{1B}"), "\(arguments): \(run.output)")
        }
        // TERM=dumb too; an empty NO_COLOR is not set (no-color.org).
        let folder = corpus.corpus + "/1.0.0"
        #expect(!(try runOnTerminal(["verify", folder], environment: ["TERM": "dumb"])).output.contains("\u{1B}"))
        #expect(try runOnTerminal(["verify", folder], environment: ["NO_COLOR": ""]).output.contains("\u{1B}[32mOK"))
    }

    @Test func failuresAreRedAndAHostileNameStaysEscaped() throws {
        let folder = try TemporaryFolder()
        // A file name holding an escape sequence of its own: shown escaped, never run.
        try folder.write("f/\u{1B}[31mred", "1")
        #expect(fixturekit("sums", "-q", folder.url("f")).status == 0)
        try folder.write("f/\u{1B}[31mred", "2")
        let run = try runOnTerminal(["verify", folder.url("f")])
        #expect(run.status == 1)
        #expect(run.output.contains("\u{1B}[31mFAILED\u{1B}[0m"))
        #expect(run.output.contains("/f/\\u{1b}[31mred: changed"), "\(run.output)")
        #expect(run.output.components(separatedBy: "\u{1B}[31m").count == 2, "only FAILED is red: \(run.output)")
    }

    @Test func progressIsDrawnOnATerminalAndErased() throws {
        let corpus = try NotesCorpus()
        let terminal = try runOnTerminal(["migrate", "--config", corpus.config], environment: ["FIXTUREKIT_PROGRESS_DELAY_MS": "0"])
        #expect(terminal.status == 0, "\(terminal.output)")
        #expect(terminal.output.contains("migrate: paths: "), "\(terminal.output)")
        #expect(terminal.output.contains("\r\u{1B}[K"))
        // Erased before each of the report's lines, and at the end: what stays on the screen is the report.
        let screen = Self.screen(terminal.output)
        #expect(screen.hasPrefix("migrate: \(corpus.config): 2 paths to 3.0.0 and 1 hop\nmigrate: stage 1.0.0 -> 2.0.0 ran with "), "\(screen)")
        #expect(screen.hasSuffix("migrate: 3 of 3 passed\n"), "\(screen)")
        // Not with --quiet, and never where stderr is not a terminal.
        let quiet = try runOnTerminal(["migrate", "--config", corpus.config, "--quiet"], environment: ["FIXTUREKIT_PROGRESS_DELAY_MS": "0"])
        #expect(quiet.status == 0)
        #expect(quiet.output == "")
        let piped = try run([toolExecutable, "migrate", "--config", corpus.config], environment: ProcessInfo.processInfo.environment.merging(["FIXTUREKIT_PROGRESS_DELAY_MS": "0"]) { $1 })
        #expect(!piped.standardError.contains("\u{1B}"))
        #expect(!piped.standardError.contains("migrate: paths:"))
    }

    /// What a terminal shows: on each line, what follows its last carriage return and erase.
    static func screen(_ output: String) -> String {
        output.components(separatedBy: "\n").map { $0.components(separatedBy: "\r\u{1B}[K").last ?? "" }.joined(separator: "\n")
    }

    @Test func theProgressLineSaysWhatIsDone() {
        #expect(ProgressDisplay.line(.init(step: "verify A", done: 1 << 20, total: 4 << 20, unit: .bytes)) == "verify A: 1.0 MiB of 4.0 MiB (25%)")
        #expect(ProgressDisplay.line(.init(step: "migrate: paths", done: 2, total: 3, unit: .items)) == "migrate: paths: 2 of 3 (66%)")
        #expect(ProgressDisplay.line(.init(step: "pack", done: 5 << 20, total: 4 << 20, unit: .bytes)) == "pack: 4.0 MiB of 4.0 MiB (100%)")
        #expect(ProgressDisplay.line(.init(step: "capture", done: 0, total: nil, unit: .bytes, seconds: 2.7)) == "capture: 2 s")
        #expect(ProgressDisplay.line(.init(step: "leak scan", done: 3 << 10, total: nil, unit: .bytes)) == "leak scan: 3.0 KiB")
    }
}
