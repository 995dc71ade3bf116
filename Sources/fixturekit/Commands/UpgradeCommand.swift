import FixtureKit

/// `fixturekit upgrade STORE --config FILE`: backup-before-migrate on a live store.
struct UpgradeCommand: Command {
    static let store = Argument<String>("store", help: "The store's main file, e.g. App.sqlite.")
    static let backups = Option<String?>("--backups", value: "DIR", shownDefault: ".fixturekit-backups beside the store", help: "The backup folder.", completion: .folder)
    static let configuration = CommandConfiguration(
        name: "upgrade",
        abstract: "Migrate a live store to the current version, with a verified backup and automatic restore.",
        discussion: """
            Takes the store's exclusive lock, checks it (quick_check, its version from userVersions or
            versionQuery, a chain of stages, free disk), packs its main file and -wal as they are into a
            backup archive and reads it back, then runs the stages on the store and checks the result.
            On any failure the backup is restored over the store set. A marker beside the store
            (STORE.fixturekit-upgrade) lets the next upgrade or `restore --pending` finish a killed run.
            Exit status: 0 upgraded or already current, 1 a stage or check failed (the backup was
            restored) or quick_check failed, 2 the store is in use, its version unknown or newer, no
            disk space, or the backup could not be written or restored.
            """,
        arguments: [store.erased],
        options: [Shared.requiredConfig.erased, backups.erased, Shared.keep.erased, Shared.json.erased])

    var store: String
    var config: String
    var options: UpgradeOptions
    var json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        store = try parsed.get(Self.store)
        config = try parsed.get(Shared.requiredConfig)
        options = UpgradeOptions(backups: try parsed.get(Self.backups), keep: try parsed.get(Shared.keep).value)
        json = parsed.get(Shared.json)
    }

    func run(_ console: Console) throws -> ExitCode {
        let result = try Upgrade.upgrade(store: store, configuration: try CorpusConfiguration.load(config), configurationPath: config, options: options)
        for line in UpgradeText.lines(result) {
            if line.hasPrefix("FAIL") || result.outcome == .restored { console.message(line) } else { console.info(line) }
        }
        if let failure = result.failure {
            let why = failure.message.flatMap { $0.split(separator: "\n").first.map { ": \($0)" } } ?? ""
            console.error("upgrade: \(store): \(failure.name) failed\(why); the store set was restored from its backup")
        }
        if json { console.output(Formatting.json(result)) }
        return result.outcome == .restored ? .checkFailed : .success
    }
}
