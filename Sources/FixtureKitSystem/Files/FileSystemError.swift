/// A failed system call on a file: the operation, the path and the errno.
public struct FileSystemError: Error, CustomStringConvertible, Sendable, Equatable {
    /// `open`, `read`, `rename`, ...
    public package(set) var operation: String
    public package(set) var path: String
    public package(set) var errno: Int32
    /// A reason of the library's own, for failures that have no errno of their
    /// own ("not a regular file").
    public package(set) var message: String?

    package init(_ operation: String, path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    package init(_ operation: String, path: String, message: String) {
        self.operation = operation
        self.path = path
        self.errno = 0
        self.message = message
    }

    /// `strerror`'s text in lower case, as the rest of the tool's messages.
    public var reason: String {
        message ?? Errno(rawValue: errno).description
    }

    public var description: String { "\(operation): \(path): \(reason)" }
}
