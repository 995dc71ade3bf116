import FixtureKit

/// `fixturekit backup STORE`: a verified backup archive of a live store.
struct BackupCommand: Command {
    static let configuration = CommandConfiguration(
        name: "backup",
        abstract: "Pack a consistent snapshot of a live store into a verified backup archive.",
        discussion: """
            Copies the store through SQLite's online backup API (every committed transaction, those in
            the -wal too; an app may keep writing), packs it with manifest.json and SHA256SUMS into
            DIR/STORE.backup-<UTC time>.tar.zst and its .sha256 (mode 0600, never wider than the store),
            recording the store's path and its files' owners and modes, reads the archive back, and keeps
            the last N backups of this store (never one a pending upgrade or restore needs). Refused while
            an upgrade or restore of the store runs. Exit status: 0 written and verified, 2 could not read
            or write, or another run holds the store.
            """,
        arguments: [ArgumentDefinition(name: "store", help: "The store's main file, e.g. App.sqlite.")],
        options: [
            .option("--to", value: "DIR", help: "The backup folder (default: .fixturekit-backups beside the store)."),
            .option("--keep", value: "N", help: "Backups of the store kept (default 3)."),
            .json,
        ])

    var store: String
    var folder: String?
    var keep: Int
    var json: Bool

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Self.configuration.parse(arguments)
        store = parsed.positionals[0]
        folder = parsed.value("--to")
        keep = try parsed.keep()
        json = parsed.flag("--json")
    }

    func run(_ console: Console) throws -> ExitCode {
        let result = try StoreBackup.backup(store: store, to: folder, keep: keep)
        let archive = result.archive
        console.message("\(archive.path): \(Formatting.count(archive.files.count, "file")), \(Formatting.bytes(archive.bytes)) packed into \(Formatting.bytes(archive.size)), verified")
        for removed in result.removed { console.message("\(removed): removed (keeping the last \(keep))") }
        if json { console.output(Formatting.json(result)) }
        return .success
    }
}
