import FixtureKitSystem

/// What SQLite's own comparisons see of a text besides its letters, so that a
/// keyed output keeps it: two values equal under `NOCASE`, `RTRIM`, `lower()`,
/// `upper()`, `trim()` give outputs equal under it, and two unequal give
/// unequal ones.
///
/// A text is its *core* between spaces (U+0020: what `RTRIM` and `trim()`
/// drop), and the core is its *fold* (ASCII letters in lower case: what
/// `NOCASE`, `lower()` and `upper()` compare; SQLite folds no other letter)
/// written in a *case form*. A keyed output is derived from the fold alone,
/// written in the same case form, between as many spaces: values of one fold
/// get outputs of one fold, which differ as their case forms and spaces do.
struct TextShape: Equatable {
    /// How a core writes its ASCII letters.
    enum CaseForm: Equatable {
        /// No capital: `ada lovelace`, `2024-01-01`.
        case lower
        /// Capitals only: `ADA`.
        case upper
        /// The first letter a capital, no other: `Ada lovelace`.
        case sentence
        /// Each word's first letter a capital, no other: `Ada Lovelace`.
        case title
        /// Anything else: `McAdam`, `aDa`.
        case mixed
    }

    /// Spaces before and after the core.
    var leading: Int
    var trailing: Int
    var form: CaseForm

    static let space = UInt8(ascii: " ")

    init(leading: Int, trailing: Int, form: CaseForm) {
        self.leading = leading
        self.trailing = trailing
        self.form = form
    }

    /// Whether `input` is its own fold: no space at either end, no capital (and
    /// not empty). Eight bytes at a time: a byte in `A`...`Z` is found by SWAR.
    static func isOwnFold(_ input: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = input.baseAddress, input.count > 0, input[0] != space, input[input.count - 1] != space else { return false }
        let raw = UnsafeRawPointer(base)
        var offset = 0
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        while offset + 8 <= input.count {
            let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            // Bytes below 0x80 that are >= 0x41 and < 0x5B.
            let low = word & ~highs
            let aboveA = (low &+ (0x80 - 0x41) &* ones) & highs
            let belowZ = ((0x80 + 0x5A) &* ones &- low) & highs
            if aboveA & belowZ & ~word != 0 { return false }
            offset += 8
        }
        for index in offset..<input.count where isUpper(input[index]) { return false }
        return true
    }

    /// Where the core of `input` lies: between the spaces (U+0020) at either end.
    @inline(__always)
    static func core(of input: UnsafeBufferPointer<UInt8>) -> Range<Int> {
        var start = 0, end = input.count
        while start < end && input[start] == space { start += 1 }
        while end > start && input[end - 1] == space { end -= 1 }
        return start..<end
    }

    /// The shape of `input`; its fold is appended to `fold`.
    init(_ input: UnsafeBufferPointer<UInt8>, fold: inout [UInt8]) {
        let core = Self.core(of: input)
        let start = core.lowerBound, end = core.upperBound
        leading = start
        trailing = input.count - end
        var capitals = 0, smalls = 0, sentence = true, title = true
        var previous: UInt8 = Self.space
        var firstLetter = true
        let offset = fold.count
        fold.append(contentsOf: UnsafeBufferPointer(rebasing: input[start..<end]))
        fold.withUnsafeMutableBufferPointer { folded in
            for index in offset..<folded.count {
                let byte = folded[index]
                if Self.isUpper(byte) {
                    capitals += 1
                    folded[index] = byte + 32
                    if !firstLetter { sentence = false }
                    if !Self.startsWord(previous) { title = false }
                    firstLetter = false
                } else if Self.isLower(byte) {
                    smalls += 1
                    if firstLetter { sentence = false }
                    if Self.startsWord(previous) { title = false }
                    firstLetter = false
                }
                previous = byte
            }
        }
        form = capitals == 0 ? .lower : smalls == 0 ? .upper : sentence ? .sentence : title ? .title : .mixed
    }

    static func isUpper(_ byte: UInt8) -> Bool { byte >= 0x41 && byte <= 0x5A }
    static func isLower(_ byte: UInt8) -> Bool { byte >= 0x61 && byte <= 0x7A }
    static func isLetter(_ byte: UInt8) -> Bool { isUpper(byte) || isLower(byte) }

    /// Whether a letter after `previous` starts a word: after an ASCII character
    /// that is neither a letter nor a digit (a byte of another character counts
    /// as a letter, so `Zoë` is one word).
    static func startsWord(_ previous: UInt8) -> Bool {
        previous < 0x80 && !isLetter(previous) && !ValueTransforms.isDigit(previous)
    }

    /// `core` (in its natural case) written in `form`, in place; `mixed` letters
    /// are drawn from `stream` until they are none of the other forms.
    static func render(_ core: inout [UInt8], from start: Int, as form: CaseForm, stream: () -> KeyedStream?) {
        // The common case: a lower-case original, an output without capitals.
        if form == .lower, !core[start...].contains(where: isUpper) { return }
        func write(_ form: CaseForm) {
            var previous = space
            var firstLetter = true
            for index in start..<core.count {
                let byte = core[index]
                if isLetter(byte) {
                    let capital = switch form {
                    case .upper: true
                    case .sentence: firstLetter
                    case .title: startsWord(previous)
                    default: false
                    }
                    core[index] = capital ? byte & ~0x20 : byte | 0x20
                    firstLetter = false
                }
                previous = byte
            }
        }
        guard form == .mixed else { return write(form) }
        var others: [[UInt8]] = []
        for other in [CaseForm.lower, .upper, .sentence, .title] {
            write(other)
            others.append(Array(core[start...]))
        }
        guard var draw = stream() else { return write(.lower) }
        for _ in 0..<8 {
            for index in start..<core.count where isLetter(core[index]) {
                core[index] = draw.next() & 1 == 1 ? core[index] & ~0x20 : core[index] | 0x20
            }
            if !others.contains(where: { $0.elementsEqual(core[start...]) }) { return }
        }
    }

    /// Length buckets: 0, 1–8, 9–16, 17–32, 33–64, 65–128, ... A format that
    /// cannot keep a value's length keeps it in its bucket where it can.
    static func bucketStart(of length: Int) -> Int {
        guard length > 8 else { return min(length, 1) }
        var upper = 8
        while upper < length { upper *= 2 }
        return upper / 2 + 1
    }
}
