import FixtureKit

/// `fixturekit restore FILE STORE` and `fixturekit restore --pending STORE`.
struct RestoreCommand: Command {
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
        arguments: [
            ArgumentDefinition(name: "file", help: "The backup archive (with --pending: the store)."),
            ArgumentDefinition(name: "store", help: "The store's main file to replace.", isOptional: true),
        ],
        options: [.flag("--pending", help: "Finish the interrupted upgrade or restore of the store."), .json])

    var archive: String?
    var store: String
    var json: Bool

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Self.configuration.parse(arguments)
        if parsed.flag("--pending") {
            guard parsed.positionals.count == 1 else { throw UsageError("'--pending' takes the store alone") }
            store = parsed.positionals[0]
        } else {
            guard parsed.positionals.count == 2 else { throw UsageError("missing expected argument '<store>'") }
            archive = parsed.positionals[0]
            store = parsed.positionals[1]
        }
        json = parsed.flag("--json")
    }

    func run(_ console: Console) throws -> ExitCode {
        guard let archive else {
            let recovery = try Upgrade.finishPending(store: store)
            console.message(recovery.map { UpgradeText.line($0, store: store) } ?? "\(store): nothing pending")
            if json { console.output(Formatting.json(recovery)) }
            return .success
        }
        let result = try StoreRestore.restore(archive: archive, store: store)
        for line in UpgradeText.lines(result) { console.message(line) }
        if json { console.output(Formatting.json(result)) }
        return .success
    }
}
