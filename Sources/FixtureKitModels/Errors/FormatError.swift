/// A file fixturekit parses (fixturekit.lock, the corpus configuration, a
/// store's Core Data metadata) that does not follow its format: the file, the
/// line and column where the parser knows them, and what it expected there.
public struct FormatError: FixtureKitFailure, Equatable {
    /// The formats fixturekit reads.
    public enum Format: Sendable, Equatable {
        /// fixturekit.lock.
        case lock
        /// The corpus configuration, fixturekit.json.
        case configuration
        /// The property list in a Core Data store's `Z_METADATA`.
        case coreDataMetadata
    }

    public package(set) var format: Format
    /// The file, as the user named it.
    public package(set) var file: String
    /// The line (1-based) that breaks the format; `nil` for the file as a whole.
    public package(set) var line: Int?
    /// The column (1-based) in ``line``, when the parser knows it.
    public package(set) var column: Int?
    /// What the format expects there, or what is wrong with what was found:
    /// `not a SHA-256 (64 lower-case hexadecimal digits) at the end`.
    public package(set) var expected: String
    /// What helps, in words, when no ``remedy`` says it: what the file may name.
    public package(set) var hint: String?
    public package(set) var remedy: FixtureKitError.Remedy?
    /// The error that kept the file from being read, when one did.
    public package(set) var cause: (any Error)?

    public init(_ format: Format, file: String, line: Int? = nil, column: Int? = nil, expected: String, hint: String? = nil, remedy: FixtureKitError.Remedy? = nil, cause: (any Error)? = nil) {
        self.format = format
        self.file = file
        self.line = line
        self.column = column
        self.expected = expected
        self.hint = hint
        self.remedy = remedy
        self.cause = cause
    }

    public var what: String {
        switch format {
        case .lock: "read lock"
        case .configuration: "read configuration"
        case .coreDataMetadata: "read Core Data metadata"
        }
    }

    public var path: String? { file }

    /// `line 3: not a SHA-256 ...`, `line 1, column 12: ...`.
    public var why: String {
        guard let line else { return expected }
        return "line \(line)" + (column.map { ", column \($0)" } ?? "") + ": " + expected
    }

    public static func == (left: FormatError, right: FormatError) -> Bool {
        left.format == right.format && left.file == right.file && left.line == right.line && left.column == right.column
            && left.expected == right.expected && left.hint == right.hint && left.remedy == right.remedy
    }
}
