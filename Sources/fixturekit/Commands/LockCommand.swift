import FixtureKit

/// `fixturekit lock [DIR]`: (re)writes the corpus' fixturekit.lock.
struct LockCommand: Command {
    static let configuration = CommandConfiguration(
        name: "lock",
        abstract: "Write fixturekit.lock, the shipped history of a corpus: for adoption, or after a reviewed change.",
        discussion: """
            Records, one fact per line, the SHA-256 of every fixture's SHA256SUMS, the content hash of
            its store, the SHA-256 of every archive, and of every stage file that shipped with a frozen
            version (a stage whose "to" is a version the corpus holds). capture and freeze add their
            version's lines themselves; verify, migrate, upgrade and status fail on any difference.
            Review the lock's diff before committing it: every changed line is shipped history that
            changed. Exit status: 0 written, 2 could not read the corpus.
            """,
        arguments: [ArgumentDefinition(name: "corpus", help: "The corpus folder, holding fixturekit.json (default: MigrationFixtures).", isOptional: true)],
        options: [.json, .quiet]
    )

    var corpus: String
    var json: Bool
    var quiet: Bool

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Self.configuration.parse(arguments)
        corpus = parsed.positionals.first ?? "MigrationFixtures"
        json = parsed.flag("--json")
        quiet = parsed.flag("--quiet")
    }

    func run(_ console: Console) throws -> ExitCode {
        let edits = try CorpusLock.write(config: corpus.appendingPathForDisplay(CorpusConfiguration.fileName))
        let lock = corpus.appendingPathForDisplay(CorpusLock.fileName)
        let changed = edits.filter(\.changed)
        if !quiet {
            for line in LockText.lines(changed, lock: lock) { console.message(line) }
            let lines = Formatting.count(edits.filter { $0.new != nil }.count, "line")
            console.message(changed.isEmpty
                ? "\(lock): up to date (\(lines))"
                : "\(lock): \(lines), \(Formatting.count(changed.count, "change")) (review them before committing)")
        }
        if json { console.output(Formatting.json(edits)) }
        return .success
    }
}
