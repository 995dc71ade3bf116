import FixtureKitSystem

/// What a keyed derivation is for: the first byte of every HMAC message, so that
/// no two uses of the key ever hash the same message.
enum DerivationTag: UInt8 {
    case pseudonym = 0x50 // P
    case fake = 0x46 // F
    case shiftDate = 0x53 // S
    case noise = 0x4E // N
}

/// A deterministic stream of bytes seeded by an HMAC: xoshiro256** over the
/// MAC's 32 bytes. The MAC carries the secret; the generator only spreads it
/// over as many digits, letters or words as the output needs.
struct KeyedStream {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    init(digest: UnsafePointer<UInt8>) {
        func word(_ index: Int) -> UInt64 {
            UnsafeRawPointer(digest + index * 8).loadUnaligned(as: UInt64.self).littleEndian
        }
        state = (word(0), word(1), word(2), word(3))
        if state == (0, 0, 0, 0) { state.0 = 1 }
    }

    mutating func next() -> UInt64 {
        let result = (state.1 &* 5).rotatedLeft(7) &* 9
        let t = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= t
        state.3 = state.3.rotatedLeft(45)
        return result
    }

    /// A number in `0..<bound` (`bound` > 0), without modulo bias worth speaking of for small bounds.
    mutating func next(below bound: Int) -> Int {
        Int(next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// A number in `[0, 1)`.
    mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}

extension UInt64 {
    func rotatedLeft(_ count: UInt64) -> UInt64 { (self << count) | (self >> (64 - count)) }
}

/// The pure value transforms of the strategies, on bytes.
enum ValueTransforms {
    /// Static strings: their bytes are read with no reference counting.
    static let hexDigits: StaticString = "0123456789abcdef"
    /// Pseudonymous e-mail addresses are `user-<12 hex digits>@example.invalid`
    /// (`.invalid` is reserved by RFC 2606: it can never reach anyone).
    static let emailPrefix: StaticString = "user-"
    static let emailDomain: StaticString = "@example.invalid"
    static let emailHexDigits = 12
    /// After this many collisions, a `name` pseudonym gets a number after it, so
    /// that a domain with more values than names still finds unique ones.
    static let nameAttemptsBeforeNumber: UInt32 = 16

    static func appendHex(_ stream: inout KeyedStream, count: Int, to output: inout [UInt8]) {
        let digits = hexDigits.utf8Start
        for _ in 0..<count { output.append(digits[stream.next(below: 16)]) }
    }

    static func append(_ text: StaticString, to output: inout [UInt8]) {
        output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// A pseudonym of text (or of a number's text) in `format`.
    static func pseudonym(_ format: PseudonymFormat, length: Int, attempt: UInt32, input: UnsafeBufferPointer<UInt8>, stream: inout KeyedStream, into output: inout [UInt8]) {
        switch format {
        case .hex:
            appendHex(&stream, count: length, to: &output)
        case .uuid:
            var bytes = (0..<16).map { _ in UInt8(truncatingIfNeeded: stream.next()) }
            bytes[6] = (bytes[6] & 0x0F) | 0x40 // version 4
            bytes[8] = (bytes[8] & 0x3F) | 0x80 // RFC 4122 variant
            for (index, byte) in bytes.enumerated() {
                if [4, 6, 8, 10].contains(index) { output.append(UInt8(ascii: "-")) }
                output.append(hexDigits.utf8Start[Int(byte >> 4)])
                output.append(hexDigits.utf8Start[Int(byte & 0x0F)])
            }
        case .email:
            append(emailPrefix, to: &output)
            appendHex(&stream, count: emailHexDigits, to: &output)
            append(emailDomain, to: &output)
        case .name:
            output.append(contentsOf: FakeData.firstNames[stream.next(below: FakeData.firstNames.count)])
            output.append(UInt8(ascii: " "))
            output.append(contentsOf: FakeData.lastNames[stream.next(below: FakeData.lastNames.count)])
            if attempt >= nameAttemptsBeforeNumber {
                output.append(UInt8(ascii: " "))
                output.append(contentsOf: Array(String(attempt).utf8))
            }
        case .digits:
            let hasDigits = input.contains { isDigit($0) }
            if hasDigits {
                for byte in input { output.append(isDigit(byte) ? UInt8(ascii: "0") + UInt8(stream.next(below: 10)) : byte) }
            } else {
                for _ in 0..<max(1, scalarCount(input)) { output.append(UInt8(ascii: "0") + UInt8(stream.next(below: 10))) }
            }
        }
    }

    /// A value from the built-in lists, of similar length to `input` for `text`.
    static func fake(_ kind: FakeKind, input: UnsafeBufferPointer<UInt8>, stream: inout KeyedStream, into output: inout [UInt8]) {
        func pick(_ list: [[UInt8]]) -> [UInt8] { list[stream.next(below: list.count)] }
        switch kind {
        case .name:
            output.append(contentsOf: pick(FakeData.firstNames))
            output.append(UInt8(ascii: " "))
            output.append(contentsOf: pick(FakeData.lastNames))
        case .firstName:
            output.append(contentsOf: pick(FakeData.firstNames))
        case .lastName:
            output.append(contentsOf: pick(FakeData.lastNames))
        case .word:
            output.append(contentsOf: pick(FakeData.words))
        case .text:
            // Words up to the original's length in characters, the last one cut.
            let target = max(1, scalarCount(input))
            while output.count < target {
                if !output.isEmpty { output.append(UInt8(ascii: " ")) }
                output.append(contentsOf: pick(FakeData.words))
            }
            output.removeSubrange(target...)
            if output.last == UInt8(ascii: " ") { output[output.count - 1] = UInt8(ascii: "a") }
        }
        // A capital first letter stays one.
        if kind == .word || kind == .text, let first = input.first, (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first),
           let letter = output.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(letter) {
            output[0] = letter - 32
        }
    }

    /// `input` with every character but the first `keepFirst` and last `keepLast`
    /// replaced by `character`; a value no longer than what would be kept is
    /// masked whole, so that mask never returns a value unchanged.
    static func mask(keepFirst: Int, keepLast: Int, character: [UInt8], input: UnsafeBufferPointer<UInt8>, isBlob: Bool, into output: inout [UInt8]) {
        if isBlob || !input.contains(where: { $0 >= 0x80 }) {
            guard !isBlob && character.count != 1 else {
                return mask(keepFirst: keepFirst, keepLast: keepLast, fill: isBlob ? 0 : character[0], input: input, into: &output)
            }
            let count = input.count
            let keep = keepFirst + keepLast < count
            let head = keep ? keepFirst : 0, tail = keep ? keepLast : 0
            output.append(contentsOf: UnsafeBufferPointer(rebasing: input[0..<head]))
            for _ in 0..<(count - head - tail) { output.append(contentsOf: character) }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: input[(count - tail)..<count]))
            return
        }
        let characters = Array(String(decoding: input, as: UTF8.self))
        let keep = keepFirst + keepLast < characters.count
        for (index, item) in characters.enumerated() {
            if keep && (index < keepFirst || index >= characters.count - keepLast) {
                output.append(contentsOf: Array(String(item).utf8))
            } else {
                output.append(contentsOf: character)
            }
        }
    }

    /// ``mask(keepFirst:keepLast:character:input:isBlob:into:)`` of bytes taken one by one
    /// (ASCII text, or a blob), each masked byte replaced by `fill`.
    static func mask(keepFirst: Int, keepLast: Int, fill: UInt8, input: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) {
        let count = input.count
        let keep = keepFirst + keepLast < count
        // Bytes kept at each end, and what goes between them.
        let head = keep ? keepFirst : 0, tail = keep ? keepLast : 0
        output.append(contentsOf: UnsafeBufferPointer(rebasing: input[0..<head]))
        output.append(contentsOf: repeatElement(fill, count: count - head - tail))
        output.append(contentsOf: UnsafeBufferPointer(rebasing: input[(count - tail)..<count]))
    }

    static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// Unicode scalars in UTF-8 bytes: the bytes that do not continue a sequence.
    static func scalarCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var count = 0
        for byte in bytes where byte & 0xC0 != 0x80 { count += 1 }
        return count
    }

    /// A whole number of days in `-maxDays...maxDays`, never 0.
    static func dayOffset(_ stream: inout KeyedStream, maxDays: Int) -> Int {
        let days = 1 + stream.next(below: maxDays)
        return stream.next() & 1 == 0 ? days : -days
    }
}
