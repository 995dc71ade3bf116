import FixtureKitSystem

/// Checks that a file is strict JSON (RFC 8259) before it is decoded, so that a
/// mistake is told with its line and column: no comments, no trailing commas, no
/// key given twice in one object, nothing after the value. (Foundation's parser
/// says only "not valid JSON", and lets a trailing comma through.)
package enum JSONSyntax {
    /// The first fault of a file: `line 3, column 14: a trailing comma before "}"`.
    package struct Fault: Error, Equatable, CustomStringConvertible {
        var line: Int
        var column: Int
        var message: String
        package var description: String { "line \(line), column \(column): \(message)" }
    }

    /// Objects and arrays nested deeper than this are refused (a configuration never is).
    static let maximumDepth = 256

    package static func check(_ bytes: [UInt8]) throws(Fault) {
        var scanner = Scanner(bytes: bytes)
        // A UTF-8 byte order mark is allowed before the value.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { scanner.index = 3 }
        scanner.skipSpace()
        try scanner.value(depth: 0)
        scanner.skipSpace()
        if scanner.index < bytes.count { throw scanner.fault("more after the end of the JSON value") }
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        func fault(_ message: String, at position: Int? = nil) -> Fault {
            let position = min(position ?? index, bytes.count)
            var line = 1
            var lineStart = 0
            for offset in 0..<position where bytes[offset] == 0x0A {
                line += 1
                lineStart = offset + 1
            }
            // Columns count characters, not bytes: UTF-8 continuation bytes do not start one.
            let column = 1 + bytes[lineStart..<position].count { $0 & 0xC0 != 0x80 }
            return Fault(line: line, column: column, message: message)
        }

        /// What the byte at the cursor is, for messages.
        var found: String {
            guard let byte = current else { return "the end of the file" }
            switch byte {
            case 0x2F: return index + 1 < bytes.count && (bytes[index + 1] == 0x2F || bytes[index + 1] == 0x2A) ? "a comment (JSON has none)" : "\"/\""
            case 0x20...0x7E: return "\"\(Character(Unicode.Scalar(byte)))\""
            default: return "byte 0x\(String(byte, radix: 16))"
            }
        }

        mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }

        mutating func value(depth: Int) throws(Fault) {
            guard depth < JSONSyntax.maximumDepth else { throw fault("nested more than \(JSONSyntax.maximumDepth) deep") }
            switch current {
            case 0x7B: try object(depth: depth)
            case 0x5B: try array(depth: depth)
            case 0x22: _ = try string()
            case 0x74: try literal("true")
            case 0x66: try literal("false")
            case 0x6E: try literal("null")
            case let byte? where byte == 0x2D || (0x30...0x39).contains(byte): try number()
            default: throw fault("expected a value, found \(found)")
            }
        }

        mutating func object(depth: Int) throws(Fault) {
            index += 1
            skipSpace()
            if current == 0x7D { index += 1; return }
            var keys: Set<String> = []
            while true {
                guard current == 0x22 else {
                    throw fault(current == 0x7D ? "a trailing comma before \"}\"" : "expected a key in quotes, found \(found)")
                }
                let start = index
                let key = try string()
                guard keys.insert(key).inserted else { throw fault("key \"\(key)\" given twice in one object", at: start) }
                skipSpace()
                guard current == 0x3A else { throw fault("expected \":\" after the key, found \(found)") }
                index += 1
                skipSpace()
                try value(depth: depth + 1)
                skipSpace()
                switch current {
                case 0x2C: index += 1; skipSpace()
                case 0x7D: index += 1; return
                default: throw fault("expected \",\" or \"}\", found \(found)")
                }
            }
        }

        mutating func array(depth: Int) throws(Fault) {
            index += 1
            skipSpace()
            if current == 0x5D { index += 1; return }
            while true {
                if current == 0x5D { throw fault("a trailing comma before \"]\"") }
                try value(depth: depth + 1)
                skipSpace()
                switch current {
                case 0x2C: index += 1; skipSpace()
                case 0x5D: index += 1; return
                default: throw fault("expected \",\" or \"]\", found \(found)")
                }
            }
        }

        /// A string; its text, escapes decoded only as far as keys need them.
        mutating func string() throws(Fault) -> String {
            let start = index
            index += 1
            var text: [UInt8] = []
            while true {
                guard let byte = current else { throw fault("a string that never ends", at: start) }
                switch byte {
                case 0x22:
                    index += 1
                    return String(decoding: text, as: UTF8.self)
                case 0x5C:
                    index += 1
                    guard let escaped = current else { throw fault("a string that never ends", at: start) }
                    switch escaped {
                    case 0x22, 0x5C, 0x2F: text.append(escaped)
                    case 0x62, 0x66, 0x6E, 0x72, 0x74: text.append(0x20)
                    case 0x75:
                        for offset in 1...4 {
                            let digit = index + offset < bytes.count ? bytes[index + offset] : 0
                            guard (0x30...0x39).contains(digit) || (0x41...0x46).contains(digit) || (0x61...0x66).contains(digit) else {
                                throw fault("\"\\u\" needs four hexadecimal digits")
                            }
                        }
                        text += bytes[(index - 1)...(index + 4)]
                        index += 4
                    default: throw fault("unknown escape \"\\\(Character(Unicode.Scalar(escaped)))\"", at: index - 1)
                    }
                    index += 1
                case 0x00..<0x20:
                    throw fault("a control character in a string (a line feed is written \\n)")
                default:
                    text.append(byte)
                    index += 1
                }
            }
        }

        mutating func literal(_ word: String) throws(Fault) {
            let expected = Array(word.utf8)
            guard bytes.count - index >= expected.count, Array(bytes[index..<(index + expected.count)]) == expected else {
                throw fault("expected a value, found \(found)")
            }
            index += expected.count
        }

        mutating func number() throws(Fault) {
            func digits() -> Int {
                let start = index
                while let byte = current, (0x30...0x39).contains(byte) { index += 1 }
                return index - start
            }
            if current == 0x2D { index += 1 }
            if current == 0x30 {
                index += 1
                if let byte = current, (0x30...0x39).contains(byte) { throw fault("a number with a leading zero") }
            } else if digits() == 0 {
                throw fault("expected a digit, found \(found)")
            }
            if current == 0x2E {
                index += 1
                guard digits() > 0 else { throw fault("expected a digit after \".\", found \(found)") }
            }
            if current == 0x65 || current == 0x45 {
                index += 1
                if current == 0x2B || current == 0x2D { index += 1 }
                guard digits() > 0 else { throw fault("expected a digit in the exponent, found \(found)") }
            }
        }
    }
}
