#if canImport(Glibc)
import Glibc
#endif

/// A file's mode bits (`mode_t`): its kind, and the permission bits ``FileStatus/permissions`` gives.
package typealias FileMode = mode_t

extension POSIX {
    /// `path` with every symbolic link resolved and made absolute (`realpath`);
    /// `nil` when some part of it is not there or cannot be read.
    package static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Creates the folder `path` (`mkdir`, the umask applied to `mode`).
    /// - Parameter existing: whether something already at `path` is fine (`EEXIST`
    ///   ignored, as `mkdir -p` does: what uses the folder finds out if it is none).
    package static func createFolder(_ path: String, mode: FileMode = 0o755, existing: Bool = false) throws(FileSystemError) {
        guard mkdir(path, mode) != 0 else { return }
        let code = errno
        if existing, code == EEXIST { return }
        throw FileSystemError("create folder", path: path, errno: code)
    }

    /// Removes a file (`unlink`), reporting every failure, a missing file included.
    package static func removeFile(_ path: String) throws(FileSystemError) {
        guard Glibc.unlink(path) == 0 else { throw FileSystemError("remove", path: path, errno: errno) }
    }

    /// Sets the permission bits of `path` (`chmod`, links followed).
    package static func setPermissions(_ path: String, _ mode: FileMode) throws(FileSystemError) {
        guard chmod(path, mode) == 0 else { throw FileSystemError("chmod", path: path, errno: errno) }
    }

    /// Sets the owner and group of `path` itself, never of what a symbolic link points to (`lchown`).
    package static func setOwner(_ path: String, user: UInt32, group: UInt32) throws(FileSystemError) {
        guard lchown(path, user, group) == 0 else { throw FileSystemError("chown", path: path, errno: errno) }
    }

    /// Sleeps this thread for `microseconds` (`usleep`).
    package static func pause(microseconds: UInt32) {
        usleep(microseconds)
    }

    /// This process' id.
    package static var processID: Int32 { getpid() }
}

extension FileSystemError {
    /// A failure of `operation` on `path` with the errno `code`.
    package init(_ operation: String, path: String, code: Errno) {
        self.init(operation, path: path, errno: code.rawValue)
    }
}
