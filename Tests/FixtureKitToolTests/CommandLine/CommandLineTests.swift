import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport
@testable import FixtureKitTool

/// The command line as the best tools have it: usage lines that show what is
/// required, errors that point to the command's help, --quiet and --verbose on
/// every command (CompletionsTests: completions and a manual page from the same
/// declarations).
@Suite struct CommandLineTests {
    static var allCommands: [CommandConfiguration] { Tool.commands.map { $0.configuration } }

    @Test func requiredOptionsAreShownWithoutBrackets() {
        let usage = Dictionary(uniqueKeysWithValues: Self.allCommands.map { ($0.name, $0.usage) })
        #expect(usage["upgrade"] == "fixturekit upgrade <store> --config <FILE> [--backups <DIR>] [--keep <N>] [--no-data-diff] [--json] [--quiet] [--verbose]")
        #expect(usage["anonymize"]?.hasPrefix("fixturekit anonymize <path> --rules <FILE> [--output <FILE>]") == true)
        #expect(usage["drift"]?.hasPrefix("fixturekit drift <store> --against <FIXTURE> [--json]") == true)
        #expect(usage["capture"]?.hasPrefix("fixturekit capture <store> --version <V> [--corpus <DIR>] [--mode <MODE>]") == true)
        #expect(usage["freeze"]?.hasPrefix("fixturekit freeze <store> --version <V> [--config <FILE>]") == true)
        // The class: a required option is bare in every usage, an optional one bracketed.
        for command in Self.allCommands {
            for option in command.options {
                let bracketed = command.usage.contains("[\(option.synopsis)]")
                #expect(bracketed == !option.isRequired, "\(command.name) \(option.name)")
            }
        }
    }

    @Test func aUsageErrorPointsToTheCommandsHelp() {
        for command in Self.allCommands {
            let result = fixturekit([command.name, "--no-such-option"])
            #expect(result.status == 64, "\(command.name)")
            #expect(result.standardError.hasPrefix("Error: unknown option '--no-such-option'\nUsage: fixturekit \(command.name) "), "\(command.name)")
            #expect(result.standardError.hasSuffix("\n  See 'fixturekit \(command.name) --help'.\n"), "\(command.name): \(result.standardError)")
        }
        let missing = fixturekit("upgrade", "App.sqlite")
        #expect(missing.standardError == """
            Error: missing required option '--config <FILE>'
            Usage: fixturekit upgrade <store> --config <FILE> [--backups <DIR>] [--keep <N>] [--no-data-diff] [--json] [--quiet] [--verbose]
              See 'fixturekit upgrade --help'.

            """)
    }

    @Test func quietAndVerboseAreOnEveryCommand() {
        for command in Self.allCommands {
            let names = command.allOptions.flatMap(\.names)
            #expect(names.contains("--quiet") && names.contains("-q") && names.contains("--verbose") && names.contains("-v"), "\(command.name)")
            let parsed = ParsedArguments(flags: ["--quiet", "--verbose"])
            #expect(throws: UsageError("'--quiet' and '--verbose' cannot be used together")) { try OutputOptions(parsed) }
        }
        let both = fixturekit("verify", "--quiet", "--verbose")
        #expect(both.status == 64)
        #expect(both.standardError.hasPrefix("Error: '--quiet' and '--verbose' cannot be used together\n"), "\(both.standardError)")
    }

    @Test func quietPrintsOnlyProblemsAndVerbosePrintsEachStep() throws {
        let corpus = try NotesCorpus()
        let quiet = fixturekit("verify", "-q", corpus.corpus)
        #expect(quiet.status == 0)
        #expect(quiet.standardError == "")
        let status = fixturekit("status", "-q", "--config", corpus.config)
        #expect(status.status == 0 && status.standardError == "")
        let migrate = fixturekit("migrate", "-q", "--config", corpus.config)
        #expect(migrate.status == 0 && migrate.standardError == "")
        let verbose = fixturekit("verify", "-v", corpus.corpus + "/1.0.0")
        #expect(verbose.status == 0)
        let lines = verbose.standardError.split(separator: "\n")
        #expect(lines.count == 2, "\(verbose.standardError)")
        #expect(lines.first?.hasPrefix("verify \(corpus.corpus)/1.0.0: ") == true)
        #expect(lines.first?.hasSuffix(" s") == true)
        #expect(lines.last?.hasPrefix("\(corpus.corpus)/1.0.0: OK (") == true)
        // A failure is still said with --quiet.
        try corpus.folder.write("MigrationFixtures/1.0.0/extra", "x")
        let failed = fixturekit("verify", "-q", corpus.corpus + "/1.0.0")
        #expect(failed.status == 1)
        #expect(failed.standardError == "fixturekit: verify: \(corpus.corpus)/1.0.0/extra: unlisted\n\(corpus.corpus)/1.0.0: FAILED (1 problem)\n")
    }

    @Test func restorePendingWithoutAStoreSaysTheStoreIsMissing() {
        let result = fixturekit("restore", "--pending")
        #expect(result.status == 64)
        #expect(result.standardError == """
            Error: missing expected argument '<store>': '--pending' needs the store whose upgrade or restore it finishes
            Usage: fixturekit restore <file> <store> [--pending] [--json] [--quiet] [--verbose]
                   fixturekit restore --pending <store> [--json] [--quiet] [--verbose]
              See 'fixturekit restore --help'.

            """)
        #expect(fixturekit("restore", "a.tar.zst").standardError.hasPrefix("Error: missing expected argument '<store>'\n"))
        #expect(fixturekit("restore").standardError.hasPrefix("Error: missing expected argument '<file>'\n"))
    }

    @Test func typedValuesAreCheckedWhenParsed() {
        let cases: [([String], String)] = [
            (["verify", "--jobs", "0"], "'--jobs' needs a positive number, not '0'"),
            (["backup", "x", "--keep", "-1"], "'--keep' needs a positive number, not '-1'"),
            (["migrate", "--shard", "3/2"], "'--shard' needs I/N with 1 <= I <= N, not '3/2'"),
            (["capture", "x", "--version", "1.0.0", "--mode", "copy"], "'--mode' must be snapshot, checkpoint or raw, not 'copy'"),
            (["completions", "tcsh"], "'<shell>' must be bash, zsh or fish, not 'tcsh'"),
            (["unpack", "a", "b", "--max-ratio", "0"], "'--max-ratio' needs a positive number, not '0'"),
        ]
        for (arguments, message) in cases {
            let result = fixturekit(arguments)
            #expect(result.status == 64)
            #expect(result.standardError.hasPrefix("Error: \(message)\n"), "\(arguments): \(result.standardError)")
        }
    }
}
