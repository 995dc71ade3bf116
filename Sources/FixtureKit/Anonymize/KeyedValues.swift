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

    /// The keyed output of a text value (or of a number's text) under a
    /// pseudonym or fake rule, keeping what SQLite's own comparisons see (see
    /// ``TextShape``): derived from the value's fold, written in its case form,
    /// between its spaces. A value of spaces alone is kept: under `RTRIM` and
    /// `trim()` it is `''`, which stays `''`.
    /// - Parameters:
    ///   - fold: scratch space for the fold.
    ///   - stream: the keyed stream of a message (the fold, or the core for a
    ///     mixed case form) and an attempt.
    /// - Returns: `false` when the keyed stream could not be computed.
    static func keyedText(_ strategy: Strategy, input: UnsafeBufferPointer<UInt8>, attempt: UInt32, fold: inout [UInt8], into output: inout [UInt8], stream: (UnsafeRawBufferPointer, UInt32) -> KeyedStream?) -> Bool {
        // A value that is its own fold (the common case: no capital, no space
        // at either end) is read in place.
        let shape: TextShape
        var keyed: KeyedStream
        if TextShape.isOwnFold(input) {
            shape = TextShape(leading: 0, trailing: 0, form: .lower)
            guard let stream = stream(UnsafeRawBufferPointer(input), attempt) else { return false }
            keyed = stream
        } else {
            fold.removeAll(keepingCapacity: true)
            shape = TextShape(input, fold: &fold)
            guard !fold.isEmpty else {
                output.append(contentsOf: input)
                return true
            }
            guard let stream = fold.withUnsafeBytes({ stream($0, attempt) }) else { return false }
            keyed = stream
        }
        let core = UnsafeBufferPointer(rebasing: input[shape.leading..<(input.count - shape.trailing)])
        if case .pseudonym(.digits, _, _) = strategy {
            // Every digit replaced, everything else kept where it is: case and spaces too.
            digits(input, &keyed, into: &output)
            return true
        }
        if shape.leading > 0 { output.append(contentsOf: repeatElement(TextShape.space, count: shape.leading)) }
        let start = output.count
        switch strategy {
        case .pseudonym(let format, _, let length):
            pseudonym(format, length: length, attempt: attempt, scalars: scalarCount(core), stream: &keyed, into: &output)
        case .fake(let kind):
            fake(kind, core: core, attempt: attempt, stream: &keyed, into: &output)
        default:
            break
        }
        // Hex, uuid, e-mail and list words are written in lower case already.
        let lowerAlready: Bool = switch strategy {
        case .pseudonym(let format, _, _): format != .name
        case .fake(let kind): kind == .text || kind == .word
        default: false
        }
        if !(lowerAlready && shape.form == .lower) {
            TextShape.render(&output, from: start, as: shape.form) { stream(UnsafeRawBufferPointer(core), caseAttempt) }
        }
        if shape.trailing > 0 { output.append(contentsOf: repeatElement(TextShape.space, count: shape.trailing)) }
        return true
    }

    /// The attempt number of the keyed stream that draws a mixed case form:
    /// no pseudonym ever gets that far.
    static let caseAttempt = UInt32.max

    /// `input` with every ASCII digit replaced by a keyed one; without a digit,
    /// its core's characters become as many keyed digits.
    static func digits(_ input: UnsafeBufferPointer<UInt8>, _ stream: inout KeyedStream, into output: inout [UInt8]) {
        if input.contains(where: isDigit) {
            for byte in input { output.append(isDigit(byte) ? UInt8(ascii: "0") + UInt8(stream.next(below: 10)) : byte) }
            return
        }
        let core = TextShape.core(of: input)
        let start = core.lowerBound, end = core.upperBound
        output.append(contentsOf: repeatElement(TextShape.space, count: start))
        for _ in 0..<max(1, scalarCount(UnsafeBufferPointer(rebasing: input[start..<end]))) {
            output.append(UInt8(ascii: "0") + UInt8(stream.next(below: 10)))
        }
        output.append(contentsOf: repeatElement(TextShape.space, count: input.count - end))
    }

    /// A pseudonym in `format`, in its natural case, for a value of `scalars` characters.
    static func pseudonym(_ format: PseudonymFormat, length: Int, attempt: UInt32, scalars: Int, stream: inout KeyedStream, into output: inout [UInt8]) {
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
            // A longer original keeps its length bucket: more hex digits.
            let shortest = emailPrefix.utf8CodeUnitCount + emailHexDigits + emailDomain.utf8CodeUnitCount
            append(emailPrefix, to: &output)
            appendHex(&stream, count: emailHexDigits + max(0, TextShape.bucketStart(of: scalars) - shortest), to: &output)
            append(emailDomain, to: &output)
        case .name:
            output.append(contentsOf: FakeData.firstNames[stream.next(below: FakeData.firstNames.count)])
            output.append(UInt8(ascii: " "))
            output.append(contentsOf: FakeData.lastNames[stream.next(below: FakeData.lastNames.count)])
            appendAttempt(attempt, to: &output)
        case .digits:
            for _ in 0..<max(1, scalars) { output.append(UInt8(ascii: "0") + UInt8(stream.next(below: 10))) }
        }
    }

    /// After ``nameAttemptsBeforeNumber`` collisions, the attempt after a space:
    /// a list-bound value stays distinct however many values share its lists.
    static func appendAttempt(_ attempt: UInt32, to output: inout [UInt8]) {
        guard attempt >= nameAttemptsBeforeNumber else { return }
        output.append(UInt8(ascii: " "))
        output.append(contentsOf: Array(String(attempt).utf8))
    }

    /// A value from the built-in lists, in its natural case; `text` as many
    /// characters long as `core`, and a core that looks like an integer
    /// (`-0042`) gets as many keyed digits.
    static func fake(_ kind: FakeKind, core: UnsafeBufferPointer<UInt8>, attempt: UInt32, stream: inout KeyedStream, into output: inout [UInt8]) {
        func pick(_ list: [[UInt8]]) -> [UInt8] { list[stream.next(below: list.count)] }
        if kind == .text || kind == .word, let first = integerDigits(core) {
            output.append(contentsOf: core[0..<first])
            for (index, byte) in core[first...].enumerated() {
                let zero = index == 0 && byte == UInt8(ascii: "0")
                output.append(zero ? byte : UInt8(ascii: "0") + UInt8(index == 0 ? 1 + stream.next(below: 9) : stream.next(below: 10)))
            }
            return
        }
        switch kind {
        case .name:
            output.append(contentsOf: pick(FakeData.firstNames))
            output.append(UInt8(ascii: " "))
            output.append(contentsOf: pick(FakeData.lastNames))
            appendAttempt(attempt, to: &output)
        case .firstName:
            output.append(contentsOf: pick(FakeData.firstNames))
            appendAttempt(attempt, to: &output)
        case .lastName:
            output.append(contentsOf: pick(FakeData.lastNames))
            appendAttempt(attempt, to: &output)
        case .word:
            output.append(contentsOf: pick(FakeData.words))
            appendAttempt(attempt, to: &output)
        case .text:
            // Words up to the original's length in characters, the last one cut;
            // after many collisions, letters drawn one by one.
            let start = output.count
            let target = max(1, scalarCount(core))
            if attempt >= nameAttemptsBeforeNumber {
                for _ in 0..<target { output.append(UInt8(ascii: "a") + UInt8(stream.next(below: 26))) }
                return
            }
            while output.count - start < target {
                if output.count > start { output.append(UInt8(ascii: " ")) }
                output.append(contentsOf: pick(FakeData.words))
            }
            output.removeSubrange((start + target)...)
            if output.last == UInt8(ascii: " ") { output[output.count - 1] = UInt8(ascii: "a") }
        }
    }

    /// `input` with every character but the first `keepFirst` and last `keepLast`
    /// replaced by `character`; a value no longer than what would be kept is
    /// masked whole, so that mask never returns a value unchanged.
    static func mask(keepFirst: Int, keepLast: Int, character: [UInt8], input: UnsafeBufferPointer<UInt8>, isBlob: Bool, into output: inout [UInt8]) {
        if isBlob || input.isASCII {
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

    /// `body`'s rewrite of a text's core, between the spaces (U+0020) the text
    /// had around it: values equal under `RTRIM` or `trim()` stay equal.
    @inline(__always)
    static func keepingSpaces(_ input: UnsafeBufferPointer<UInt8>, into output: inout [UInt8], _ body: (UnsafeBufferPointer<UInt8>, inout [UInt8]) -> Void) {
        let core = TextShape.core(of: input)
        let start = core.lowerBound, end = core.upperBound
        if start > 0 { output.append(contentsOf: UnsafeBufferPointer(rebasing: input[0..<start])) }
        if end > start { body(UnsafeBufferPointer(rebasing: input[start..<end]), &output) }
        if end < input.count { output.append(contentsOf: UnsafeBufferPointer(rebasing: input[end..<input.count])) }
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

    /// ``keepingSpaces(_:into:_:)`` of ``mask(keepFirst:keepLast:fill:input:into:)``,
    /// in place: `bytes` (the input, copied) keep their spaces around the core
    /// and the core's ends; the bytes between become `fill`. The length is the input's.
    static func maskInPlace(keepFirst: Int, keepLast: Int, fill: UInt8, _ bytes: UnsafeMutableBufferPointer<UInt8>) {
        let core = TextShape.core(of: UnsafeBufferPointer(bytes))
        let keep = keepFirst + keepLast < core.count
        let from = core.lowerBound + (keep ? keepFirst : 0), to = core.upperBound - (keep ? keepLast : 0)
        if from < to { UnsafeMutableBufferPointer(rebasing: bytes[from..<to]).update(repeating: fill) }
    }

    /// Where the digits of a text that looks like an integer (`42`, `-0042`,
    /// `+7`) start; `nil` for any other text.
    static func integerDigits(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        let first = text.first == UInt8(ascii: "-") || text.first == UInt8(ascii: "+") ? 1 : 0
        guard first < text.count, text[first...].allSatisfy(isDigit) else { return nil }
        return first
    }

    static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// Unicode scalars in UTF-8 bytes: the bytes that do not continue a sequence.
    static func scalarCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        // An ASCII byte is a character.
        let offset = bytes.asciiPrefixCount
        var count = offset
        for byte in bytes[offset...] where byte & 0xC0 != 0x80 { count += 1 }
        return count
    }

    /// A whole number of days in `-maxDays...maxDays`, never 0.
    static func dayOffset(_ stream: inout KeyedStream, maxDays: Int) -> Int {
        let days = 1 + stream.next(below: maxDays)
        return stream.next() & 1 == 0 ? days : -days
    }
}
