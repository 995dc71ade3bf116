#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin, throwing wrappers over the system calls the library uses on files.
package enum POSIX {
    /// Calls `body` again while it fails with `EINTR`.
    package static func retrying<T: BinaryInteger>(_ body: () -> T) -> T {
        while true {
            let result = body()
            if result >= 0 || errno != EINTR { return result }
        }
    }

    package static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(FileSystemError) -> Int32 {
        let fd = retrying { Glibc.open(path, flags | O_CLOEXEC, mode) }
        guard fd >= 0 else { throw FileSystemError("open", path: path, errno: errno) }
        return fd
    }

    package static func lstat(_ path: String) throws(FileSystemError) -> FileStatus {
        var info = stat()
        guard Glibc.lstat(path, &info) == 0 else { throw FileSystemError("stat", path: path, errno: errno) }
        return FileStatus(info)
    }

    /// `stat`, following symbolic links: what a link points to.
    package static func statFollowingLinks(_ path: String) throws(FileSystemError) -> FileStatus {
        var info = Glibc.stat()
        guard fstatat(AT_FDCWD, path, &info, 0) == 0 else { throw FileSystemError("stat", path: path, errno: errno) }
        return FileStatus(info)
    }

    /// `stat` that reports a missing file as `nil` instead of an error.
    package static func lstatIfPresent(_ path: String) throws(FileSystemError) -> FileStatus? {
        var info = stat()
        if Glibc.lstat(path, &info) == 0 { return FileStatus(info) }
        if errno == ENOENT || errno == ENOTDIR { return nil }
        throw FileSystemError("stat", path: path, errno: errno)
    }

    package static func fsync(_ fd: Int32, path: String) throws(FileSystemError) {
        guard retrying({ Glibc.fsync(fd) }) == 0 else { throw FileSystemError("fsync", path: path, errno: errno) }
    }

    /// Flushes a file's bytes, named by its path, to disk.
    package static func fsyncFile(_ path: String) throws(FileSystemError) {
        let fd = try open(path, O_RDONLY)
        defer { Glibc.close(fd) }
        try fsync(fd, path: path)
    }

    /// Flushes a folder's entries (a rename, a new file) to disk.
    package static func fsyncDirectory(_ path: String) throws(FileSystemError) {
        let fd = try open(path, O_RDONLY | O_DIRECTORY)
        defer { Glibc.close(fd) }
        try fsync(fd, path: path)
    }

    package static func rename(_ from: String, _ to: String) throws(FileSystemError) {
        guard Glibc.rename(from, to) == 0 else { throw FileSystemError("rename", path: from, errno: errno) }
    }

    /// Writes all of `bytes`, going on after short writes.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(FileSystemError) {
        var offset = 0
        while offset < bytes.count {
            let written = retrying { Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset) }
            guard written > 0 else { throw FileSystemError("write", path: path, errno: written < 0 ? errno : EIO) }
            offset += written
        }
    }

    /// Opens a regular file for reading, and refuses anything else before a byte
    /// is read: a FIFO (opened without waiting for a writer, which would block
    /// forever), a device, a socket, a folder. With `followLinks` false, a
    /// symbolic link is refused too.
    /// - Returns: the descriptor, in blocking mode, and the file's `stat`.
    package static func openRegularFile(_ path: String, followLinks: Bool = true) throws(FileSystemError) -> (fd: Int32, info: FileStatus) {
        let fd = try open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | (followLinks ? 0 : O_NOFOLLOW))
        let info: FileStatus
        do { info = try FileDescriptor(rawValue: fd, path: path).status() } catch {
            Glibc.close(fd)
            throw error
        }
        guard info.kind == .regular else {
            Glibc.close(fd)
            throw FileSystemError("read", path: path, message: FileKind.describe(info.mode))
        }
        // Reads of a regular file never wait; blocking mode all the same, as callers expect.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return (fd, info)
    }

    /// Reads a whole, small file: a SHA256SUMS, a manifest, a configuration.
    /// Anything but a regular file is refused before it is read.
    package static func readFile(_ path: String, limit: Int = 64 << 20) throws(FileSystemError) -> [UInt8] {
        let (fd, info) = try openRegularFile(path, followLinks: false)
        defer { Glibc.close(fd) }
        guard info.size <= Int64(limit) else { throw FileSystemError("read", path: path, errno: EFBIG) }
        var result: [UInt8] = []
        result.reserveCapacity(Int(info.size))
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in retrying { Glibc.read(fd, buffer.baseAddress, buffer.count) } }
            if count < 0 { throw FileSystemError("read", path: path, errno: errno) }
            if count == 0 { break }
            result.append(contentsOf: chunk[0..<count])
            if result.count > limit { throw FileSystemError("read", path: path, errno: EFBIG) }
        }
        return result
    }

    /// The entries of a folder, without `.` and `..`, as raw name bytes.
    package static func listDirectory(_ path: String) throws(FileSystemError) -> [[UInt8]] {
        guard let dir = opendir(path) else { throw FileSystemError("open folder", path: path, errno: errno) }
        defer { closedir(dir) }
        var names: [[UInt8]] = []
        while true {
            errno = 0
            guard let entry = readdir(dir) else {
                if errno != 0 { throw FileSystemError("read folder", path: path, errno: errno) }
                break
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.prefix(while: { $0 != 0 }))
            }
            if name == [0x2E] || name == [0x2E, 0x2E] { continue }
            names.append(name)
        }
        return names
    }
}

extension String {
    /// A file-system path from raw bytes; a C call receives them unchanged.
    package init(pathBytes: [UInt8]) {
        // Valid UTF-8 round-trips through String exactly; other bytes cannot be
        // represented and are rejected earlier by the callers that list folders.
        self = String(decoding: pathBytes, as: UTF8.self)
    }

    /// `self/component`.
    package func appendingPath(_ component: String) -> String {
        if isEmpty { return component }
        return hasSuffix("/") ? self + component : self + "/" + component
    }
}
