import FixtureKit

/// `fixturekit capture STORE --version V`: freezes a live store into a fixture.
struct CaptureCommand: Command {
    static let store = Argument<String>("store", help: "The store's main file, e.g. App.sqlite.")
    static let force = Flag("--force", help: "Replace an existing fixture of this version, and its lines in fixturekit.lock.")
    static let noAnonymize = Flag("--no-anonymize", help: "Do not apply the corpus' rules: the store holds synthetic data only.")
    static let configuration = CommandConfiguration(
        name: "capture",
        abstract: "Freeze a live store set into the fixture of a version.",
        discussion: """
            Modes: snapshot (default) is a consistent online copy through SQLite's backup API that
            leaves the source untouched; checkpoint folds the source's WAL into its main file, then
            copies it while no writer can start; raw copies the main file with its -wal and -shm as
            one consistent set. Writes manifest.json and SHA256SUMS; the fixture folder appears whole.
            The corpus' fixturekit.json must name anonymization rules ("anonymize"): they are applied
            before the fixture is installed (the key is read from the variable the rules name), and
            --mode raw is then refused. A corpus without rules is refused, unless the store is declared
            synthetic: --no-anonymize, or "anonymize": false (the manifest records it).
            """,
        arguments: [store.erased],
        options: [Shared.version.erased, Shared.corpus.erased, Shared.mode.erased, force.erased, noAnonymize.erased, Shared.json.erased]
    )

    var store: String
    var version: String
    var corpus: String
    var mode: CaptureMode
    var force: Bool
    var noAnonymize: Bool
    var json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        store = try parsed.get(Self.store)
        version = try parsed.get(Shared.version)
        corpus = try parsed.get(Shared.corpus)
        mode = try parsed.get(Shared.mode)
        force = parsed.get(Self.force)
        noAnonymize = parsed.get(Self.noAnonymize)
        json = parsed.get(Shared.json)
    }

    func run(_ console: Console) throws -> ExitCode {
        let anonymize = CaptureAnonymization(optOut: noAnonymize, environment: console.environment)
        let result = try Capture.capture(store: store, version: version, corpus: corpus, mode: mode, force: force, anonymize: anonymize, progress: console.work)
        CaptureText.report(result, store: store, mode: mode, optedOutBy: noAnonymize ? "--no-anonymize" : "\"anonymize\": false", console: console)
        for line in LockText.report(result.lock, lock: corpus.appendingPathForDisplay(CorpusLock.fileName)) { console.message(line) }
        if json { console.output(Formatting.json(result.manifest)) }
        return .success
    }
}

/// The human report of `capture` and `freeze`.
enum CaptureText {
    static func report(_ result: CaptureResult, store: String, mode: CaptureMode, optedOutBy: String, console: Console) {
        if result.replacedExisting {
            console.error("capture: \(result.fixture): replaced the existing fixture of \(result.manifest.version) (--force)")
        }
        let rows = result.manifest.tables.values.reduce(0, +)
        console.info("\(result.fixture): captured \(store) (\(mode.rawValue)): \(Formatting.count(result.sums.entries.count, "file")), \(Formatting.count(result.manifest.tables.count, "table")), \(Formatting.count(rows, "row"))")
        if let anonymization = result.manifest.anonymization {
            console.info(anonymization.mode == Manifest.Anonymization.optedOutMode
                ? "\(result.fixture): not anonymized (\(optedOutBy)): synthetic data, as the manifest records"
                : "\(result.fixture): anonymized by the corpus' rules: \(Formatting.count(anonymization.columns?.count ?? 0, "column")) with a rule, leak scan passed")
        }
    }
}
