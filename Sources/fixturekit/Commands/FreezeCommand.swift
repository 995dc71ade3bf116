import FixtureKit

/// `fixturekit freeze STORE --version V`: capture, anonymize, sums and pack in one step.
struct FreezeCommand: Command {
    static let store = Argument<String>("store", help: "The store's main file, named as the corpus' \"store\".")
    static let corpus = Option<String?>(
        "--corpus", value: "DIR", help: "The corpus folder: its fixturekit.json is the configuration (instead of --config).", completion: .folder)
    static let force = Flag("--force", help: "Replace the version's fixture and archive, and their lines in fixturekit.lock.")
    static let noAnonymize = Flag("--no-anonymize", help: "Do not apply the corpus' rules: the store holds synthetic data only.")
    static let configuration = CommandConfiguration(
        name: "freeze",
        abstract: "Capture, anonymize, checksum and pack a store as the fixture of a version, in one step.",
        discussion: """
            For release pipelines: the fixture is written into the corpus of FILE (its anonymization rules
            applied before anything lands there) and packed beside it with its .sha256. Prints
            `<sha256>  <archive>` on stdout, as sha256sum does. A corpus without fixturekit.json is
            refused: `fixturekit init` writes one. A corpus without rules is refused unless the store is
            declared synthetic: --no-anonymize, or "anonymize": false.
            """,
        arguments: [store.erased],
        options: [Shared.version.erased, Shared.config.erased, corpus.erased, Shared.mode.erased, force.erased, noAnonymize.erased, Shared.json.erased]
    )

    var store: String
    var version: String
    var config: String
    var mode: CaptureMode
    var noAnonymize: Bool
    var force: Bool
    var json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        store = try parsed.get(Self.store)
        version = try parsed.get(Shared.version)
        if let corpus = try parsed.get(Self.corpus) {
            guard parsed.values[Shared.config.declaration.name] == nil else {
                throw UsageError("give '--corpus' or '--config', not both")
            }
            config = corpus.appendingPathForDisplay(CorpusConfiguration.fileName)
        } else {
            config = try parsed.get(Shared.config)
        }
        mode = try parsed.get(Shared.mode)
        force = parsed.get(Self.force)
        noAnonymize = parsed.get(Self.noAnonymize)
        json = parsed.get(Shared.json)
    }

    func run(_ console: Console) throws -> ExitCode {
        var pack = PackOptions()
        pack.modificationTime = try PackOptions.modificationTime(sourceDateEpoch: console.environment["SOURCE_DATE_EPOCH"])
        let anonymize = CaptureAnonymization(optOut: noAnonymize, environment: console.environment)
        let result = try Freeze.freeze(
            store: store, version: version, configPath: config, mode: mode, force: force, anonymize: anonymize, pack: pack, progress: console.work)
        if result.replacedExisting {
            console.error("freeze: \(result.fixture): replaced the existing fixture of \(version) (--force)")
        }
        console.info("\(result.fixture): frozen (\(mode.rawValue)\(noAnonymize ? ", not anonymized" : "")); \(result.archive.archive): \(Formatting.bytes(result.archive.size))")
        for line in LockText.report(result.lock, lock: LockText.lockPath(besideFixture: result.fixture)) { console.message(line) }
        for warning in result.warnings { console.message("freeze: \(config): warning: \(warning)") }
        console.output(json ? Formatting.json(result) : "\(result.archive.sha256)  \(result.archive.archive)")
        return .success
    }
}
