#if canImport(Glibc)
import Glibc
#endif

/// What a file that is not a regular one is, in the words of the messages.
package enum FileKind {
    /// "is a folder", "is a FIFO", ... for a file that is not a regular one.
    package static func describe(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "is a folder, not a regular file"
        case S_IFLNK: "is a symbolic link, not a regular file"
        case S_IFIFO: "is a FIFO, not a regular file"
        case S_IFSOCK: "is a socket, not a regular file"
        case S_IFCHR, S_IFBLK: "is a device, not a regular file"
        default: "is not a regular file"
        }
    }
}
