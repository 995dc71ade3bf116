#if canImport(Glibc)
import Glibc
#endif

/// The process' stdin, stdout and stderr, for a command-line tool built on the
/// library: what the `fixturekit` tool writes its reports and messages through,
/// so that it needs no C library of its own.
public enum StandardStream: Int32, Sendable, CaseIterable {
    case input = 0
    case output = 1
    case error = 2

    /// `stdin`, `stdout`, `stderr`: how messages name the stream.
    public var name: String {
        switch self {
        case .input: "stdin"
        case .output: "stdout"
        case .error: "stderr"
        }
    }

    /// Whether the stream is a terminal.
    public var isTerminal: Bool { descriptor.isTerminal }

    private var descriptor: FileDescriptor { FileDescriptor(rawValue: rawValue, path: name) }

    /// Writes all of `bytes`, going on after short writes and signals.
    /// - Throws: ``FileSystemError`` of `write`, its path the stream's name:
    ///   `EPIPE` when the reader closed the pipe, `ENOSPC`, `EBADF` when not open.
    public func write(_ bytes: [UInt8]) throws(FileSystemError) {
        try descriptor.writeAll(bytes)
    }

    /// Reads the stream to its end.
    /// - Throws: ``FileSystemError`` of `read` when a read fails.
    public func readAll() throws(FileSystemError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = try chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(FileSystemError) in try descriptor.read(into: buffer) }
            }.get()
            guard count > 0 else { return bytes }
            bytes += chunk[0..<count]
        }
    }

    /// Puts `/dev/null` on each standard stream that is not open, so that a file
    /// the process opens later never takes its number (a report written into a
    /// store opened as descriptor 1).
    /// - Returns: the streams that were not open.
    public static func occupyClosed() -> Set<StandardStream> {
        var closed: Set<StandardStream> = []
        for stream in allCases where fcntl(stream.rawValue, F_GETFD) < 0 && errno == EBADF {
            let null = open("/dev/null", stream == .input ? O_RDONLY : O_WRONLY)
            if null >= 0, null != stream.rawValue {
                dup2(null, stream.rawValue)
                close(null)
            }
            closed.insert(stream)
        }
        return closed
    }

    /// Makes a write to a closed pipe fail with `EPIPE`, and one past the file
    /// size limit (`ulimit -f`) with `EFBIG`, instead of ending the process by
    /// SIGPIPE or SIGXFSZ: the tool reports them.
    public static func reportWriteSignals() {
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
    }

    /// Ends the process by SIGPIPE, as coreutils' tools end when the reader of
    /// their output closed the pipe early (`| head -n1`): its parent sees 141.
    public static func endByBrokenPipe() -> Never {
        signal(SIGPIPE, SIG_DFL)
        raise(SIGPIPE)
        exit(128 + SIGPIPE)
    }

    /// Ends the process with `status`.
    public static func exit(_ status: Int32) -> Never {
        Glibc.exit(status)
    }
}
