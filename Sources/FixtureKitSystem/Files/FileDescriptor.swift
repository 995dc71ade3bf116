#if canImport(Glibc)
import Glibc
#endif

/// An open file descriptor, in the spirit of swift-system's `FileDescriptor`: the
/// number and the path it was opened as (which its errors name), with reads and
/// writes that go on after `EINTR`, errors that keep the errno (``FileSystemError``,
/// its ``FileSystemError/code`` an ``Errno``), and ``closeAfter(_:)`` to close it
/// on every path.
///
/// A value does not own the descriptor: nothing closes it but ``close()`` or
/// ``closeAfter(_:)``. The operations above the primitives open files through
/// it rather than through raw `Int32` descriptors.
package struct FileDescriptor: Sendable {
    /// The descriptor's number.
    package let rawValue: Int32
    /// The path it was opened as: what its errors name.
    package let path: String

    /// A descriptor this process holds already (a standard stream, one a caller gave).
    package init(rawValue: Int32, path: String) {
        self.rawValue = rawValue
        self.path = path
    }

    /// How a file is opened: for reading, writing or both.
    package enum AccessMode: Sendable {
        case readOnly, writeOnly, readWrite

        var flags: Int32 {
            switch self {
            case .readOnly: O_RDONLY
            case .writeOnly: O_WRONLY
            case .readWrite: O_RDWR
            }
        }
    }

    /// The options of `open(2)` the library uses; every descriptor is opened
    /// with `O_CLOEXEC` besides.
    package struct OpenOptions: OptionSet, Sendable {
        package let rawValue: Int32
        package init(rawValue: Int32) { self.rawValue = rawValue }

        /// `O_CREAT`.
        package static let create = OpenOptions(rawValue: O_CREAT)
        /// `O_CREAT | O_EXCL`: fail with `EEXIST` when something is there.
        package static let exclusiveCreate = OpenOptions(rawValue: O_CREAT | O_EXCL)
        /// `O_TRUNC`.
        package static let truncate = OpenOptions(rawValue: O_TRUNC)
        /// `O_APPEND`.
        package static let append = OpenOptions(rawValue: O_APPEND)
        /// `O_NOFOLLOW`: fail with `ELOOP` on a symbolic link.
        package static let noFollow = OpenOptions(rawValue: O_NOFOLLOW)
        /// `O_NONBLOCK`: a FIFO opens without waiting for its other end.
        package static let nonBlocking = OpenOptions(rawValue: O_NONBLOCK)
        /// `O_DIRECTORY`: fail with `ENOTDIR` on anything but a folder.
        package static let directory = OpenOptions(rawValue: O_DIRECTORY)
        /// `O_NOCTTY`.
        package static let noControllingTerminal = OpenOptions(rawValue: O_NOCTTY)
        /// `O_DIRECT`: writes go from the caller's memory to the device, around
        /// the page cache; their offset, size and memory must be aligned to the
        /// device's block (`EINVAL` otherwise, or where the file system does not
        /// take it). Its value depends on the architecture, and Swift's Glibc
        /// does not export it: `nil` on an architecture not listed here.
        package static let direct: OpenOptions? = {
            #if arch(x86_64) || arch(i386)
            OpenOptions(rawValue: 0o40000)
            #elseif arch(arm64)
            OpenOptions(rawValue: 0o200000)
            #else
            nil
            #endif
        }()
    }

    /// Opens `path` (`open(2)` with `O_CLOEXEC`, again after `EINTR`).
    /// - Parameter permissions: the mode of a file it creates (before the umask).
    /// - Throws: ``FileSystemError`` of `open`, naming `path`.
    package static func open(_ path: String, _ access: AccessMode, options: OpenOptions = [], permissions: mode_t = 0o644) throws(FileSystemError) -> FileDescriptor {
        FileDescriptor(rawValue: try POSIX.open(path, access.flags | options.rawValue, mode: permissions), path: path)
    }

    /// Calls `body` with this descriptor, then closes it, whether `body` returned
    /// or threw (a failure of `close` itself is not reported: a writer that needs
    /// to know its bytes reached the disk calls ``sync()`` in `body`).
    package func closeAfter<Result, Failure: Error>(_ body: (FileDescriptor) throws(Failure) -> Result) throws(Failure) -> Result {
        defer { _ = Glibc.close(rawValue) }
        return try body(self)
    }

    /// Closes the descriptor (once: `close` is never retried, the descriptor is
    /// gone even when it fails with `EINTR`).
    /// - Throws: ``FileSystemError`` of `close` (`EBADF` for one already closed,
    ///   `EIO` or `ENOSPC` for a write the file system could not complete).
    package func close() throws(FileSystemError) {
        guard Glibc.close(rawValue) == 0 else { throw FileSystemError("close", path: path, errno: errno) }
    }

    /// Reads into `buffer` once: up to its size, fewer at the end of the file or
    /// of what a pipe holds; 0 at the end.
    /// - Throws: ``FileSystemError`` of `read`.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(FileSystemError) -> Int {
        let count = POSIX.retrying { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
        guard count >= 0 else { throw FileSystemError("read", path: path, errno: errno) }
        return count
    }

    /// Reads into `buffer` at `offset` of the file (`pread`), without moving the
    /// file's offset; as ``read(into:)``.
    package func read(fromAbsoluteOffset offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(FileSystemError) -> Int {
        let count = POSIX.retrying { pread(rawValue, buffer.baseAddress, buffer.count, off_t(offset)) }
        guard count >= 0 else { throw FileSystemError("read", path: path, errno: errno) }
        return count
    }

    /// Fills `buffer` as far as the file goes: reads again after short reads,
    /// stops at its end.
    /// - Returns: the bytes read, fewer than `buffer.count` only at the end.
    package func readFully(into buffer: UnsafeMutableRawBufferPointer) throws(FileSystemError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// Fills `buffer` from `offset` of the file as far as the file goes, as
    /// ``readFully(into:)``, without moving the file's offset.
    package func readFully(fromAbsoluteOffset offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(FileSystemError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = try read(fromAbsoluteOffset: offset + Int64(filled), into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// Writes from `bytes` once, and returns how many the kernel took: fewer
    /// than `bytes.count` is a short write (a pipe that is nearly full, a disk
    /// that filled up part-way), which the caller sees in the count.
    /// - Throws: ``FileSystemError`` of `write` when nothing was written
    ///   (`EAGAIN` for a full pipe that does not block, `ENOSPC`, `EPIPE`, ...).
    package func write(_ bytes: UnsafeRawBufferPointer) throws(FileSystemError) -> Int {
        let count = POSIX.retrying { Glibc.write(rawValue, bytes.baseAddress, bytes.count) }
        guard count >= 0 else { throw FileSystemError("write", path: path, errno: errno) }
        return count
    }

    /// Writes all of `bytes`, going on after short writes.
    /// - Throws: ``FileSystemError`` of `write` with the errno of the write that
    ///   took nothing (`EIO` when the kernel took nothing and gave no errno); the
    ///   bytes before it are written.
    package func writeAll(_ bytes: UnsafeRawBufferPointer) throws(FileSystemError) {
        try POSIX.writeAll(rawValue, bytes, path: path)
    }

    /// Writes all of `bytes`, as ``writeAll(_:)-(UnsafeRawBufferPointer)``.
    package func writeAll(_ bytes: [UInt8]) throws(FileSystemError) {
        // Not a typed-throws closure: the compiler cannot yet pass one to a `rethrows` function.
        let failure: FileSystemError? = bytes.withUnsafeBytes { buffer in
            do throws(FileSystemError) { try writeAll(buffer) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// Writes all of `bytes` at `offset` of the file, as ``writeAll(toAbsoluteOffset:_:)-(_,UnsafeRawBufferPointer)``.
    package func writeAll(toAbsoluteOffset offset: Int64, _ bytes: [UInt8]) throws(FileSystemError) {
        let failure: FileSystemError? = bytes.withUnsafeBytes { buffer in
            do throws(FileSystemError) { try writeAll(toAbsoluteOffset: offset, buffer) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// Reads up to `count` bytes at `offset` of the file (`pread` once): fewer at its end.
    package func read(fromAbsoluteOffset offset: Int64, upTo count: Int) throws(FileSystemError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.removeSubrange(try read(fromAbsoluteOffset: offset, into: &bytes, bytes.indices)...)
        return bytes
    }

    /// Reads into `bytes[range]` at `offset` of the file (`pread` once), as
    /// ``read(fromAbsoluteOffset:into:)-(_,UnsafeMutableRawBufferPointer)``.
    /// - Returns: the bytes read, 0 at the end of the file.
    package func read(fromAbsoluteOffset offset: Int64, into bytes: inout [UInt8], _ range: Range<Int>) throws(FileSystemError) -> Int {
        // Not a typed-throws closure: the compiler cannot yet pass one to a `rethrows` function.
        let result: Result<Int, FileSystemError> = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(FileSystemError) in try read(fromAbsoluteOffset: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[range])) }
        }
        return try result.get()
    }

    /// Writes all of `bytes` at `offset` of the file (`pwrite`), going on after short writes.
    package func writeAll(toAbsoluteOffset offset: Int64, _ bytes: UnsafeRawBufferPointer) throws(FileSystemError) {
        var done = 0
        while done < bytes.count {
            let count = POSIX.retrying { pwrite(rawValue, bytes.baseAddress! + done, bytes.count - done, off_t(offset + Int64(done))) }
            guard count > 0 else { throw FileSystemError("write", path: path, errno: count < 0 ? errno : EIO) }
            done += count
        }
    }

    /// Flushes the file's bytes to disk (`fsync`).
    package func sync() throws(FileSystemError) {
        try POSIX.fsync(rawValue, path: path)
    }

    /// The file's `stat` (`fstat`).
    package func status() throws(FileSystemError) -> FileStatus {
        var info = stat()
        guard fstat(rawValue, &info) == 0 else { throw FileSystemError("stat", path: path, errno: errno) }
        return FileStatus(info)
    }

    /// Cuts or extends the file to `size` bytes (`ftruncate`).
    package func truncate(to size: Int64) throws(FileSystemError) {
        guard POSIX.retrying({ ftruncate(rawValue, off_t(size)) }) == 0 else { throw FileSystemError("truncate", path: path, errno: errno) }
    }

    /// Sets the permission bits (`fchmod`): the umask may have narrowed those `open` was given.
    package func setPermissions(_ mode: mode_t) throws(FileSystemError) {
        guard fchmod(rawValue, mode) == 0 else { throw FileSystemError("chmod", path: path, errno: errno) }
    }

    /// Frees the file's blocks in `range`, which then reads as zeros; the size
    /// stays. A file read once behind its writer gives its pages back this way:
    /// the next writes reuse them, where fresh ones cost far more to write into
    /// on a virtual machine that hands freed memory back to its host.
    /// - Returns: `false` when the file system cannot (the range is then kept).
    @discardableResult
    package func discard(_ range: Range<Int64>) -> Bool {
        range.isEmpty || POSIX.punchHole(rawValue, offset: range.lowerBound, length: range.upperBound - range.lowerBound)
    }

    /// Tells the kernel the file is read front to back (`posix_fadvise`); only a hint.
    package func adviseSequential() {
        _ = posix_fadvise(rawValue, 0, 0, POSIX_FADV_SEQUENTIAL)
    }

    /// Whether the descriptor is a terminal.
    package var isTerminal: Bool { isatty(rawValue) == 1 }
}

extension FileDescriptor {
    /// This process' standard input, output and error.
    package static let standardInput = FileDescriptor(rawValue: STDIN_FILENO, path: "stdin")
    package static let standardOutput = FileDescriptor(rawValue: STDOUT_FILENO, path: "stdout")
    package static let standardError = FileDescriptor(rawValue: STDERR_FILENO, path: "stderr")

    /// A pipe whose two ends are closed on `exec`.
    package static func pipe() throws(FileSystemError) -> (read: FileDescriptor, write: FileDescriptor) {
        let (read, write) = try POSIX.pipe()
        return (FileDescriptor(rawValue: read, path: "pipe"), FileDescriptor(rawValue: write, path: "pipe"))
    }
}

/// A file's `stat`, as `lstat`, `fstat` and ``FileDescriptor/status()`` give it:
/// the facts the library reads, in Swift types.
package struct FileStatus: Hashable, Sendable {
    /// The device of the file system that holds it (`st_dev`).
    package var device: UInt64
    /// Its inode on that device (`st_ino`): with ``device``, which file it is.
    package var inode: UInt64
    /// Its type and permission bits (`st_mode`).
    package var mode: FileMode
    /// Its size in bytes (`st_size`).
    package var size: Int64
    /// Its owner's and group's ids (`st_uid`, `st_gid`).
    package var owner: UInt32
    package var group: UInt32
    /// The time of its last write (`st_mtim`) and of its last change of any kind (`st_ctim`).
    package var modified: FileTime
    package var changed: FileTime

    package init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        mode = info.st_mode
        size = Int64(info.st_size)
        owner = info.st_uid
        group = info.st_gid
        modified = FileTime(info.st_mtim)
        changed = FileTime(info.st_ctim)
    }

    /// What kind of file it is.
    package var kind: FileKind { FileKind(mode: mode) }
    /// The permission bits (and set-id and sticky bits) of its mode.
    package var permissions: FileMode { mode & 0o7777 }

    /// Whether the two are the same file: the same device and inode.
    package func isSameFile(as other: FileStatus) -> Bool {
        device == other.device && inode == other.inode
    }
}

/// A time stamp of a file, to the nanosecond.
package struct FileTime: Hashable, Sendable {
    package var seconds: Int64
    package var nanoseconds: Int64

    init(_ time: timespec) {
        seconds = Int64(time.tv_sec)
        nanoseconds = Int64(time.tv_nsec)
    }
}
