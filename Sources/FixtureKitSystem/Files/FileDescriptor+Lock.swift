#if canImport(Glibc)
import Glibc
#endif

extension FileDescriptor {
    /// An advisory `flock` lock: many holders of a shared one, one of an exclusive one.
    package enum LockKind: Sendable {
        case shared, exclusive

        var operation: Int32 { self == .shared ? LOCK_SH : LOCK_EX }
    }

    /// Takes `kind` of `flock` lock, waiting for its holder (again after `EINTR`).
    /// - Throws: ``FileSystemError`` of `flock`.
    package func lock(_ kind: LockKind) throws(FileSystemError) {
        guard POSIX.retrying({ flock(rawValue, kind.operation) }) == 0 else { throw FileSystemError("flock", path: path, errno: errno) }
    }

    /// Takes `kind` of `flock` lock without waiting on its holder, but tries
    /// again for up to `grace` (``POSIX/lock(_:_:grace:)``).
    /// - Returns: whether the lock is now held; `false` when another holds it.
    /// - Throws: ``FileSystemError`` of `flock` for any other failure.
    package func tryLock(_ kind: LockKind, grace: Duration = .milliseconds(500)) throws(FileSystemError) -> Bool {
        if POSIX.lock(rawValue, kind.operation, grace: grace) { return true }
        guard errno == EWOULDBLOCK else { throw FileSystemError("flock", path: path, errno: errno) }
        return false
    }

    /// Gives up the `flock` lock held through this descriptor.
    package func unlock() {
        _ = flock(rawValue, LOCK_UN)
    }

    /// Whether this descriptor and `path` name the same file now (device and
    /// inode; `path`'s links not followed): a file removed or replaced since it
    /// was opened does not.
    package func isStill(at path: String) -> Bool {
        guard let held = try? status(), let named = try? POSIX.lstat(path) else { return false }
        return held.isSameFile(as: named)
    }
}
