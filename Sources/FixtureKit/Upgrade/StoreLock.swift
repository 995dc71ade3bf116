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
    private var fd: FileDescriptor?

    /// `.App.sqlite.fixturekit-lock` beside the store.
    static func path(forStore storePath: String) -> String {
        let name = storePath.split(separator: "/").last.map(String.init) ?? storePath
        return AtomicFile.parentFolder(of: storePath).appendingPath("." + name + suffix)
    }

    private init(path: String, fd: FileDescriptor) {
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
            let fd: FileDescriptor
            do throws(FileSystemError) {
                fd = try FileDescriptor.open(path, .readWrite, options: [.create, .noFollow], permissions: 0o600)
            } catch where [.permissionDenied, .readOnlyFileSystem, .notPermitted].contains(error.code) {
                do { fd = try FileDescriptor.open(path, .readOnly, options: .noFollow) } catch _ {
                    if !required { return nil }
                    throw FixtureKitError(what: "\(what): lock", path: path, why: error.reason, cause: error)
                }
            } catch {
                throw FixtureKitError(what: "\(what): lock", path: path, why: error.reason, cause: error)
            }
            let locked: Bool
            do throws(FileSystemError) { locked = try fd.tryLock(.exclusive) } catch {
                try? fd.close()
                throw FixtureKitError(what: "\(what): lock", path: path, why: error.reason, cause: error)
            }
            guard locked else {
                let holder = Self.holder(fd)
                try? fd.close()
                let running = holder.map { "another fixturekit \($0.command) of \(storePath) is running (pid \($0.pid))" }
                    ?? "another fixturekit run holds \(storePath)"
                throw FixtureKitError(what: what, path: storePath, why: running, hint: "wait for it to finish, then try again", code: .storeBusy)
            }
            // The file may have been removed (by the holder that just finished) or
            // replaced between open and flock: then this lock guards nothing.
            guard fd.isStill(at: path) else {
                try? fd.close()
                continue
            }
            if (try? fd.truncate(to: 0)) != nil {
                try? fd.writeAll(toAbsoluteOffset: 0, Array("\(POSIX.processID) \(command)\n".utf8))
            }
            return StoreLock(path: path, fd: fd)
        }
        throw FixtureKitError(what: "\(what): lock", path: path, why: "the lock file keeps being replaced")
    }

    /// Whether a run holds the lock of `storePath` now.
    static func isHeld(store storePath: String) -> Bool {
        guard let fd = try? FileDescriptor.open(path(forStore: storePath), .readOnly, options: .noFollow) else { return false }
        return fd.closeAfter { fd in
            guard let locked = try? fd.tryLock(.shared, grace: .zero) else { return false }
            if locked { fd.unlock() }
            return !locked
        }
    }

    /// Removes the file (while the lock is still held) and gives the lock up.
    func release() {
        guard let fd else { return }
        if fd.isStill(at: path) { try? POSIX.removeFile(path) }
        try? fd.close()
        self.fd = nil
    }

    /// How many times a lock file replaced under a run is opened again.
    private static let attempts = 20

    /// The holder's pid and command, as it wrote them: it writes them just after
    /// it takes the lock, so an empty file is read again for a moment.
    private static func holder(_ fd: FileDescriptor) -> (pid: Int32, command: String)? {
        for _ in 0..<20 {
            if let buffer = try? fd.read(fromAbsoluteOffset: 0, upTo: 128), !buffer.isEmpty {
                let words = String(decoding: buffer, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
                if words.count >= 2, let pid = Int32(words[0]) { return (pid, String(words[1])) }
            }
            POSIX.pause(microseconds: 10_000)
        }
        return nil
    }
}
