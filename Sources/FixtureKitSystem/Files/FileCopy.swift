#if canImport(Glibc)
import Glibc
#endif

/// Copies files in the kernel (`sendfile`), without passing the bytes through
/// user space.
package enum FileCopy {
    /// Copies the regular file at `source` to a new file at `destination`, and
    /// fsyncs it when asked.
    ///
    /// - Parameter sourceDescriptor: an already open descriptor of the source to
    ///   read instead of opening `source`; the caller keeps ownership of it (this
    ///   is how a store is copied under SQLite's locks without ever closing a
    ///   descriptor of it while they are held).
    /// - Returns: the bytes copied.
    @discardableResult
    package static func copy(from source: String, sourceDescriptor: FileDescriptor? = nil, to destination: String, sync: Bool = true) throws(FileSystemError) -> UInt64 {
        let input: Int32
        if let sourceDescriptor { input = sourceDescriptor.rawValue } else { input = try POSIX.open(source, O_RDONLY | O_NOFOLLOW | O_NONBLOCK) }
        defer { if sourceDescriptor == nil { close(input) } }
        let info = try FileDescriptor(rawValue: input, path: source).status()
        guard info.kind == .regular else {
            throw FileSystemError("copy", path: source, message: FileKind.describe(info.mode))
        }
        let output = try POSIX.open(destination, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o644)
        var closed = false
        defer { if !closed { close(output) } }
        var offset = off_t(0)
        var copied: UInt64 = 0
        while true {
            // Copies until the end as it is now: a file that grows is copied to its new end.
            let count = POSIX.retrying { sendfile(output, input, &offset, 1 << 30) }
            if count < 0 { throw FileSystemError("copy", path: errno == ENOSPC || errno == EDQUOT || errno == EFBIG ? destination : source, errno: errno) }
            if count == 0 { break }
            copied += UInt64(count)
        }
        if sync { try POSIX.fsync(output, path: destination) }
        closed = true
        guard close(output) == 0 else { throw FileSystemError("close", path: destination, errno: errno) }
        return copied
    }

    /// Copies a folder's files and subfolders (Core Data's `_SUPPORT` folder, a
    /// fixture), each file fsynced when asked.
    package static func copyFolder(from source: String, to destination: String, sync: Bool = true) throws(FileSystemError) {
        guard mkdir(destination, 0o755) == 0 else { throw FileSystemError("create folder", path: destination, errno: errno) }
        for item in try FolderListing.items(below: source) {
            guard case .file = item.kind else {
                throw FileSystemError("copy", path: source.appendingPath(item.path.description), message: "not a regular file")
            }
            let components = item.path.description.split(separator: "/").dropLast()
            var folder = destination
            for component in components {
                folder = folder.appendingPath(String(component))
                if mkdir(folder, 0o755) != 0 && errno != EEXIST { throw FileSystemError("create folder", path: folder, errno: errno) }
            }
            try copy(from: source.appendingPath(item.path.description), to: destination.appendingPath(item.path.description), sync: sync)
        }
    }
}

/// A folder that exists for the duration of one operation, then is removed:
/// the one way to get a temporary folder. It is made by `mkdtemp` (mode 0700,
/// a name no one else has) and removed with everything in it when this value
/// goes away; keep the value alive as long as the folder is needed.
package final class ScratchFolder: Sendable {
    package let path: String

    /// Creates a fresh folder: inside `parent` (beside a target, for an atomic
    /// rename) or in the system's temporary folder (`TMPDIR`).
    package init(in parent: String? = nil, prefix: String = "fixturekit") throws(FileSystemError) {
        let base = parent ?? Self.systemFolder
        var template = Array(base.appendingPath(".\(prefix)-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else { throw FileSystemError("create temporary folder", path: base, errno: errno) }
        path = String(cString: created)
    }

    /// The system's temporary folder: `TMPDIR`, else `/tmp`.
    package static var systemFolder: String { getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp" }

    /// Below this many free bytes, the temporary folder counts as full.
    package static let fullBelow: UInt64 = 1 << 20

    /// Whether the temporary folder's file system is (nearly) full.
    package static func isFull() -> Bool {
        guard let free = try? POSIX.availableSpace(at: systemFolder) else { return false }
        return free < fullBelow
    }

    deinit { ScratchFolder.remove(path) }

    /// Removes a folder and everything in it; missing is fine.
    package static func remove(_ path: String) {
        try? POSIX.removeTree(path)
    }
}
