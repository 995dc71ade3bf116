#if canImport(Glibc)
import Glibc
#endif

/// The kind of a file, from its `st_mode`: what a file that is not a regular
/// one is, in the words of the messages.
public enum FileKind: Sendable, Equatable {
    case regular
    case folder
    case symbolicLink
    case fifo
    case socket
    /// A character or block device.
    case device
    case other

    /// The kind of the file whose `st_mode` is `mode`.
    public init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .folder
        case S_IFLNK: self = .symbolicLink
        case S_IFIFO: self = .fifo
        case S_IFSOCK: self = .socket
        case S_IFCHR, S_IFBLK: self = .device
        default: self = .other
        }
    }

    /// "is a folder, not a regular file", "is a FIFO, not a regular file", ...
    public var notRegular: String {
        switch self {
        case .folder: "is a folder, not a regular file"
        case .symbolicLink: "is a symbolic link, not a regular file"
        case .fifo: "is a FIFO, not a regular file"
        case .socket: "is a socket, not a regular file"
        case .device: "is a device, not a regular file"
        case .regular, .other: "is not a regular file"
        }
    }

    /// "is a folder", "is a FIFO", ... for a file that is not a regular one.
    package static func describe(_ mode: mode_t) -> String {
        FileKind(mode: mode).notRegular
    }
}
