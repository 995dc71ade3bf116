import FixtureKitSystem

/// Checks that a file is strict JSON (RFC 8259) before it is decoded, so that a
/// mistake is told with its line and column: no comments, no trailing commas, no
/// key given twice in one object, nothing after the value; and nothing that
/// Foundation's parser, which runs next, refuses: a number no `Double` holds
/// (`1e400`, 400 digits), bytes that are not UTF-8, a `\u` escape of half a
/// surrogate pair. (Foundation says only "not valid JSON", and lets a trailing
/// comma through.)
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
                        let escape = index - 1
                        let unit = try hexEscape()
                        if (0xDC00...0xDFFF).contains(unit) {
                            throw fault("\"\\u\(String(unit, radix: 16))\" is the second half of a surrogate pair, without the first", at: escape)
                        }
                        if (0xD800...0xDBFF).contains(unit) {
                            // UTF-16's first half needs its second right after: \ud83d\ude00.
                            let next = index + 1
                            guard next + 1 < bytes.count, bytes[next] == 0x5C, bytes[next + 1] == 0x75 else {
                                throw fault("\"\\u\(String(unit, radix: 16))\" is the first half of a surrogate pair, without the second", at: escape)
                            }
                            index = next + 1
                            guard (0xDC00...0xDFFF).contains(try hexEscape()) else {
                                throw fault("\"\\u\(String(unit, radix: 16))\" is the first half of a surrogate pair, without the second", at: escape)
                            }
                        }
                        text += bytes[escape...index]
                    default: throw fault("unknown escape \"\\\(Character(Unicode.Scalar(escaped)))\"", at: index - 1)
                    }
                    index += 1
                case 0x00..<0x20:
                    throw fault("a control character in a string (a line feed is written \\n)")
                case 0x80...:
                    let length = utf8SequenceLength()
                    guard length > 0 else { throw fault("bytes that are not UTF-8 in a string (\(found))") }
                    text += bytes[index..<(index + length)]
                    index += length
                default:
                    text.append(byte)
                    index += 1
                }
            }
        }

        /// The four hexadecimal digits after `\u` (the cursor on the `u`), read;
        /// the cursor ends on the last digit.
        mutating func hexEscape() throws(Fault) -> UInt32 {
            var unit: UInt32 = 0
            for offset in 1...4 {
                let digit = index + offset < bytes.count ? bytes[index + offset] : 0
                guard let value = Self.hexValue(digit) else {
                    throw fault("\"\\u\" needs four hexadecimal digits")
                }
                unit = unit << 4 | value
            }
            index += 4
            return unit
        }

        static func hexValue(_ digit: UInt8) -> UInt32? {
            switch digit {
            case 0x30...0x39: UInt32(digit - 0x30)
            case 0x41...0x46: UInt32(digit - 0x41 + 10)
            case 0x61...0x66: UInt32(digit - 0x61 + 10)
            default: nil
            }
        }

        /// The length of the well-formed UTF-8 sequence at the cursor (Unicode's
        /// table 3-7: no overlong form, no surrogate, nothing above U+10FFFF), or 0.
        func utf8SequenceLength() -> Int {
            let lead = bytes[index]
            let (length, second): (Int, ClosedRange<UInt8>) = switch lead {
            case 0xC2...0xDF: (2, 0x80...0xBF)
            case 0xE0: (3, 0xA0...0xBF)
            case 0xE1...0xEC, 0xEE...0xEF: (3, 0x80...0xBF)
            case 0xED: (3, 0x80...0x9F)
            case 0xF0: (4, 0x90...0xBF)
            case 0xF1...0xF3: (4, 0x80...0xBF)
            case 0xF4: (4, 0x80...0x8F)
            default: (0, 0x80...0xBF)
            }
            guard length > 0, index + length <= bytes.count, second.contains(bytes[index + 1]) else { return 0 }
            for offset in 2..<length where !(0x80...0xBF).contains(bytes[index + offset]) { return 0 }
            return length
        }

        mutating func literal(_ word: String) throws(Fault) {
            let expected = Array(word.utf8)
            guard bytes.count - index >= expected.count, Array(bytes[index..<(index + expected.count)]) == expected else {
                throw fault("expected a value, found \(found)")
            }
            index += expected.count
        }

        /// A number, which must also fit a `Double`, as Foundation's parser requires
        /// (an integer of more than 308 digits does not; `1e-400` is read as 0).
        mutating func number() throws(Fault) {
            let start = index
            try numberSyntax()
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            guard let value = Double(text), value.isFinite else {
                let shown = text.count > 24 ? "a number of \(text.count) characters" : "the number \(text)"
                throw fault("\(shown) is too large: a JSON number here must fit a 64-bit floating-point number (at most about 1.8e308)", at: start)
            }
        }

        mutating func numberSyntax() throws(Fault) {
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
