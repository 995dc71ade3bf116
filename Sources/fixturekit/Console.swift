#if canImport(Glibc)
import Glibc
#endif

/// Where a command writes: machine-readable output on stdout, human output and
/// progress on stderr. Tests capture both.
final class Console {
    private(set) var standardOutput = ""
    private(set) var standardError = ""
    /// The errno of the first write to stdout that failed (a full disk, a
    /// closed pipe), for a command whose output is a report that must be whole.
    private(set) var outputError: Int32?
    private let capturing: Bool
    /// Whether stderr is a terminal: progress and colour only then.
    let isTerminal: Bool
    /// Colour on a terminal unless NO_COLOR is set (https://no-color.org).
    let usesColor: Bool
    /// The process' environment, as given (tests pass their own): SOURCE_DATE_EPOCH, the anonymization key.
    let environment: [String: String]

    init(capturing: Bool = false, environment: [String: String] = [:]) {
        self.capturing = capturing
        self.environment = environment
        self.isTerminal = !capturing && isatty(STDERR_FILENO) == 1
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        self.usesColor = isTerminal && !noColor && environment["TERM"] != "dumb"
    }

    /// Whether the command may handle SIGINT and SIGTERM itself (``Interruption``):
    /// in the tool's own process, not when a test runs it in its process.
    var handlesSignals: Bool { !capturing }

    /// Writes `text` and a line feed to stdout.
    func output(_ text: String) {
        write(text + "\n", to: STDOUT_FILENO)
    }

    /// Writes `text` as one line on stderr: a file name holding a line feed or
    /// another control character is shown escaped, and stays on its line.
    func message(_ text: String) {
        let needsEscaping = text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
        write((needsEscaping ? text.escapingControlCharacters() : text) + "\n", to: STDERR_FILENO)
    }

    /// Writes several lines on stderr, each as ``message(_:)`` does.
    func lines(_ text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) { message(String(line)) }
    }

    /// `fixturekit: <what>: <path>: <why>` on stderr, always one line: a file
    /// name holding a line feed is shown with `\n`.
    func error(_ line: String) {
        let needsEscaping = line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
        message("fixturekit: " + (needsEscaping ? line.escapingControlCharacters() : line))
    }

    enum Style { case ok, failed }

    /// `text` in green or red when colour is on.
    func styled(_ text: String, _ style: Style) -> String {
        guard usesColor else { return text }
        let code = style == .ok ? "32" : "31"
        return "\u{1B}[\(code)m\(text)\u{1B}[0m"
    }

    private func write(_ text: String, to fd: Int32) {
        if capturing {
            if fd == STDOUT_FILENO { standardOutput += text } else { standardError += text }
            return
        }
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                // A closed pipe (`fixturekit verify | head`) ends the output quietly.
                guard written > 0 else {
                    if fd == STDOUT_FILENO, outputError == nil { outputError = written < 0 ? errno : EIO }
                    return
                }
                offset += written
            }
        }
    }
}
