import Foundation
import Testing
@testable import FixtureKitTestSupport
@testable import FixtureKitTool

/// The tool as a whole: help and version, usage errors, the documented exit codes
/// of the built executable (CommandLine/ParserTests parses words).
@Suite struct ToolTests {
    @Test func helpGoesToStandardOutputWithExitZero() {
        for arguments in [["--help"], ["-h"], ["help"]] {
            let result = fixturekit(arguments)
            #expect(result.status == 0)
            #expect(result.standardOutput.hasPrefix("OVERVIEW: Freeze the SQLite stores"))
            #expect(result.standardOutput.contains("SUBCOMMANDS:\n  init "))
            #expect(!result.standardOutput.contains("generate-manual"))
            #expect(result.standardError == "")
        }
        let verifyHelp = fixturekit("help", "verify")
        #expect(verifyHelp.status == 0)
        #expect(verifyHelp.standardOutput == VerifyCommand.configuration.help + "\n")
        #expect(fixturekit("verify", "--help").standardOutput == verifyHelp.standardOutput)
        #expect(fixturekit("sums", "x", "-h").status == 0)
    }

    @Test func versionIsPrinted() {
        let result = fixturekit("--version")
        #expect(result.status == 0)
        #expect(result.standardOutput == Tool.version + "\n")
    }

    @Test func usageErrorsExit64WithUsageOnStandardError() {
        let unknown = fixturekit("frobnicate")
        #expect(unknown.status == 64)
        #expect(unknown.standardOutput == "")
        #expect(unknown.standardError == """
            Error: unknown command 'frobnicate'
            Usage: fixturekit <command> [<arguments> ...] [--help]
              See 'fixturekit --help'.

            """)
        let option = fixturekit("verify", "--frob")
        #expect(option.status == 64)
        #expect(option.standardError == """
            Error: unknown option '--frob'
            Usage: fixturekit verify [<path> ...] [--deep] [--json] [--jobs <N>] [--quiet] [--verbose]
              See 'fixturekit verify --help'.

            """)
        #expect(fixturekit("sums").standardError.hasPrefix("Error: missing expected argument '<folder>'\n"))
        #expect(fixturekit().status == 64)
        #expect(fixturekit("help", "nope").status == 64)
        #expect(fixturekit("--nope").standardError.hasPrefix("Error: unknown option '--nope'\n"))
    }

    @Test func theBuiltToolExitsWithTheDocumentedCodes() throws {
        let folder = try TemporaryFolder()
        try folder.write("f/a", "1")
        #expect(try run([toolExecutable, "sums", folder.url("f")]).status == 0)
        #expect(try run([toolExecutable, "verify", folder.url("f")]).status == 0)
        try folder.write("f/a", "2")
        let changed = try run([toolExecutable, "verify", folder.url("f")])
        #expect(changed.status == 1)
        #expect(changed.standardError.hasPrefix("fixturekit: verify: \(folder.url("f/a")): changed\n"))
        #expect(try run([toolExecutable, "verify", folder.url("missing")]).status == 2)
        #expect(try run([toolExecutable, "nope"]).status == 64)
        let version = try run([toolExecutable, "--version"])
        #expect(version.standardOutput == Tool.version + "\n")
    }
}
