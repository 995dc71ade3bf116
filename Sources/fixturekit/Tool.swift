import FixtureKit

/// The `fixturekit` command: finds the subcommand and runs it.
enum Tool {
    static var version: String { FixtureKitLibrary.version }

    /// Every command, in the order help lists them.
    static var commands: [any Command.Type] { [
        InitCommand.self,
        SumsCommand.self,
        VerifyCommand.self,
        InspectCommand.self,
        SQLCommand.self,
        CaptureCommand.self,
        CheckpointCommand.self,
        AnonymizeCommand.self,
        PackCommand.self,
        UnpackCommand.self,
        ListCommand.self,
        FreezeCommand.self,
        MigrateCommand.self,
        LintCommand.self,
        ProbeCommand.self,
        DriftCommand.self,
        UpgradeCommand.self,
        BackupCommand.self,
        RestoreCommand.self,
        StatusCommand.self,
        HashCommand.self,
        LockCommand.self,
        CompletionsCommand.self,
        ManualCommand.self,
    ] }

    /// The commands help, the completions and the manual show.
    static var visibleCommands: [CommandConfiguration] { commands.map { $0.configuration }.filter { !$0.isHidden } }

    static let abstract = "Freeze the SQLite stores of shipped app versions as checksummed fixtures, and prove they still migrate."

    /// Runs the tool on `arguments` (without the program's name) and returns the
    /// exit status: 2 when a write to stdout or stderr failed (``Console/settle(_:)``).
    static func main(_ arguments: [String], console: Console) -> ExitCode {
        console.settle(dispatch(arguments, console: console))
    }

    private static func dispatch(_ arguments: [String], console: Console) -> ExitCode {
        // The hints, reports and status lines the library writes name the tool's commands.
        FixtureKitError.Remedy.useWording(FixtureKitError.Remedy.commandLine, terms: FixtureKitError.Term.commandLine)
        guard let first = arguments.first else {
            return usageError(UsageError("missing command"), usage: rootUsage, helpCommand: "fixturekit --help", console: console)
        }
        switch first {
        case "--help", "-h":
            console.output(rootHelp)
            return .success
        case "--version":
            console.output(version)
            return .success
        case "help":
            guard arguments.count > 1 else {
                console.output(rootHelp)
                return .success
            }
            guard let command = command(named: arguments[1]) else {
                return usageError(UsageError("unknown command '\(arguments[1])'"), usage: rootUsage, helpCommand: "fixturekit --help", console: console)
            }
            console.output(command.configuration.help)
            return .success
        default:
            break
        }
        guard let command = command(named: first) else {
            let error = first.hasPrefix("-") ? UsageError("unknown option '\(first)'") : UsageError("unknown command '\(first)'")
            return usageError(error, usage: rootUsage, helpCommand: "fixturekit --help", console: console)
        }
        return run(command, Array(arguments.dropFirst()), console: console)
    }

    private static func run(_ type: any Command.Type, _ arguments: [String], console: Console) -> ExitCode {
        let configuration = type.configuration
        let options = arguments.prefix(while: { $0 != "--" })
        if options.contains("--help") || options.contains("-h") {
            console.output(configuration.help)
            return .success
        }
        let command: any Command
        do {
            let parsed = try configuration.parse(arguments)
            console.verbosity = try OutputOptions(parsed).verbosity
            command = try type.init(parsed)
            try command.validate()
        } catch {
            return usageError(error, usage: configuration.usage, helpCommand: "fixturekit \(configuration.name) --help", console: console)
        }
        let progress = ProgressDisplay(console: console)
        defer { progress.finish() }
        do {
            return try command.run(console)
        } catch let error as any FixtureKitFailure {
            progress.finish()
            let error = FixtureKitError(error)
            // `pack -o - | head -c1`: the reader went away, as for any output (``Console/settle(_:)``).
            if let cause = error.cause as? FileSystemError, cause.code == .brokenPipe, cause.path == "stdout" { return .brokenPipe }
            console.error(error.description)
            return ExitCode(error.category)
        } catch {
            progress.finish()
            console.error("\(configuration.name): \(error)")
            return .couldNotWork
        }
    }

    private static func command(named name: String) -> (any Command.Type)? {
        commands.first { $0.configuration.name == name }
    }

    private static func usageError(_ error: UsageError, usage: String, helpCommand: String, console: Console) -> ExitCode {
        console.message("Error: \(error.message)")
        console.lines("Usage: \(usage)")
        console.message("  See '\(helpCommand)'.")
        return .usage
    }

    static let rootUsage = "fixturekit <command> [<arguments> ...] [--help]"

    static var rootHelp: String {
        var text = "OVERVIEW: \(abstract)\n\nUSAGE: \(rootUsage)\n\nOPTIONS:\n"
        text += HelpTable.render([("--version", "Show the version."), ("-h, --help", "Show help information.")])
        text += "\nSUBCOMMANDS:\n"
        text += HelpTable.render(visibleCommands.map { ($0.name, $0.abstract) })
        text += "\n  See 'fixturekit help <command>' for detailed help."
        return text
    }
}
