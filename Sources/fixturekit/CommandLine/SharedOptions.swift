import FixtureKit

/// How much a command says on stderr: `--quiet` and `--verbose`, on every command.
struct OutputOptions: OptionGroup {
    static let quiet = Flag("--quiet", "-q", help: "Print only problems and errors.")
    static let verbose = Flag("--verbose", "-v", help: "Also print each step, with its time.")
    static let declarations = [quiet.erased, verbose.erased]

    var verbosity: Console.Verbosity

    init(_ parsed: ParsedArguments) throws(UsageError) {
        switch (parsed.get(Self.quiet), parsed.get(Self.verbose)) {
        case (true, true): throw UsageError("'--quiet' and '--verbose' cannot be used together")
        case (true, false): verbosity = .quiet
        case (false, true): verbosity = .verbose
        case (false, false): verbosity = .normal
        }
    }
}

/// Declarations several commands share, each written once.
enum Shared {
    static let json = Flag("--json", help: "Print machine-readable JSON on stdout.")
    static let jobs = Option<PositiveNumber?>("--jobs", "-j", value: "N", shownDefault: "every core", help: "Files hashed at once.")
    static let defaultCorpus = "MigrationFixtures"
    /// `--config FILE`, the corpus configuration.
    static let config = Option<String>(
        "--config", value: "FILE", default: defaultCorpus + "/fixturekit.json", help: "The corpus configuration.", completion: .file)
    /// `--config FILE` where it cannot default (a live store's upgrade).
    static let requiredConfig = Option<String>.required(
        "--config", value: "FILE", help: "The corpus configuration: versions, stages, checks.", completion: .file)
    /// `--corpus DIR`, the corpus folder.
    static let corpus = Option<String>("--corpus", value: "DIR", default: defaultCorpus, help: "The corpus folder.", completion: .folder)
    static let version = Option<String>.required("--version", value: "V", help: "The shipped version the store belongs to.")
    static let mode = Option<CaptureMode>("--mode", value: "MODE", default: .snapshot, help: "How the store is copied: snapshot, checkpoint or raw.")
    static let keep = Option<PositiveNumber>("--keep", value: "N", default: PositiveNumber(value: StoreBackup.defaultKeep), help: "Backups of the store kept.")
}

/// `--max-size` and `--max-ratio`: what an archive may expand to.
struct ArchiveLimitOptions: OptionGroup {
    static let maxSize = Option<ByteCount?>(
        "--max-size", value: "SIZE", shownDefault: "16G",
        help: "Refuse an archive whose entries hold more (K, M, G, T: powers of 1024).")
    static let maxRatio = Option<PositiveRatio?>(
        "--max-ratio", value: "N", shownDefault: "1000", help: "Refuse an archive that expands more than N times its size.")
    static let declarations = [maxSize.erased, maxRatio.erased]

    var limits: ArchiveLimits

    init(_ parsed: ParsedArguments) throws(UsageError) {
        limits = ArchiveLimits()
        if let size = try parsed.get(Self.maxSize) { limits.maxTotalSize = size.bytes }
        if let ratio = try parsed.get(Self.maxRatio) { limits.maxRatio = ratio.value }
    }
}
