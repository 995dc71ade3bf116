import FixtureKitSystem

/// 64-bit hashes of values, to tell them apart without keeping them: the
/// claims that keep keyed outputs distinct and the data profile's distinct
/// counts. Not keyed and never written anywhere: two different values share a
/// hash with a chance of about n²/2⁶⁵ among n values (3·10⁻⁸ for a million).
enum ValueHash {
    @inline(__always)
    private static func mix(_ lhs: UInt64, _ rhs: UInt64) -> UInt64 {
        let product = lhs.multipliedFullWidth(by: rhs)
        return product.high ^ product.low
    }

    private static let first: UInt64 = 0xA076_1D64_78BD_642F
    private static let second: UInt64 = 0xE703_7ED1_A0B4_28DB
    private static let third: UInt64 = 0x8EBC_6AF0_9C88_C6E3

    /// The hash of `bytes`, with `seed` (a storage class, a collation) mixed in first.
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        var highBits: UInt64 = 0
        return hash(bytes, seed: seed, highBits: &highBits)
    }

    /// ``hash(_:seed:)``, and the high bits of every byte ORed into `highBits`
    /// (none: the bytes are ASCII), at no extra read.
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64, highBits: inout UInt64) -> UInt64 {
        var state = mix(seed ^ first, UInt64(bytes.count) ^ second)
        var offset = 0
        let count = bytes.count
        var seen: UInt64 = 0
        while offset + 8 <= count {
            let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian
            seen |= word
            state = mix(state ^ word, first)
            offset += 8
        }
        var tail: UInt64 = 0
        if offset < count {
            if count >= 8 {
                // The last eight bytes, overlapping the words already read.
                tail = bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self).littleEndian
            } else {
                var shift: UInt64 = 0
                while offset < count {
                    tail |= UInt64(bytes[offset]) << shift
                    shift += 8
                    offset += 1
                }
            }
        }
        highBits |= (seen | tail) & 0x8080_8080_8080_8080
        return mix(state ^ tail ^ third, second)
    }

    /// The hash of the ASCII-lower-case form of `bytes`, spaces (U+0020) at
    /// either end dropped when `trimmed`: equal for values `NOCASE` (and with
    /// `trimmed`, `trim()` with it) finds equal.
    static func foldedHash(_ bytes: UnsafeRawBufferPointer, trimmed: Bool, seed: UInt64 = 0) -> UInt64 {
        var start = 0, end = bytes.count
        if trimmed {
            while start < end && bytes[start] == 0x20 { start += 1 }
            while end > start && bytes[end - 1] == 0x20 { end -= 1 }
        }
        var folded = [UInt8](repeating: 0, count: end - start)
        for index in start..<end {
            let byte = bytes[index]
            folded[index - start] = byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
        }
        return folded.withUnsafeBytes { hash($0, seed: seed) }
    }

    /// The hash of `bytes` without the spaces (U+0020) at their end: equal for
    /// values `RTRIM` finds equal.
    static func rightTrimmedHash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        var end = bytes.count
        while end > 0 && bytes[end - 1] == 0x20 { end -= 1 }
        return hash(UnsafeRawBufferPointer(rebasing: bytes[0..<end]), seed: seed)
    }
}
