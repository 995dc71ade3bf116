#if canImport(Glibc)
import Glibc
#endif

/// Folder operations (creating, removing a tree, replacing one atomically) and
/// the Linux calls Swift's Glibc module does not declare.
extension POSIX {
    /// `mkdir`, then `chmod` to `mode` exactly (the umask may have narrowed it).
    package static func makeFolder(_ path: String, mode: mode_t = 0o755) throws(FileSystemError) {
        guard mkdir(path, mode) == 0 else { throw FileSystemError("create folder", path: path, errno: errno) }
        guard chmod(path, mode) == 0 else { throw FileSystemError("chmod", path: path, errno: errno) }
    }

    /// Removes `path` and everything below it, never following a symbolic link;
    /// a path that is not there is not an error.
    package static func removeTree(_ path: String) throws(FileSystemError) {
        guard let info = try lstatIfPresent(path) else { return }
        if let failure = FaultInjection.injectedFailure(.willRemove, path) { throw FileSystemError("remove", path: path, errno: failure) }
        guard (info.mode & S_IFMT) == S_IFDIR else {
            guard unlink(path) == 0 || errno == ENOENT else { throw FileSystemError("remove", path: path, errno: errno) }
            return
        }
        for name in try listDirectory(path) {
            try removeTree(path.appendingPath(String(pathBytes: name)))
        }
        guard rmdir(path) == 0 || errno == ENOENT else { throw FileSystemError("remove folder", path: path, errno: errno) }
    }

    /// Makes `copy` a tree of hard links to the files below `path` (folders made
    /// anew with the same modes): the files' bytes stay where they are, and any of
    /// them removed from `path` can be linked back from `copy`.
    package static func linkTree(_ path: String, to copy: String) throws(FileSystemError) {
        let info = try lstat(path)
        guard (info.mode & S_IFMT) == S_IFDIR else {
            guard link(path, copy) == 0 else { throw FileSystemError("link", path: path, errno: errno) }
            return
        }
        guard mkdir(copy, 0o700) == 0 else { throw FileSystemError("create folder", path: copy, errno: errno) }
        for name in try listDirectory(path).map({ String(pathBytes: $0) }) {
            try linkTree(path.appendingPath(name), to: copy.appendingPath(name))
        }
        guard chmod(copy, info.mode & 0o7777) == 0 else { throw FileSystemError("chmod", path: copy, errno: errno) }
    }

    /// Puts back below `path` every file and folder of `copy` (made by
    /// ``linkTree(_:to:)``) that is missing there.
    package static func restoreTree(_ path: String, from copy: String) throws(FileSystemError) {
        let info = try lstat(copy)
        guard (info.mode & S_IFMT) == S_IFDIR else {
            if try lstatIfPresent(path) == nil, link(copy, path) != 0 { throw FileSystemError("link", path: path, errno: errno) }
            return
        }
        if try lstatIfPresent(path) == nil { try makeFolder(path, mode: info.mode & 0o7777) }
        for name in try listDirectory(copy).map({ String(pathBytes: $0) }) {
            try restoreTree(path.appendingPath(name), from: copy.appendingPath(name))
        }
    }

    /// `RENAME_NOREPLACE` from `<linux/fs.h>`: fail with `EEXIST` rather than replace.
    static let renameNoReplaceFlag: UInt32 = 1 << 0
    /// `RENAME_EXCHANGE` from `<linux/fs.h>`: swap two paths in one step.
    static let renameExchangeFlag: UInt32 = 1 << 1

    private typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32

    /// glibc's `renameat2`, looked up at run time: Swift's Glibc module does not
    /// declare it (it sits behind `_GNU_SOURCE`).
    private static let renameAt2: RenameAt2? = {
        guard let symbol = dlsym(nil, "renameat2") else { return nil }
        return unsafeBitCast(symbol, to: RenameAt2.self)
    }()

    /// Renames `from` to `to` unless something is at `to` (a plain `rename` would
    /// silently replace an empty folder there).
    package static func renameNoReplace(_ from: String, _ to: String) throws(FileSystemError) {
        if let renameAt2 {
            if renameAt2(AT_FDCWD, from, AT_FDCWD, to, renameNoReplaceFlag) == 0 { return }
            guard errno == EINVAL || errno == ENOSYS else { throw FileSystemError("rename", path: from, errno: errno) }
        }
        guard try lstatIfPresent(to) == nil else { throw FileSystemError("rename", path: from, errno: EEXIST) }
        try rename(from, to)
    }

    /// Swaps `from` and `to` atomically (both must exist): afterwards `to` holds
    /// what `from` held and the other way round. Falls back to two renames, with a
    /// short window where `to` is absent, on a file system without `RENAME_EXCHANGE`.
    package static func exchange(_ from: String, _ to: String) throws(FileSystemError) {
        if let renameAt2 {
            if renameAt2(AT_FDCWD, from, AT_FDCWD, to, renameExchangeFlag) == 0 { return }
            guard errno == EINVAL || errno == ENOSYS else { throw FileSystemError("rename", path: from, errno: errno) }
        }
        let aside = from + ".old"
        try removeTree(aside)
        try rename(to, aside)
        do throws(FileSystemError) {
            try rename(from, to)
        } catch {
            _ = Glibc.rename(aside, to)
            throw error
        }
        try rename(aside, from)
    }

    private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32

    /// glibc's `pipe2`, looked up at run time for the same reason as `renameat2`.
    private static let pipe2: Pipe2? = {
        guard let symbol = dlsym(nil, "pipe2") else { return nil }
        return unsafeBitCast(symbol, to: Pipe2.self)
    }()

    /// A pipe whose two ends are closed on `exec` (`pipe2` with `O_CLOEXEC`, so
    /// that a program another thread starts meanwhile never inherits them).
    static func pipe(operation: String = "pipe") throws(FileSystemError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        if let pipe2 {
            guard pipe2(&fds, O_CLOEXEC) == 0 else { throw FileSystemError(operation, path: "pipe", errno: errno) }
        } else {
            guard Glibc.pipe(&fds) == 0 else { throw FileSystemError(operation, path: "pipe", errno: errno) }
            _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        }
        return (fds[0], fds[1])
    }

    /// `SYNC_FILE_RANGE_WRITE` from `<fcntl.h>`: start writing the range back, do not wait.
    static let syncFileRangeWrite: UInt32 = 2

    private typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32

    /// glibc's `sync_file_range`, looked up at run time for the same reason as `renameat2`.
    private static let syncFileRange: SyncFileRange? = {
        guard let symbol = dlsym(nil, "sync_file_range") else { return nil }
        return unsafeBitCast(symbol, to: SyncFileRange.self)
    }()

    /// `FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE` from `<linux/falloc.h>`.
    static let punchHoleKeepingSize: Int32 = 0x01 | 0x02

    private typealias Fallocate = @convention(c) (Int32, Int32, Int64, Int64) -> Int32

    /// glibc's `fallocate`, looked up at run time for the same reason as `renameat2`.
    private static let fallocate: Fallocate? = {
        guard let symbol = dlsym(nil, "fallocate") else { return nil }
        return unsafeBitCast(symbol, to: Fallocate.self)
    }()

    /// Frees the blocks of `length` bytes at `offset` of `fd` (`fallocate` with
    /// `FALLOC_FL_PUNCH_HOLE`); the size stays and the range reads as zeros.
    /// - Returns: `false` when the file system cannot (`EOPNOTSUPP`) or the call failed.
    static func punchHole(_ fd: Int32, offset: Int64, length: Int64) -> Bool {
        guard let fallocate else { return false }
        return retrying { fallocate(fd, punchHoleKeepingSize, offset, length) } == 0
    }

    /// Asks the kernel to start writing `length` bytes at `offset` of `fd` to disk,
    /// without waiting: the `fsync` that ends a large write then has little left to
    /// do. Only a hint: failures are ignored (the `fsync` reports real ones).
    static func startWriteback(_ fd: Int32, offset: UInt64, length: UInt64) {
        _ = syncFileRange?(fd, Int64(offset), Int64(length), syncFileRangeWrite)
    }
}

/// Starts the write-back of a file being written every ``interval`` bytes, so that
/// writing to disk overlaps the work that produces the bytes.
package struct WritebackTracker {
    /// 16 MiB: large enough to be one efficient request, small enough to start early.
    static let interval: UInt64 = 16 << 20

    private var written: UInt64 = 0
    private var flushed: UInt64 = 0

    package init() {}

    /// Records `count` more bytes written to `fd`; starts write-back past each interval.
    package mutating func wrote(_ count: Int, to fd: Int32) {
        written += UInt64(count)
        if written - flushed >= Self.interval {
            POSIX.startWriteback(fd, offset: flushed, length: written - flushed)
            flushed = written
        }
    }
}
