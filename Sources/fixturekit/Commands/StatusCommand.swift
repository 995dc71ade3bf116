import FixtureKit

/// `fixturekit status`: the support matrix at a glance.
struct StatusCommand: Command {
    static let configuration = CommandConfiguration(
        name: "status",
        abstract: "Show every version of the corpus: fixture, archive, model, rows, checksums, stage chain, problems.",
        discussion: """
            One row per version that the configuration names or the corpus holds: supported or not,
            fixture folder, archive and its SHA-256, capture mode and sidecars, model identity, rows,
            whether SHA256SUMS verifies (folders and archives, not --deep), the tables each fixture
            leaves empty (migrate can check no value of theirs from it), and the chain of stages to
            the current version. Problems are listed in plain words. Nothing is written.
            Exit status: 0 no problem, 1 a problem, 2 something could not be read (the configuration,
            the corpus folder, an archive).
            """,
        options: [Shared.config.erased, Shared.json.erased]
    )

    var config: String
    var json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        config = try parsed.get(Shared.config)
        json = parsed.get(Shared.json)
    }

    func run(_ console: Console) throws -> ExitCode {
        let status = try CorpusStatus.read(config: config)
        let lines = StatusText.lines(status)
        for (index, line) in lines.enumerated() {
            // `--quiet` keeps the problems and the last line.
            if line.plain.hasPrefix("problem: ") || line.plain.hasPrefix("warning: ") || index == lines.count - 1 && !status.passed { console.message(line) } else { console.info(line) }
        }
        if json { console.output(Formatting.json(status)) }
        if status.passed { return .success }
        return status.problems.contains(where: \.isUnreadable) ? .couldNotWork : .checkFailed
    }
}
