#if canImport(Glibc)
import Glibc
#endif

/// A system call's error number, by name, in the spirit of swift-system's
/// `Errno`: code above the primitives tells one failure from another by
/// ``FileSystemError/code`` without the C library's constants.
package struct Errno: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// `ENOENT`.
    package static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    /// `EEXIST`.
    package static let fileExists = Errno(rawValue: EEXIST)
    /// `ENOTDIR`.
    package static let notDirectory = Errno(rawValue: ENOTDIR)
    /// `EISDIR`.
    package static let isDirectory = Errno(rawValue: EISDIR)
    /// `ELOOP`: a symbolic link where `O_NOFOLLOW` refuses one, or too many of them.
    package static let tooManySymbolicLinkLevels = Errno(rawValue: ELOOP)
    /// `EACCES`.
    package static let permissionDenied = Errno(rawValue: EACCES)
    /// `EPERM`.
    package static let notPermitted = Errno(rawValue: EPERM)
    /// `EROFS`.
    package static let readOnlyFileSystem = Errno(rawValue: EROFS)
    /// `ENOSPC`.
    package static let noSpace = Errno(rawValue: ENOSPC)
    /// `EDQUOT`.
    package static let diskQuotaExceeded = Errno(rawValue: EDQUOT)
    /// `EFBIG`.
    package static let fileTooLarge = Errno(rawValue: EFBIG)
    /// `EIO`.
    package static let ioError = Errno(rawValue: EIO)
    /// `EBADF`: a descriptor that is not open (or not open for this).
    package static let badFileDescriptor = Errno(rawValue: EBADF)
    /// `EINTR`.
    package static let interrupted = Errno(rawValue: EINTR)
    /// `EAGAIN` (`EWOULDBLOCK`): a descriptor that does not block has nothing now.
    package static let wouldBlock = Errno(rawValue: EAGAIN)
    /// `EPIPE`: the pipe's reader is gone.
    package static let brokenPipe = Errno(rawValue: EPIPE)
    /// `EXDEV`: a rename across file systems.
    package static let crossDevice = Errno(rawValue: EXDEV)
    /// `ENOTEMPTY`.
    package static let directoryNotEmpty = Errno(rawValue: ENOTEMPTY)
    /// `EINVAL`.
    package static let invalidArgument = Errno(rawValue: EINVAL)

    /// `strerror`'s text in lower case, as the rest of the tool's messages.
    package var description: String {
        guard let text = strerror(rawValue) else { return "errno \(rawValue)" }
        let message = String(cString: text)
        return message.prefix(1).lowercased() + message.dropFirst()
    }
}

extension FileSystemError {
    /// The errno, by name (none, `0`, for a failure of the library's own ``message``).
    package var code: Errno { Errno(rawValue: errno) }
}
