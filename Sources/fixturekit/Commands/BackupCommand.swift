import FixtureKit

/// `fixturekit backup STORE`: a verified backup archive of a live store.
struct BackupCommand: Command {
    static let store = Argument<String>("store", help: "The store's main file, e.g. App.sqlite.")
    static let folder = Option<String?>("--to", value: "DIR", shownDefault: ".fixturekit-backups beside the store", help: "The backup folder.", completion: .folder)
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
        arguments: [store.erased],
        options: [folder.erased, Shared.keep.erased, Shared.json.erased])

    var store: String
    var folder: String?
    var keep: Int
    var json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        store = try parsed.get(Self.store)
        folder = try parsed.get(Self.folder)
        keep = try parsed.get(Shared.keep).value
        json = parsed.get(Shared.json)
    }

    func run(_ console: Console) throws -> ExitCode {
        let result = try StoreBackup.backup(store: store, to: folder, keep: keep)
        let archive = result.archive
        console.info("\(archive.path): \(Formatting.count(archive.files.count, "file")), \(Formatting.bytes(archive.bytes)) packed into \(Formatting.bytes(archive.size)), verified")
        for removed in result.removed { console.info("\(removed): removed (keeping the last \(keep))") }
        if json { console.output(Formatting.json(result)) }
        return .success
    }
}
