#if canImport(Glibc)
import Glibc
#endif

/// What tells one state of a file from another without reading it: its
/// identity (device, inode), size, and the times of its last write and of its
/// last change of any kind. A write through any descriptor, a rename over it,
/// a truncation, all change one of them.
package struct FileState: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: FileTime
    /// `nil` when not part of the state (see ``init(path:changeTime:)``).
    var changed: FileTime?

    /// The state of the file at `path` (links not followed); `nil` when there is none.
    /// - Parameter changeTime: whether the time of its last change is part of it:
    ///   not for a file whose owner a reader sets again (SQLite, run as root,
    ///   gives a `-wal` it opens the main file's owner, even unchanged, even
    ///   read-only), which changes that time and nothing else.
    package init?(path: String, changeTime: Bool = true) {
        guard let info = try? POSIX.lstatIfPresent(path) else { return nil }
        (device, inode, size, modified) = (info.device, info.inode, info.size, info.modified)
        changed = changeTime ? info.changed : nil
    }
}

/// Whether a process holds a POSIX record lock (`fcntl`, or an open file
/// description's) on a file: how a store's live connections are told from a
/// store at rest. SQLite holds a read lock on its `-shm`'s DMS byte, and on the
/// main file, for as long as a connection to a WAL store is open.
package enum FileLocks {
    /// Whether any process (this one included) holds a lock on the file at
    /// `path`, read from the kernel's table (`/proc/locks`); `nil` when the table
    /// cannot be read. No descriptor of the file is opened: closing one would
    /// drop this process' own SQLite locks on it.
    package static func isHeld(_ path: String) -> Bool? {
        guard let info = try? POSIX.lstatIfPresent(path) else { return false }
        guard let bytes = try? POSIX.readFile("/proc/locks", limit: 16 << 20) else { return nil }
        // `1: POSIX  ADVISORY  READ 1234 fe:00:16228515 128 128`: the device as
        // major:minor in hex, then the inode in decimal.
        // glibc's `major()` and `minor()` (macros Swift does not import).
        let device = info.device
        let major = ((device >> 8) & 0xFFF) | ((device >> 32) & ~UInt64(0xFFF))
        let minor = (device & 0xFF) | ((device >> 12) & ~UInt64(0xFF))
        let file = String(major, radix: 16).leftPadded(to: 2) + ":" + String(minor, radix: 16).leftPadded(to: 2) + ":" + String(info.inode)
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " ")).map { String(decoding: $0, as: UTF8.self) }
            // A blocked request (`-> POSIX ...`) is not a lock held.
            guard fields.count >= 6, fields[1] != "->" else { continue }
            if fields.contains(file) { return true }
        }
        return false
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
