#if canImport(Glibc)
import Glibc
#endif

/// A system call's error number, by name, in the spirit of swift-system's
/// `Errno`: code above the primitives tells one failure from another by
/// ``FileSystemError/code`` without the C library's constants.
public struct Errno: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// `ENOENT`.
    public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    /// `EEXIST`.
    public static let fileExists = Errno(rawValue: EEXIST)
    /// `ENOTDIR`.
    public static let notDirectory = Errno(rawValue: ENOTDIR)
    /// `EISDIR`.
    public static let isDirectory = Errno(rawValue: EISDIR)
    /// `ELOOP`: a symbolic link where `O_NOFOLLOW` refuses one, or too many of them.
    public static let tooManySymbolicLinkLevels = Errno(rawValue: ELOOP)
    /// `EACCES`.
    public static let permissionDenied = Errno(rawValue: EACCES)
    /// `EPERM`.
    public static let notPermitted = Errno(rawValue: EPERM)
    /// `EROFS`.
    public static let readOnlyFileSystem = Errno(rawValue: EROFS)
    /// `ENOSPC`.
    public static let noSpace = Errno(rawValue: ENOSPC)
    /// `EDQUOT`.
    public static let diskQuotaExceeded = Errno(rawValue: EDQUOT)
    /// `EFBIG`.
    public static let fileTooLarge = Errno(rawValue: EFBIG)
    /// `EIO`.
    public static let ioError = Errno(rawValue: EIO)
    /// `EBADF`: a descriptor that is not open (or not open for this).
    public static let badFileDescriptor = Errno(rawValue: EBADF)
    /// `EINTR`.
    public static let interrupted = Errno(rawValue: EINTR)
    /// `EAGAIN` (`EWOULDBLOCK`): a descriptor that does not block has nothing now.
    public static let wouldBlock = Errno(rawValue: EAGAIN)
    /// `EPIPE`: the pipe's reader is gone.
    public static let brokenPipe = Errno(rawValue: EPIPE)
    /// `EXDEV`: a rename across file systems.
    public static let crossDevice = Errno(rawValue: EXDEV)
    /// `ENOTEMPTY`.
    public static let directoryNotEmpty = Errno(rawValue: ENOTEMPTY)
    /// `EINVAL`.
    public static let invalidArgument = Errno(rawValue: EINVAL)
    /// `ETXTBSY`: a program that another process still holds open for writing.
    public static let textFileBusy = Errno(rawValue: ETXTBSY)

    /// `strerror`'s text in lower case, as the rest of the tool's messages.
    public var description: String {
        guard let text = strerror(rawValue) else { return "errno \(rawValue)" }
        let message = String(cString: text)
        return message.prefix(1).lowercased() + message.dropFirst()
    }
}

extension FileSystemError {
    /// The errno, by name (none, `0`, for a failure of the library's own ``message``).
    public var code: Errno { Errno(rawValue: errno) }
}
