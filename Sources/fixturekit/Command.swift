import FixtureKit

/// The process' exit status, as docs/exit-codes.md fixes it.
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
    /// The reader of stdout or stderr closed the pipe early (`| head -n1`): the
    /// tool ends by SIGPIPE, as a shell reports it (128 + 13) and as coreutils'
    /// tools end, without a message (main.swift raises the signal).
    case brokenPipe = 141

    /// The status of a failure of `category`: the library's categories hold no
    /// number, the tool alone maps them.
    init(_ category: FixtureKitError.Category) {
        switch category {
        case .checkFailed: self = .checkFailed
        case .couldNotWork: self = .couldNotWork
        case .usage: self = .usage
        // What the library stopped on: the cancellation the signals cancel.
        case .interrupted: self = .interrupted(by: Interruption.cancellation.reason)
        }
    }

    /// The status of a run that stopped on `reason`: 143 for SIGTERM, 130 for SIGINT (and any other).
    static func interrupted(by reason: Cancellation.Reason?) -> ExitCode {
        reason == .terminated ? .interruptedBySIGTERM : .interruptedBySIGINT
    }

    var isInterruption: Bool { self == .interruptedBySIGINT || self == .interruptedBySIGTERM }

    /// The more serious of two outcomes: could-not-work over a failed check.
    static func < (lhs: ExitCode, rhs: ExitCode) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One subcommand: it declares its arguments and options, reads them from the
/// parsed words, calls one library entry point and prints.
protocol Command {
    static var configuration: CommandConfiguration { get }
    /// Builds the command from its parsed words: a pure function of them.
    init(_ parsed: ParsedArguments) throws(UsageError)
    /// Checks the options against each other, once parsed.
    func validate() throws(UsageError)
    /// Does the work; a thrown ``FixtureKitError`` becomes one line on stderr.
    func run(_ console: Console) throws -> ExitCode
}

extension Command {
    func validate() throws(UsageError) {}

    /// Parses the words after the command's name and builds the command.
    init(arguments: [String]) throws(UsageError) {
        try self.init(Self.configuration.parse(arguments))
    }
}
