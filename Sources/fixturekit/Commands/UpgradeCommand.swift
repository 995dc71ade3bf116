import FixtureKit

/// `fixturekit upgrade STORE --config FILE`: backup-before-migrate on a live store.
struct UpgradeCommand: Command {
    static let configuration = CommandConfiguration(
        name: "upgrade",
        abstract: "Migrate a live store to the current version, with a verified backup and automatic restore.",
        discussion: """
            Takes the store's exclusive lock, checks it (quick_check, its version from userVersions or
            versionQuery, a chain of stages, free disk), packs its main file and -wal as they are into a
            backup archive and reads it back, then runs the stages on the store and checks the result.
            After the stages and checks, every value of the migrated store is compared with the
            backup's, as migrate compares them (--no-data-diff skips that for a store too large for it).
            On any failure the backup is restored over the store set. A marker beside the store
            (STORE.fixturekit-upgrade) lets the next upgrade or `restore --pending` finish a killed run.
            One upgrade, backup or restore of a store runs at a time. A stage runs at most its
            "timeout" (default 6 hours); every process it starts ends with it. SIGINT and SIGTERM end
            the stage, restore the backup, and end fixturekit with the same signal.
            Exit status: 0 upgraded or already current, 1 a stage or check failed (the backup was
            restored) or quick_check failed, 2 the store is in use, another run holds it, its version
            is unknown or newer, no disk space, or the backup could not be written or restored;
            130 or 143 interrupted by SIGINT or SIGTERM.
            """,
        arguments: [ArgumentDefinition(name: "store", help: "The store's main file, e.g. App.sqlite.")],
        options: [
            .option("--config", value: "FILE", help: "The corpus configuration: versions, stages, checks (required)."),
            .option("--backups", value: "DIR", help: "The backup folder (default: .fixturekit-backups beside the store)."),
            .option("--keep", value: "N", help: "Backups of the store kept (default 3)."),
            .flag("--no-data-diff", help: "Do not compare the migrated store's values with the backup's."),
            .json,
        ])

    var store: String
    var config: String
    var options: UpgradeOptions
    var json: Bool

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Self.configuration.parse(arguments)
        store = parsed.positionals[0]
        guard let config = parsed.value("--config") else { throw UsageError("missing required option '--config <FILE>'") }
        self.config = config
        options = UpgradeOptions(backups: parsed.value("--backups"), keep: try parsed.keep(), compareValues: !parsed.flag("--no-data-diff"))
        json = parsed.flag("--json")
    }

    func run(_ console: Console) throws -> ExitCode {
        let configuration = try CorpusConfiguration.load(config)
        if console.handlesSignals { Interruption.install() }
        let result = try Upgrade.upgrade(store: store, configuration: configuration, configurationPath: config, options: options)
        for line in UpgradeText.lines(result) { console.message(line) }
        if let interrupted = result.interrupted {
            console.error("upgrade: \(store): interrupted: fixturekit received \(interrupted); the store set was restored from its backup")
        } else if let failure = result.failure {
            let why = failure.message.flatMap { $0.split(separator: "\n").first.map { ": \($0)" } } ?? ""
            console.error("upgrade: \(store): \(failure.name) failed\(why); the store set was restored from its backup")
        }
        if json { console.output(Formatting.json(result)) }
        if result.interrupted != nil { return .interrupted }
        return result.outcome == .restored ? .checkFailed : .success
    }
}

extension ParsedArguments {
    /// `--keep N` as a positive number; 3 when not given.
    func keep() throws(UsageError) -> Int {
        guard let text = value("--keep") else { return StoreBackup.defaultKeep }
        guard let keep = Int(text), keep > 0 else { throw UsageError("'--keep' needs a positive number, not '\(text)'") }
        return keep
    }
}
