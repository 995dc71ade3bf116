#if canImport(Glibc)
import Glibc
#endif
import FixtureKit

/// The process' exit status, as DESIGN.md fixes it.
enum ExitCode: Int32, Comparable {
    case success = 0
    /// A check failed.
    case checkFailed = 1
    /// The work could not be done.
    case couldNotWork = 2
    /// The command line was wrong.
    case usage = 64
    /// `upgrade` or `migrate` stopped on SIGINT or SIGTERM, as a shell reports a
    /// process that the signal ended (128 + its number): the tool ends itself
    /// with the signal (``Interruption/reraise()``).
    case interruptedBySIGINT = 130
    case interruptedBySIGTERM = 143

    init(_ category: FixtureKitError.Category) {
        if category == .interrupted {
            self = .interrupted
            return
        }
        self = ExitCode(rawValue: category.rawValue) ?? .couldNotWork
    }

    /// The status of a run that stopped on the signal fixturekit received.
    static var interrupted: ExitCode {
        Interruption.received == SIGTERM ? .interruptedBySIGTERM : .interruptedBySIGINT
    }

    var isInterruption: Bool { self == .interruptedBySIGINT || self == .interruptedBySIGTERM }

    /// The more serious of two outcomes: could-not-work over a failed check.
    static func < (lhs: ExitCode, rhs: ExitCode) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One subcommand: it parses its words, calls one library entry point and prints.
protocol Command {
    static var configuration: CommandConfiguration { get }
    /// Builds the command from the words after its name: a pure function of them.
    init(arguments: [String]) throws(UsageError)
    /// Checks the options against each other, once parsed.
    func validate() throws(UsageError)
    /// Does the work; a thrown ``FixtureKitError`` becomes one line on stderr.
    func run(_ console: Console) throws -> ExitCode
}

extension Command {
    func validate() throws(UsageError) {}
}

/// Options several commands share.
extension OptionDefinition {
    static let json = OptionDefinition.flag("--json", help: "Print machine-readable JSON on stdout.")
    static let quiet = OptionDefinition.flag("--quiet", "-q", help: "Print only problems.")
    static let jobs = OptionDefinition.option("--jobs", "-j", value: "N", help: "Files hashed at once (default: every core).")
}

extension ParsedArguments {
    /// The required `--version V`.
    func requiredVersion() throws(UsageError) -> String {
        guard let version = value("--version") else { throw UsageError("missing required option '--version <V>'") }
        return version
    }

    /// `--mode snapshot|checkpoint|raw`, snapshot when absent.
    func captureMode() throws(UsageError) -> CaptureMode {
        let name = value("--mode") ?? CaptureMode.snapshot.rawValue
        guard let mode = CaptureMode(rawValue: name) else {
            throw UsageError("'--mode' must be snapshot, checkpoint or raw, not '\(name)'")
        }
        return mode
    }

    /// `--jobs N` as a positive number.
    func jobs() throws(UsageError) -> Int? {
        guard let text = value("--jobs") else { return nil }
        guard let jobs = Int(text), jobs > 0 else { throw UsageError("'--jobs' needs a positive number, not '\(text)'") }
        return jobs
    }
}
