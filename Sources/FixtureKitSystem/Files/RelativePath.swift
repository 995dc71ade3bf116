/// A path inside a fixture folder, kept as the bytes the file system gave.
///
/// File names are bytes, not Unicode: two names that Swift's `String` considers
/// equal (NFC and NFD forms of "é") are two different files, and SHA256SUMS is
/// sorted bytewise. Components are separated by `/`; there is no leading `/`.
public struct RelativePath: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }
    public init(_ string: String) { self.bytes = Array(string.utf8) }

    /// The path for people: invalid UTF-8 is shown as U+FFFD.
    public var description: String { String(decoding: bytes, as: UTF8.self) }

    public static func < (lhs: RelativePath, rhs: RelativePath) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }

    /// This path below `parent`: `parent/self`.
    func appending(_ component: [UInt8]) -> RelativePath {
        bytes.isEmpty ? RelativePath(bytes: component) : RelativePath(bytes: bytes + [UInt8(ascii: "/")] + component)
    }

    /// The path's components.
    var components: [ArraySlice<UInt8>] { bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) }

    /// Whether the path stays inside the folder it is relative to: not absolute,
    /// not empty, no empty, `.` or `..` component, no NUL byte.
    package var isContained: Bool {
        guard !bytes.isEmpty, bytes.first != UInt8(ascii: "/"), !bytes.contains(0) else { return false }
        return components.allSatisfy { component in
            !component.isEmpty && !component.elementsEqual([UInt8(ascii: ".")])
                && !component.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")])
        }
    }
}

extension RelativePath {
    /// Calls `body` with the path's bytes as a NUL-terminated C string.
    package func withCString<Result>(_ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result {
        try (bytes.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { try body($0.baseAddress!) }
    }
}

extension RelativePath {
    /// The path in quotes for messages, with control characters made visible.
    package var quoted: String { "\"" + description.escapingControlCharacters(quote: true) + "\"" }
}

extension String {
    /// The text with line ends, tabs and other control characters written as
    /// escapes (`\n`, `\r`, `\t`, `\u{1b}`), and `\` doubled, so that a message
    /// naming any file stays one line.
    package func escapingControlCharacters(quote: Bool = false) -> String {
        var text = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\\": text += "\\\\"
            case "\"" where quote: text += "\\\""
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    text += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        return text
    }
}

extension String {
    /// A plain file name: not empty, no `/`, not `.` or `..`, no control characters.
    package var isSafeFileName: Bool {
        !isEmpty && self != "." && self != ".." && !contains("/") && !unicodeScalars.contains { $0.value < 0x20 }
    }
}
