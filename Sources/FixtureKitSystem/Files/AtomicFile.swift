#if canImport(Glibc)
import Glibc
#endif

/// Writes files so that they are never seen half-written under their final name.
package enum AtomicFile {
    /// The temporary name a file is written under before it is renamed: `name.tmp`
    /// beside it. A run killed half-way leaves only this name, which the next
    /// write of the same file truncates and reuses.
    package static func temporaryPath(for path: String) -> String { path + ".tmp" }

    /// Writes `bytes` to `path.tmp`, fsyncs it, renames it to `path` and fsyncs the
    /// folder. On any error the temporary file is removed and `path` is as before.
    /// - Parameter replace: `false` refuses a file already at `path` (`EEXIST`), even
    ///   one that appears while this one is written.
    package static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644, replace: Bool = true) throws(FileSystemError) {
        let temporary = temporaryPath(for: path)
        let fd = try POSIX.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode: mode)
        do throws(FileSystemError) {
            let failure: FileSystemError? = bytes.withUnsafeBytes { buffer in
                do throws(FileSystemError) {
                    try POSIX.writeAll(fd, buffer, path: temporary)
                    return nil
                } catch {
                    return error
                }
            }
            if let failure { throw failure }
            // The umask may have narrowed the mode given to open.
            guard fchmod(fd, mode) == 0 else { throw FileSystemError("chmod", path: temporary, errno: errno) }
            try POSIX.fsync(fd, path: temporary)
            close(fd)
            if replace { try POSIX.rename(temporary, path) } else { try POSIX.renameNoReplace(temporary, path) }
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        try POSIX.fsyncDirectory(parentFolder(of: path))
    }

    /// The folder holding `path`: `.` for a bare name.
    package static func parentFolder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
