import CArchive

/// A failure inside libarchive: the call that failed, libarchive's errno and its
/// message (`archive_error_string`).
///
/// Its description reads `libarchive error in archive_read_next_header: Truncated tar archive`.
public struct ArchiveError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The libarchive function that failed.
    public package(set) var function: String
    /// `archive_errno`: a system errno, or one of libarchive's own codes
    /// (`ARCHIVE_ERRNO_MISC`, `ARCHIVE_ERRNO_FILE_FORMAT`).
    public package(set) var code: Int32
    /// libarchive's message, as it wrote it.
    public package(set) var message: String

    /// The error libarchive recorded on `handle` for a call to `function`.
    init(_ function: String, handle: OpaquePointer) {
        self.function = function
        self.code = archive_errno(handle)
        if let text = archive_error_string(handle) {
            self.message = String(cString: text)
        } else {
            self.message = "\(function) failed without a message"
        }
    }

    init(_ function: String, message: String, code: Int32 = ArchiveError.miscellaneous) {
        self.function = function
        self.code = code
        self.message = message
    }

    /// `ARCHIVE_ERRNO_MISC`: a failure without a system errno (a macro Swift does not import).
    static let miscellaneous: Int32 = -1

    public var description: String { "libarchive error in \(function): \(message)" }

    /// The message in lower case, as the tool's messages are: `truncated tar archive`.
    public var reason: String {
        // liblzma's LZMA_BUF_ERROR at the end of the input is how a cut xz stream shows.
        if message.lowercased().hasPrefix("lzma library error"), message.contains("No progress is possible") {
            return "truncated xz input"
        }
        let words = message.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        return words.prefix(1).lowercased() + words.dropFirst()
    }
}

/// The file types of `archive_entry.h` (`AE_IFREG`, ...): macros with a cast,
/// which Swift does not import. They are the `S_IF*` values of `<sys/stat.h>`.
package enum ArchiveFileType {
    package static let regular: UInt32 = 0o100000
    package static let folder: UInt32 = 0o040000
    package static let symbolicLink: UInt32 = 0o120000
    package static let characterDevice: UInt32 = 0o020000
    static let blockDevice: UInt32 = 0o060000
    package static let fifo: UInt32 = 0o010000
    static let socket: UInt32 = 0o140000
}
