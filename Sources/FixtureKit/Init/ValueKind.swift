import Foundation
import FixtureKitSystem

/// What a sampled value looks like, for `init`'s suggestions. The tests are on
/// the value's shape alone; no value is ever printed or kept.
enum ValueKind: String, CaseIterable {
    case uuid
    case date = "date or timestamp"
    case json = "JSON"
    case url = "URL"
    case email = "e-mail"
    case ipAddress = "IP address"
    /// Digits only; a column of them of one length is a code, of several a number.
    case digits
    case number = "number"
    case phone = "phone number"
    case hex
    /// Base64, base32 or an encrypted string (`2.iv|data|mac`): one token of
    /// many different characters.
    case ciphertext = "base64 or ciphertext"
    /// One to four capitalized words: `Siobhán Kelly`, `Jean-Luc O'Brien`.
    case name = "person name"
    /// One lower-case word (`active`, `admin`): a category, or a user name.
    case word = "single word"
    case text = "free text"
    case other

    /// The kind of one value (not empty, spaces at either end dropped).
    static func of(_ text: String) -> ValueKind {
        let bytes = Array(text.utf8)
        if isUUID(bytes) { return .uuid }
        if bytes.withUnsafeBufferPointer({ isDate($0) }) { return .date }
        if let first = bytes.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
           (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) != nil { return .json }
        if isURL(text) { return .url }
        if isEmail(text) { return .email }
        if isIPAddress(text) { return .ipAddress }
        if bytes.allSatisfy(ValueTransforms.isDigit) { return .digits }
        if isNumber(text) { return .number }
        if isPhone(bytes) { return .phone }
        if isHex(bytes) { return .hex }
        if isToken(bytes) { return .ciphertext }
        if isName(text) { return .name }
        if bytes.count <= 32, bytes.allSatisfy({ isLowerAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }) { return .word }
        if text.contains(where: \.isLetter) { return .text }
        return .other
    }

    private static func isLowerAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || ValueTransforms.isDigit(byte)
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        ValueTransforms.isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }

    static func isUUID(_ bytes: [UInt8]) -> Bool {
        let dashes: Set<Int> = [8, 13, 18, 23]
        guard bytes.count == 36 else { return false }
        return bytes.enumerated().allSatisfy { dashes.contains($0.offset) ? $0.element == UInt8(ascii: "-") : isHexDigit($0.element) }
    }

    static func isDate(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var output: [UInt8] = []
        return DateShift.shift(bytes, days: 0, into: &output)
    }

    static func isURL(_ text: String) -> Bool {
        guard let colon = text.range(of: "://"), !text.contains(" ") else { return false }
        let scheme = text[..<colon.lowerBound]
        return !scheme.isEmpty && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) } && scheme.first!.isLetter
    }

    static func isEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix(".") else { return false }
        return !text.contains { $0.isWhitespace || $0 == "," || $0 == ";" || $0 == "<" }
    }

    static func isIPAddress(_ text: String) -> Bool {
        let quads = text.split(separator: ".", omittingEmptySubsequences: false)
        if quads.count == 4, quads.allSatisfy({ (1...3).contains($0.count) && $0.allSatisfy(\.isASCII) && Int($0).map { (0...255).contains($0) } == true }) { return true }
        // IPv6: eight groups of hex digits, or fewer with one `::`.
        let groups = text.split(separator: ":", omittingEmptySubsequences: false)
        return (3...8).contains(groups.count) && (groups.count == 8 || text.contains("::"))
            && groups.allSatisfy { $0.count <= 4 && $0.utf8.allSatisfy(isHexDigit) } && groups.contains { !$0.isEmpty }
    }

    static func isNumber(_ text: String) -> Bool {
        guard text.contains(where: \.isNumber), text.count <= 40, text.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }) else { return false }
        return Double(text) != nil
    }

    /// Digits with the separators phone numbers are written with: 6 to 15 digits.
    static func isPhone(_ bytes: [UInt8]) -> Bool {
        let digits = bytes.count(where: ValueTransforms.isDigit)
        let separators: Set<UInt8> = Set(" +-().".utf8)
        return (6...15).contains(digits) && bytes.allSatisfy { ValueTransforms.isDigit($0) || separators.contains($0) }
    }

    /// Hex digits (an even number, 8 or more, or a `#rrggbb` colour), a letter among them.
    static func isHex(_ bytes: [UInt8]) -> Bool {
        var digits = bytes[...]
        if digits.first == UInt8(ascii: "#") { digits = digits.dropFirst() }
        guard digits.count >= 6, digits.allSatisfy(isHexDigit), digits.contains(where: { !ValueTransforms.isDigit($0) }) else { return false }
        return digits.count != bytes.count || (digits.count >= 8 && digits.count % 2 == 0)
    }

    /// One token of 16 characters or more from the alphabets of base64, base32
    /// and encrypted strings, mixing at least two of capitals, small letters and digits.
    static func isToken(_ bytes: [UInt8]) -> Bool {
        let extra: Set<UInt8> = Set("+/=_-.|:~".utf8)
        guard bytes.count >= 16 else { return false }
        var capitals = false, smalls = false, digits = false
        for byte in bytes {
            if TextShape.isUpper(byte) { capitals = true } else if TextShape.isLower(byte) { smalls = true } else if ValueTransforms.isDigit(byte) { digits = true } else if !extra.contains(byte) { return false }
        }
        return [capitals, smalls, digits].count(where: { $0 }) >= 2
    }

    /// One to four words, each a capital and small letters (an apostrophe,
    /// a hyphen or a dot inside), as person names are written.
    static func isName(_ text: String) -> Bool {
        let words = text.split(separator: " ", omittingEmptySubsequences: false)
        guard (1...4).contains(words.count), text.count <= 60 else { return false }
        return words.allSatisfy { word in
            let parts = word.split(whereSeparator: { "-'’".contains($0) })
            guard !parts.isEmpty, !word.hasPrefix("-") else { return false }
            return parts.allSatisfy { part in
                var letters = part[...]
                if letters.hasSuffix(".") { letters = letters.dropLast() }
                guard let first = letters.first, first.isUppercase, first.isLetter else { return false }
                return letters.dropFirst().allSatisfy { $0.isLetter && $0.isLowercase }
            }
        }
    }

    /// The Shannon entropy of the bytes, in bits per byte.
    static func entropy<Bytes: Sequence>(_ bytes: Bytes) -> Double where Bytes.Element == UInt8 {
        var counts = [Int](repeating: 0, count: 256)
        var total = 0
        for byte in bytes {
            counts[Int(byte)] += 1
            total += 1
        }
        guard total > 0 else { return 0 }
        return counts.reduce(0.0) { sum, count in
            guard count > 0 else { return sum }
            let share = Double(count) / Double(total)
            return sum - share * log2(share)
        }
    }
}
