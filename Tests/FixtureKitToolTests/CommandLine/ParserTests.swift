import Foundation
import Testing
@testable import FixtureKitTestSupport
@testable import FixtureKitTool

/// The command line: parsing as a pure function of its words, usage and help
/// derived from the declaration.
@Suite struct ParserTests {
    static let input = Argument<String>("input", help: "In.")
    static let more = Arguments<String>("more", help: "More.")
    static let output = Option<String?>("--output", "-o", value: "FILE", help: "Out.")
    static let configuration = CommandConfiguration(
        name: "demo", abstract: "A command for the parser's tests.",
        arguments: [input.erased, more.erased],
        options: [Shared.json.erased, output.erased])

    @Test func parsesFlagsOptionsAndPositionalsInAnyOrder() throws {
        let parsed = try Self.configuration.parse(["a", "--json", "-o", "x", "b", "--output=y", "--", "--not-an-option", "-"])
        #expect(parsed.positionals == ["a", "b", "--not-an-option", "-"])
        #expect(try parsed.get(Self.input) == "a")
        #expect(try parsed.get(Self.more) == ["b", "--not-an-option", "-"])
        #expect(parsed.get(Shared.json))
        #expect(parsed.values["--output"] == ["x", "y"])
        #expect(try parsed.get(Self.output) == "y")
    }

    @Test(arguments: [
        (["--bogus", "a"], "unknown option '--bogus'"),
        (["a", "-o"], "missing value for '-o <FILE>'"),
        (["--json=yes", "a"], "option '--json' takes no value"),
        ([], "missing expected argument '<input>'"),
    ])
    func rejectsBadCommandLines(arguments: [String], message: String) {
        #expect(throws: UsageError(message)) { try Self.configuration.parse(arguments) }
    }

    @Test func rejectsExtraPositionals() throws {
        let sums = try SumsCommand(arguments: ["a", "b"])
        #expect(sums.folders == ["a", "b"])
        #expect(throws: UsageError("unexpected argument 'b'")) {
            try CommandConfiguration(name: "one", abstract: "", arguments: [Argument<String>("x", help: "").erased]).parse(["a", "b"])
        }
        #expect(throws: UsageError("'--jobs' needs a positive number, not '0'")) { try VerifyCommand(arguments: ["--jobs", "0"]) }
    }

    @Test func verifyDefaultsToTheCorpusFolder() throws {
        #expect(try VerifyCommand(arguments: []).paths == ["MigrationFixtures"])
        #expect(try VerifyCommand(arguments: ["--json", "x", "y"]).paths == ["x", "y"])
    }

    @Test func usageAndHelpAreDerivedFromTheDeclaration() {
        #expect(Self.configuration.usage == "fixturekit demo <input> [<more> ...] [--json] [--output <FILE>] [--quiet] [--verbose]")
        #expect(Self.configuration.help == """
            OVERVIEW: A command for the parser's tests.

            USAGE: fixturekit demo <input> [<more> ...] [--json] [--output <FILE>] [--quiet] [--verbose]

            ARGUMENTS:
              <input>              In.
              <more>               More.

            OPTIONS:
              --json               Print machine-readable JSON on stdout.
              --output, -o <FILE>  Out.
              --quiet, -q          Print only problems and errors.
              --verbose, -v        Also print each step, with its time.
              --help, -h           Show help information.

            """)
    }
}
