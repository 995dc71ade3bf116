#if canImport(Glibc)
import Glibc
#endif
import FixtureKitSystem
import FixtureKitModels

/// One `upgrade`, `backup`, `restore` or `restore --pending` of a store at a
/// time: `flock` on `.App.sqlite.fixturekit-lock` beside the store, held for the
/// whole run.
///
/// The kernel releases a `flock` when the last descriptor of it closes, so a
/// run that crashes or is killed (`kill -9` included) never leaves the store
/// locked. The file holds the holder's pid and command, for the message of the
/// run it turns away: `another fixturekit upgrade of App.sqlite is running (pid 4711)`.
/// Its descriptor is closed on `exec`, and the stage reaper closes it too
/// (``StageProcess``): no program a stage starts keeps the lock after fixturekit.
///
/// A run tries the lock for half a second before it turns away (``POSIX/lock(_:_:grace:)``):
/// a child that another thread is forking holds it until its `exec`.
///
/// The holder removes the file when it is done, while it still holds the lock;
/// a run that opened the file meanwhile finds, once it has the lock, that its
/// descriptor no longer names the file at that path, and starts again.
final class StoreLock {
    /// Appended to `.` and the store's file name, beside the store.
    static let suffix = ".fixturekit-lock"

    let path: String
    private var fd: Int32

    /// `.App.sqlite.fixturekit-lock` beside the store.
    static func path(forStore storePath: String) -> String {
        let name = storePath.split(separator: "/").last.map(String.init) ?? storePath
        return AtomicFile.parentFolder(of: storePath).appendingPath("." + name + suffix)
    }

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    deinit { release() }

    /// Takes the lock of `storePath` for `command` (`upgrade`, `backup`, ...).
    /// - Parameter required: whether a folder the lock cannot be created in is an
    ///   error; `backup`, which only reads the store, goes on without the lock
    ///   there (no `upgrade` can run in a folder nobody can write to), unless
    ///   another run holds an existing lock file it can read.
    /// - Returns: the lock, or `nil` when it was not required and could not be made.
    /// - Throws: ``FixtureKitError`` (exit status 2): `another fixturekit upgrade of
    ///   STORE is running (pid N)`, or the file cannot be opened.
    static func acquire(store storePath: String, command: String, what: String, required: Bool = true) throws(FixtureKitError) -> StoreLock? {
        let path = path(forStore: storePath)
        for _ in 0..<Self.attempts {
            var fd = Glibc.open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd < 0, errno == EACCES || errno == EROFS || errno == EPERM {
                let denied = errno
                fd = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
                if fd < 0 {
                    if !required { return nil }
                    throw FixtureKitError(what: "\(what): lock", path: path, why: FileSystemError("open", path: path, errno: denied).reason)
                }
            }
            guard fd >= 0 else {
                throw FixtureKitError(what: "\(what): lock", path: path, why: FileSystemError("open", path: path, errno: errno).reason)
            }
            guard POSIX.lock(fd, LOCK_EX) else {
                let code = errno
                let holder = code == EWOULDBLOCK ? Self.holder(fd) : nil
                close(fd)
                guard code == EWOULDBLOCK else {
                    throw FixtureKitError(what: "\(what): lock", path: path, why: FileSystemError("flock", path: path, errno: code).reason)
                }
                let running = holder.map { "another fixturekit \($0.command) of \(storePath) is running (pid \($0.pid))" }
                    ?? "another fixturekit run holds \(storePath)"
                throw FixtureKitError(what: what, path: storePath, why: running, hint: "wait for it to finish, then try again", code: .storeBusy)
            }
            // The file may have been removed (by the holder that just finished) or
            // replaced between open and flock: then this lock guards nothing.
            var held = stat(), named = stat()
            guard fstat(fd, &held) == 0, lstat(path, &named) == 0, held.st_dev == named.st_dev, held.st_ino == named.st_ino else {
                close(fd)
                continue
            }
            let line = Array("\(getpid()) \(command)\n".utf8)
            if ftruncate(fd, 0) == 0 {
                _ = line.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
            }
            return StoreLock(path: path, fd: fd)
        }
        throw FixtureKitError(what: "\(what): lock", path: path, why: "the lock file keeps being replaced")
    }

    /// Whether a run holds the lock of `storePath` now.
    static func isHeld(store storePath: String) -> Bool {
        let fd = Glibc.open(path(forStore: storePath), O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return false
        }
        return errno == EWOULDBLOCK
    }

    /// Removes the file (while the lock is still held) and gives the lock up.
    func release() {
        guard fd >= 0 else { return }
        var held = stat(), named = stat()
        if fstat(fd, &held) == 0, lstat(path, &named) == 0, held.st_dev == named.st_dev, held.st_ino == named.st_ino {
            unlink(path)
        }
        close(fd)
        fd = -1
    }

    /// How many times a lock file replaced under a run is opened again.
    private static let attempts = 20

    /// The holder's pid and command, as it wrote them: it writes them just after
    /// it takes the lock, so an empty file is read again for a moment.
    private static func holder(_ fd: Int32) -> (pid: Int32, command: String)? {
        for _ in 0..<20 {
            var buffer = [UInt8](repeating: 0, count: 128)
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                let words = String(decoding: buffer[0..<count], as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
                if words.count >= 2, let pid = Int32(words[0]) { return (pid, String(words[1])) }
            }
            usleep(10_000)
        }
        return nil
    }
}
