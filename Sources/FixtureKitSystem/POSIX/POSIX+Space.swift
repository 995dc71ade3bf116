#if canImport(Glibc)
import Glibc
#endif

extension POSIX {
    /// The bytes an unprivileged process may still write on the file system that
    /// holds `path` (`statvfs`: available blocks times the fragment size).
    package static func availableSpace(at path: String) throws(FileSystemError) -> UInt64 {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { throw FileSystemError("statvfs", path: path, errno: errno) }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }

    /// The device that holds `path`: two paths on one device share their free space.
    package static func device(of path: String) throws(FileSystemError) -> UInt64 {
        let fd = try open(path, O_RDONLY)
        defer { close(fd) }
        return try FileDescriptor(rawValue: fd, path: path).status().device
    }

    /// Removes a file; a file that is not there is not an error.
    package static func unlinkIfPresent(_ path: String) throws(FileSystemError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw FileSystemError("remove", path: path, errno: errno) }
    }

    /// `path` made absolute against the working folder, without resolving links.
    package static func absolutePath(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        guard let folder = getcwd(nil, 0) else { return path }
        defer { free(folder) }
        return String(cString: folder).appendingPath(path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
    }

    /// Whether two paths name the same file (device and inode, links followed).
    package static func sameFile(_ first: String, _ second: String) -> Bool {
        guard let a = try? statFollowingLinks(first), let b = try? statFollowingLinks(second) else { return false }
        return a.isSameFile(as: b)
    }
}
