import FixtureKit

/// `fixturekit freeze STORE --version V`: capture, anonymize, sums and pack in one step.
struct FreezeCommand: Command {
    static let configuration = CommandConfiguration(
        name: "freeze",
        abstract: "Capture, anonymize, checksum and pack a store as the fixture of a version, in one step.",
        discussion: """
            For release pipelines: the fixture is written into the corpus of FILE (its anonymization rules
            applied before anything lands there) and packed beside it with its .sha256. Prints
            `<sha256>  <archive>` on stdout, as sha256sum does. A corpus without rules is refused unless
            the store is declared synthetic: --no-anonymize, or "anonymize": false.
            """,
        arguments: [ArgumentDefinition(name: "store", help: "The store's main file, named as the corpus' \"store\".")],
        options: [
            .option("--version", value: "V", help: "The shipped version (required)."),
            .option("--config", value: "FILE", help: "The corpus configuration (default: MigrationFixtures/fixturekit.json)."),
            .option("--mode", value: "MODE", help: "snapshot (default), checkpoint or raw."),
            .flag("--force", help: "Replace the version's fixture and archive, and their lines in fixturekit.lock."),
            .flag("--no-anonymize", help: "Do not apply the corpus' rules: the store holds synthetic data only."),
            .json,
        ]
    )

    var store: String
    var version: String
    var config: String
    var mode: CaptureMode
    var noAnonymize: Bool
    var force: Bool
    var json: Bool

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Self.configuration.parse(arguments)
        store = parsed.positionals[0]
        version = try parsed.requiredVersion()
        config = parsed.value("--config") ?? "MigrationFixtures/fixturekit.json"
        mode = try parsed.captureMode()
        force = parsed.flag("--force")
        noAnonymize = parsed.flag("--no-anonymize")
        json = parsed.flag("--json")
    }

    func run(_ console: Console) throws -> ExitCode {
        var pack = PackOptions()
        pack.modificationTime = try PackOptions.modificationTime(sourceDateEpoch: console.environment["SOURCE_DATE_EPOCH"])
        pack.force = force
        let anonymize = CaptureAnonymization(optOut: noAnonymize, environment: console.environment)
        let result = try Freeze.freeze(store: store, version: version, configPath: config, mode: mode, pack: pack, anonymize: anonymize)
        console.message("\(result.fixture): frozen (\(mode.rawValue)); \(result.archive.archive): \(Formatting.bytes(result.archive.size))")
        for line in LockText.report(result.lock, lock: LockText.lockPath(besideFixture: result.fixture)) { console.message(line) }
        console.output(json ? Formatting.json(result) : "\(result.archive.sha256)  \(result.archive.archive)")
        return .success
    }
}
