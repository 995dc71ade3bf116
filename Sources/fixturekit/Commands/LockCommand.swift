import FixtureKit

/// `fixturekit lock [DIR]`: (re)writes the corpus' fixturekit.lock.
struct LockCommand: Command {
    static let corpusFolder = Argument<String?>("corpus", help: "The corpus folder, holding fixturekit.json.", shownDefault: Shared.defaultCorpus, completion: .folder)
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
        arguments: [corpusFolder.erased],
        options: [Shared.json.erased]
    )

    var corpus: String
    var json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        corpus = try parsed.get(Self.corpusFolder) ?? Shared.defaultCorpus
        json = parsed.get(Shared.json)
    }

    func run(_ console: Console) throws -> ExitCode {
        let edits = try CorpusLock.write(config: corpus.appendingPathForDisplay(CorpusConfiguration.fileName))
        let lock = corpus.appendingPathForDisplay(CorpusLock.fileName)
        let changed = edits.filter(\.changed)
        do {
            for line in LockText.lines(changed, lock: lock) { console.info(line) }
            let lines = Formatting.count(edits.filter { $0.new != nil }.count, "line")
            console.info(changed.isEmpty
                ? "\(lock): up to date (\(lines))"
                : "\(lock): \(lines), \(Formatting.count(changed.count, "change")) (review them before committing)")
        }
        if json { console.output(Formatting.json(edits)) }
        return .success
    }
}
