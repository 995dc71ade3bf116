/// `fixturekit completions bash|zsh|fish`: a shell completion script.
struct CompletionsCommand: Command {
    static let shell = Argument<Shell>("shell", help: "bash, zsh or fish.", completion: .choices(Shell.allCases.map(\.rawValue)))
    static let configuration = CommandConfiguration(
        name: "completions",
        abstract: "Print a shell completion script, generated from the same declarations as --help.",
        discussion: """
            bash: `source <(fixturekit completions bash)` in ~/.bashrc. zsh: save the script as
            _fixturekit in a folder of $fpath. fish: save it as ~/.config/fish/completions/fixturekit.fish.
            """,
        arguments: [shell.erased])

    var shell: Shell

    init(_ parsed: ParsedArguments) throws(UsageError) {
        shell = try parsed.get(Self.shell)
    }

    func run(_ console: Console) throws -> ExitCode {
        console.output(Completions.script(for: shell, commands: Tool.visibleCommands))
        return .success
    }
}

/// `fixturekit generate-manual`: the manual page, for `make install`.
struct ManualCommand: Command {
    static let configuration = CommandConfiguration(
        name: "generate-manual",
        abstract: "Print the manual page fixturekit.1 (roff), generated from the same declarations as --help.",
        isHidden: true)

    init(_ parsed: ParsedArguments) throws(UsageError) {}

    func run(_ console: Console) throws -> ExitCode {
        console.output(ManualPage.render(version: Tool.version, abstract: Tool.abstract, commands: Tool.visibleCommands))
        return .success
    }
}
