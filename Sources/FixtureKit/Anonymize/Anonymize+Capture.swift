import Foundation
import FixtureKitSystem
import FixtureKitModels

/// `capture`'s side of anonymization: whether the corpus has rules, and the
/// opt-out for stores that hold synthetic data only.
public struct CaptureAnonymization: Sendable {
    /// `--no-anonymize`: write the store as it is, and record that in the manifest.
    public var optOut: Bool
    /// Where the key is read from.
    public var environment: [String: String]

    public init(optOut: Bool = false, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.optOut = optOut
        self.environment = environment
    }
}

/// The corpus' rules and key, loaded before capture copies anything.
struct CorpusAnonymization {
    var rules: AnonymizationRules?
    var key: AnonymizationKey?
    var optedOut: Bool

    /// Reads `fixturekit.json` of `corpus` and the rules it names. Personal
    /// data is never frozen by accident: a corpus that names no rules (or has
    /// no `fixturekit.json`) is refused unless the store is declared synthetic,
    /// by `--no-anonymize` or by `"anonymize": false`.
    /// - Throws: ``FixtureKitError``: exit 2 for a corpus without rules, and for
    ///   `--mode raw` into a corpus with rules.
    init(corpus: String, store: String, mode: CaptureMode, options: CaptureAnonymization) throws(FixtureKitError) {
        optedOut = options.optOut
        guard !options.optOut else { return }
        let configurationPath = corpus.appendingPath(CorpusConfiguration.fileName)
        guard (try? POSIX.lstatIfPresent(configurationPath)) ?? nil != nil else {
            throw FixtureKitError(
                what: "capture", path: configurationPath,
                why: "no such file: nothing says how to anonymize the store, and it may hold personal data", remedy: .rulesOrSynthetic)
        }
        let configuration: CorpusConfiguration
        do { configuration = try CorpusConfiguration.load(configurationPath) } catch { throw error.within("capture") }
        switch configuration.anonymize {
        case nil:
            throw FixtureKitError(
                what: "capture", path: configurationPath,
                why: "names no anonymization rules (\"anonymize\"), and the store may hold personal data", remedy: .rulesOrSynthetic)
        case .disabled?:
            optedOut = true
            return
        case .rules(let relative)?:
            let rulesPath = configuration.resolve(relative)
            if mode == .raw {
                throw FixtureKitError(
                    what: "capture", path: store,
                    why: "the corpus anonymizes its fixtures (\(rulesPath)), and anonymizing folds the -wal away: \(FixtureKitError.Term.rawCapture.text) cannot keep it",
                    remedy: .snapshotOrSynthetic)
            }
            let rules: AnonymizationRules
            let key: AnonymizationKey
            do { (rules, key) = try Anonymizer.load(rulesPath, environment: options.environment) } catch { throw error.within("capture") }
            try Anonymizer.checkCorpusKey(corpus, key: key, what: "capture")
            self.rules = rules
            self.key = key
        }
    }

    /// Whether ``apply(staging:storeName:display:fixture:)`` rewrites the staged store.
    var rewritesStore: Bool { rules != nil && key != nil }

    /// Anonymizes the store staged in `staging`, before the fixture is installed.
    /// - Returns: what the manifest records; `nil` for a corpus without rules.
    func apply(staging: String, storeName: String, display: String, fixture: String) throws(FixtureKitError) -> Manifest.Anonymization? {
        guard let rules, let key else { return optedOut ? Manifest.Anonymization(mode: Manifest.Anonymization.optedOutMode) : nil }
        let raw = staging.appendingPath(".fixturekit-raw")
        try wrap("anonymize: stage", staging) { () throws(FileSystemError) in
            try POSIX.createFolder(raw, mode: 0o700)
            for suffix in ["", "-wal", "-shm", "-journal"] where try POSIX.lstatIfPresent(staging.appendingPath(storeName + suffix)) != nil {
                try POSIX.rename(staging.appendingPath(storeName + suffix), raw.appendingPath(storeName + suffix))
            }
        }
        defer { ScratchFolder.remove(raw) }
        let report = try Anonymizer.anonymizeInPlace(raw: raw, into: staging, storeName: storeName, rules: rules, key: key, display: display, names: { fixture.appendingPath($0) })
        return Anonymizer.record(rules, key: key, report: report)
    }
}
