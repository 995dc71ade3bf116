#if canImport(Glibc)
import Glibc
#endif

/// Reads a regular file front to back in caller-sized pieces, the kernel told
/// that the reads are sequential.
package final class SequentialReader {
    private let fd: FileDescriptor
    private let path: String
    /// The file's size when it was opened.
    package let size: UInt64

    /// Opens `path` (never through a symbolic link).
    /// - Throws: ``FileSystemError`` when it cannot be opened or is no regular file.
    package init(path: String) throws(FileSystemError) {
        let fd = try FileDescriptor.open(path, .readOnly, options: [.noFollow, .nonBlocking])
        let info: FileStatus
        do { info = try fd.status() } catch {
            try? fd.close()
            throw error
        }
        guard info.kind == .regular else {
            try? fd.close()
            throw FileSystemError("read", path: path, message: info.kind.notRegular)
        }
        fd.adviseSequential()
        self.fd = fd
        self.path = path
        self.size = UInt64(info.size)
    }

    deinit { try? fd.close() }

    /// Fills `buffer` as far as the file goes; returns how many bytes it got
    /// (fewer than asked only at the end of the file).
    /// - Throws: ``FileSystemError`` when a read fails (`EIO`, ...): what was read
    ///   before it is not handed back, as the rest is unknown.
    package func read(into buffer: inout [UInt8]) throws(FileSystemError) -> Int {
        FaultInjection.reached(.read, path)
        if let failure = FaultInjection.injectedFailure(.read, path) { throw FileSystemError("read", path: path, errno: failure) }
        let result: Result<Int, FileSystemError> = buffer.withUnsafeMutableBytes { raw in
            do throws(FileSystemError) { return .success(try fd.readFully(into: raw)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
