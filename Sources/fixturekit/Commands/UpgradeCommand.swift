import FixtureKit

/// `fixturekit upgrade STORE --config FILE`: backup-before-migrate on a live store.
struct UpgradeCommand: Command {
    static let store = Argument<String>("store", help: "The store's main file, e.g. App.sqlite.")
    static let backups = Option<String?>("--backups", value: "DIR", shownDefault: ".fixturekit-backups beside the store", help: "The backup folder.", completion: .folder)
    static let noDataDiff = Flag("--no-data-diff", help: "Do not compare the migrated store's values with the backup's.")
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
            is unknown or newer, no disk space, the backup could not be written or restored, or a step
            could not run for want of the machine (a full disk, an I/O error: the backup was restored,
            and the message says so); 130 or 143 interrupted by SIGINT or SIGTERM.
            """,
        arguments: [store.erased],
        options: [Shared.requiredConfig.erased, backups.erased, Shared.keep.erased, noDataDiff.erased, Shared.json.erased])

    var store: String
    var config: String
    var options: UpgradeOptions
    var json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        store = try parsed.get(Self.store)
        config = try parsed.get(Shared.requiredConfig)
        options = UpgradeOptions(backups: try parsed.get(Self.backups), keep: try parsed.get(Shared.keep).value, compareValues: !parsed.get(Self.noDataDiff))
        json = parsed.get(Shared.json)
    }

    func run(_ console: Console) throws -> ExitCode {
        let configuration = try CorpusConfiguration.load(config)
        var options = self.options
        // SIGINT and SIGTERM stop the upgrade cleanly: the backup is restored.
        if console.handlesSignals { options.cancellation = Interruption.install() }
        let result = try Upgrade.upgrade(store: store, configuration: configuration, configurationPath: config, options: options)
        for line in UpgradeText.lines(result) {
            if line.hasPrefix("FAIL") || line.contains(": warning: ") || result.outcome == .restored { console.message(line) } else { console.info(line) }
        }
        if let interrupted = result.interrupted {
            console.error("upgrade: \(store): interrupted: fixturekit received \(interrupted); the store set was restored from its backup")
        } else if let failure = result.failure {
            let why = failure.message.flatMap { $0.split(separator: "\n").first.map { ": \($0)" } } ?? ""
            // The machine's failure (a full disk) is told as such, and is no failed check.
            let how = result.couldNotRun == true ? "could not run for want of the machine (a full disk, an I/O error)" : "failed"
            console.error("upgrade: \(store): \(failure.name) \(how)\(why); the store set was restored from its backup")
        }
        if json { console.output(Formatting.json(result)) }
        if result.interrupted != nil { return .interrupted(by: options.cancellation?.reason) }
        guard result.outcome == .restored else { return .success }
        return result.couldNotRun == true ? .couldNotWork : .checkFailed
    }
}
