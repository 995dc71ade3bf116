import Foundation
import FixtureKit

/// Where a command writes: machine-readable output on stdout, human output and
/// progress on stderr. Tests capture both.
///
/// Every line on stderr is one line: control characters in it (a file name
/// holding a line feed or an escape) are shown escaped. Colour is added after
/// that, around the words a ``StyledText`` marks, so it reaches a terminal as colour.
final class Console: @unchecked Sendable {
    /// How much goes to stderr: `--quiet`, the default, `--verbose`.
    enum Verbosity: Sendable { case quiet, normal, verbose }

    enum Style: Sendable { case ok, failed }

    private(set) var standardOutput = ""
    private(set) var standardError = ""
    /// The errno of the first write to each stream that failed (a full disk, a
    /// closed pipe, a descriptor that was not open): nothing more is written to
    /// it, and the command ends with ``settle(_:)``.
    private var writeFailures: [StandardStream: Errno] = [:]
    /// The streams that were closed when the process started: given `/dev/null`
    /// (so that no file the command opens takes their number), and every write
    /// to them fails as a write to a closed descriptor does.
    private let closedAtStart: Set<StandardStream>
    private let capturing: Bool
    /// Whether stderr is a terminal: progress and colour only then.
    let isTerminal: Bool
    /// Whether stdin is a terminal: an interactive session only then.
    let isInteractive: Bool
    /// Colour on a terminal unless NO_COLOR is set (https://no-color.org).
    let usesColor: Bool
    /// The process' environment, as given (tests pass their own): SOURCE_DATE_EPOCH, the anonymization key.
    let environment: [String: String]
    /// Set from `--quiet` and `--verbose` before a command runs.
    var verbosity = Verbosity.normal
    /// What the running command has done so far, when someone shows it (``ProgressDisplay``).
    var work: WorkProgress?
    /// Serializes writes: progress is drawn from a thread of its own.
    private let lock = NSLock()
    /// The progress line on the terminal now, erased before any other line is written.
    private var progressLine: String?
    private var progressClosed = false
    /// Whether the command reported its failed write to stdout itself.
    private var handledOutputFailure = false

    /// Erases the progress line and draws no other: the work is over.
    func closeProgress() {
        lock.lock()
        progressClosed = true
        lock.unlock()
        drawProgress(nil)
    }

    /// What a capturing console reads as stdin.
    private let input: String?

    init(capturing: Bool = false, environment: [String: String] = [:], standardInput: String? = nil) {
        self.capturing = capturing
        self.closedAtStart = capturing ? [] : StandardStream.occupyClosed().subtracting([.input])
        self.input = standardInput
        self.environment = environment
        self.isTerminal = !capturing && StandardStream.error.isTerminal
        self.isInteractive = !capturing && StandardStream.input.isTerminal
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        self.usesColor = isTerminal && !noColor && environment["TERM"] != "dumb"
    }

    /// Whether the command may handle SIGINT and SIGTERM itself (``Interruption``):
    /// in the tool's own process, not when a test runs it in its process.
    var handlesSignals: Bool { !capturing }

    /// Writes `text`, and a line feed unless told not to, to stdout.
    func output(_ text: String, terminated: Bool = true) {
        write(terminated ? text + "\n" : text, to: .output)
    }

    /// All of stdin, as text.
    func readStandardInput() -> String {
        if capturing { return input ?? "" }
        // A read that fails ends the input there, as its end would.
        let bytes = (try? StandardStream.input.readAll()) ?? []
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes `text` as one line on stderr, whatever the verbosity: problems, errors.
    func message(_ text: String) {
        message(StyledText(plain: text))
    }

    /// Writes `text` as one line on stderr, its marked words in colour when colour is on.
    func message(_ text: StyledText) {
        line(text.rendered(color: usesColor))
    }

    /// A line of the normal report, left out with `--quiet`.
    func info(_ text: String) { info(StyledText(plain: text)) }

    func info(_ text: StyledText) {
        if verbosity != .quiet { message(text) }
    }

    /// A line only `--verbose` prints: a step and its time.
    func detail(_ text: String) {
        if verbosity == .verbose { message(text) }
    }

    /// Writes several lines on stderr, each as ``message(_:)-(String)`` does.
    func lines(_ text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) { message(String(line)) }
    }

    /// `fixturekit: <what>: <path>: <why>` on stderr, always one line: a file
    /// name holding a line feed is shown with `\n`.
    func error(_ line: String) {
        message("fixturekit: " + line)
    }

    /// Draws `text` as the progress line (a terminal only), or erases it with `nil`.
    func drawProgress(_ text: String?) {
        guard isTerminal else { return }
        lock.lock()
        defer { lock.unlock() }
        guard !progressClosed || text == nil else { return }
        var bytes = progressLine == nil ? "" : "\r\u{1B}[K"
        if let text { bytes += StyledText(plain: text).rendered(color: false) }
        progressLine = text
        rawWrite(bytes, to: .error)
    }

    private func line(_ rendered: String) {
        lock.lock()
        defer { lock.unlock() }
        // A line written under a progress line takes its place, and the progress comes back below.
        let erase = progressLine == nil ? "" : "\r\u{1B}[K"
        let redraw = progressLine ?? ""
        rawWrite(erase + rendered + "\n" + redraw, to: .error)
    }

    private func write(_ text: String, to stream: StandardStream) {
        lock.lock()
        defer { lock.unlock() }
        rawWrite(text, to: stream)
    }

    private func rawWrite(_ text: String, to stream: StandardStream) {
        if capturing {
            if stream == .output { standardOutput += text } else { standardError += text }
            return
        }
        // A stream that failed once gets nothing more: the command ends with the failure.
        guard writeFailures[stream] == nil, !text.isEmpty else { return }
        guard !closedAtStart.contains(stream) else {
            writeFailures[stream] = .badFileDescriptor
            return
        }
        do throws(FileSystemError) {
            try stream.write(Array(text.utf8))
        } catch {
            writeFailures[stream] = error.code
        }
    }
}

// MARK: - Streams that cannot be written

extension Console {
    /// Whether stdout was closed when the process started (`fixturekit ... >&-`).
    var standardOutputIsClosed: Bool { closedAtStart.contains(.output) }

    /// The errno of the failed write to stdout, for a command that reports it
    /// itself (`migrate --json`); ``settle(_:)`` then says nothing more of it.
    /// A reader that closed the pipe (EPIPE) is not a failure to report: `nil`.
    func takeOutputFailure() -> Errno? {
        lock.lock()
        defer { lock.unlock() }
        guard let code = writeFailures[.output], code != .brokenPipe else { return nil }
        handledOutputFailure = true
        return code
    }

    /// Checks, before a long run, that stdout is open for the report it ends
    /// with, so that a run is not wasted on a report nobody can read.
    /// - Throws: ``OutputFailure``: `write JSON report: stdout: not open (hint: nothing was run)`.
    func requireStandardOutput(for what: String) throws(OutputFailure) {
        guard standardOutputIsClosed else { return }
        throw OutputFailure(what: what, why: "not open", hint: "nothing was run")
    }

    /// Writes a report on stdout; a write that fails is the command's own
    /// failure (``settle(_:)`` then says nothing more of it), but for a reader
    /// that closed the pipe, which ends the tool as any output does.
    /// - Throws: ``OutputFailure``: `write JSON report: stdout: no space left on device`.
    func outputReport(_ text: String, what: String) throws(OutputFailure) {
        output(text, terminated: false)
        if let code = takeOutputFailure() {
            throw OutputFailure(what: what, why: code.description)
        }
    }

    /// The command's exit status once its output is settled: a write to stdout
    /// or stderr that failed makes it 2 (``ExitCode/couldNotWork``), with one line
    /// on stderr when stderr still works (`fixturekit: write output: stdout: no space
    /// left on device`); a reader that closed the pipe early (`| head -n1`, EPIPE)
    /// makes it ``ExitCode/brokenPipe``: the process ends by SIGPIPE, as
    /// coreutils' `sha256sum` does, without a word.
    func settle(_ status: ExitCode) -> ExitCode {
        guard !capturing, !status.isInterruption else { return status }
        lock.lock()
        let (output, errors) = (handledOutputFailure ? nil : writeFailures[.output], writeFailures[.error])
        lock.unlock()
        if output == .brokenPipe || errors == .brokenPipe { return .brokenPipe }
        if let output {
            let reason = output == .badFileDescriptor ? "not open" : output.description
            error("write output: stdout: \(reason)")
        }
        return output != nil || errors != nil || handledOutputFailure ? .couldNotWork : status
    }
}

/// A report that could not be written on stdout: one line, exit status 2.
struct OutputFailure: FixtureKitFailure {
    var what: String
    var path: String? { "stdout" }
    var why: String
    var hint: String?

    init(what: String, why: String, hint: String? = nil) {
        (self.what, self.why, self.hint) = (what, why, hint)
    }
}

/// A line of text whose parts may carry a colour: the parts are escaped first
/// (control characters shown as `\n`, `\u{1B}`), the colour added around them after.
struct StyledText: ExpressibleByStringInterpolation, Sendable {
    var parts: [(text: String, style: Console.Style?)] = []

    init(plain text: String) { parts = [(text, nil)] }
    init(stringLiteral value: String) { parts = [(value, nil)] }
    init(stringInterpolation: Interpolation) { parts = stringInterpolation.parts }

    struct Interpolation: StringInterpolationProtocol {
        var parts: [(text: String, style: Console.Style?)] = []
        init(literalCapacity: Int, interpolationCount: Int) {}
        mutating func appendLiteral(_ literal: String) { parts.append((literal, nil)) }
        mutating func appendInterpolation(_ value: some CustomStringConvertible) { parts.append((value.description, nil)) }
        /// `\(ok: "OK")` in green, `\(failed: "FAILED")` in red.
        mutating func appendInterpolation(ok text: String) { parts.append((text, .ok)) }
        mutating func appendInterpolation(failed text: String) { parts.append((text, .failed)) }
        mutating func appendInterpolation(_ text: String, style: Console.Style?) { parts.append((text, style)) }
        mutating func appendInterpolation(_ text: StyledText) { parts += text.parts }
    }

    static func + (lhs: StyledText, rhs: StyledText) -> StyledText {
        var result = lhs
        result.parts += rhs.parts
        return result
    }

    /// The text without colour.
    var plain: String { parts.map(\.text).joined() }

    /// The line as it is written: each part escaped, then coloured when `color` is on.
    func rendered(color: Bool) -> String {
        parts.map { part in
            let text = part.text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } ? part.text.escapingControlCharacters() : part.text
            guard color, let style = part.style else { return text }
            return "\u{1B}[\(style == .ok ? "32" : "31")m\(text)\u{1B}[0m"
        }.joined()
    }
}
