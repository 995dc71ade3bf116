import FixtureKit

/// `fixturekit restore FILE STORE` and `fixturekit restore --pending STORE`.
struct RestoreCommand: Command {
    static let file = Argument<String?>("file", help: "The backup archive.")
    static let store = Argument<String?>("store", help: "The store's main file to replace (with --pending, the only argument).")
    static let pending = Flag("--pending", help: "Finish the interrupted upgrade or restore of the store.")
    static let configuration = CommandConfiguration(
        name: "restore",
        abstract: "Put a backup archive back in place of a store set, or finish an interrupted upgrade.",
        discussion: """
            Extracts and verifies the archive beside the store first: a damaged archive is refused with
            nothing changed. Refuses a store that another process has open. Then removes the store's
            -wal, -shm and -journal, renames the archive's main file and -wal into place and checks them
            against the archive's digests. With --pending, the only argument is the store: finishes what
            its marker (STORE.fixturekit-upgrade) records, restoring the backup or confirming a migration
            that had committed. The owner, group and mode a backup records are put back (owner and group
            where permitted; a warning says what was not). Refused while an upgrade, backup or restore of
            the store runs. Exit status: 0 restored (or nothing pending), 1 the archive fails its
            checksums, 2 the archive is unreadable, the store is in use, or a file could not be written.
            """,
        usages: ["<file> <store>", "--pending <store>"],
        arguments: [file.erased, store.erased],
        options: [pending.erased, Shared.json.erased])

    var archive: String?
    var store: String
    var json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        let words = parsed.positionals
        if parsed.get(Self.pending) {
            guard !words.isEmpty else { throw UsageError("missing expected argument '<store>': '--pending' needs the store whose upgrade or restore it finishes") }
            guard words.count == 1 else { throw UsageError("unexpected argument '\(words[1])': '--pending' takes the store alone") }
            store = words[0]
        } else {
            guard !words.isEmpty else { throw UsageError("missing expected argument '<file>'") }
            guard words.count == 2 else { throw UsageError("missing expected argument '<store>'") }
            archive = words[0]
            store = words[1]
        }
        json = parsed.get(Shared.json)
    }

    func run(_ console: Console) throws -> ExitCode {
        guard let archive else {
            let recovery = try Upgrade.finishPending(store: store, what: "restore --pending")
            console.info(recovery.map { UpgradeText.line($0, store: store) } ?? "\(store): nothing pending")
            if json { console.output(Formatting.json(recovery)) }
            return .success
        }
        let result = try StoreRestore.restore(archive: archive, store: store)
        let lines = UpgradeText.lines(result)
        for (index, line) in lines.enumerated() { if index == 0 { console.info(line) } else { console.message(line) } }
        if json { console.output(Formatting.json(result)) }
        return .success
    }
}
