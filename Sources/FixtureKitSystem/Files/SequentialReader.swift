#if canImport(Glibc)
import Glibc
#endif

/// Reads a regular file front to back in caller-sized pieces, the kernel told
/// that the reads are sequential.
package final class SequentialReader {
    private let fd: Int32
    private let path: String
    /// The file's size when it was opened.
    package let size: UInt64

    /// Opens `path` (never through a symbolic link).
    /// - Throws: ``FileSystemError`` when it cannot be opened or is no regular file.
    package init(path: String) throws(FileSystemError) {
        let fd = try POSIX.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw FileSystemError("stat", path: path, errno: code)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw FileSystemError("read", path: path, message: FileKind.describe(info.st_mode))
        }
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)
        self.fd = fd
        self.path = path
        self.size = UInt64(info.st_size)
    }

    deinit { close(fd) }

    /// Fills `buffer` as far as the file goes; returns how many bytes it got
    /// (fewer than asked only at the end of the file).
    /// - Throws: ``FileSystemError`` when a read fails (`EIO`, ...): what was read
    ///   before it is not handed back, as the rest is unknown.
    package func read(into buffer: inout [UInt8]) throws(FileSystemError) -> Int {
        FaultInjection.reached(.read, path)
        if let failure = FaultInjection.injectedFailure(.read, path) { throw FileSystemError("read", path: path, errno: failure) }
        var filled = 0
        var failure: Int32?
        buffer.withUnsafeMutableBytes { raw in
            while filled < raw.count {
                let count = POSIX.retrying { Glibc.read(fd, raw.baseAddress! + filled, raw.count - filled) }
                if count < 0 { failure = errno }
                guard count > 0 else { break }
                filled += count
            }
        }
        if let failure { throw FileSystemError("read", path: path, errno: failure) }
        return filled
    }
}
