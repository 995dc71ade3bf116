import FixtureKitSystem
import FixtureKitModels

/// The comparisons a column's distinct values are counted under.
enum ProfileComparison: String, CaseIterable {
    case binary = "BINARY"
    case nocase = "NOCASE"
    case rtrim = "RTRIM"
}

/// One side (before or after the rules) of one profiled column, fed value by
/// value: counts, and a 64-bit hash per value and comparison (see ``ValueHash``)
/// from which distinct values and duplicate groups are counted at the end.
///
/// Hashes are kept at most twice each: runs are cut to two copies when a list
/// reaches its threshold, which is all that counting distinct values and
/// duplicate groups needs, so a column of repeated values costs little memory;
/// a list that the cut hardly shortens (distinct values) is sorted once, at the end.
struct ProfileTally {
    var counts = Manifest.ProfileCounts()
    let comparisons: [ProfileComparison]
    private var binary = HashList(), nocase = HashList(), rtrim = HashList()
    private let measuresNocase: Bool, measuresRtrim: Bool
    /// The shortest and longest length so far (`Int.max`, `-1` before any).
    private var shortest = Int.max, longest = -1

    init(comparisons: [ProfileComparison], spill: SpillFile?) {
        self.comparisons = comparisons
        measuresNocase = comparisons.contains(.nocase)
        measuresRtrim = comparisons.contains(.rtrim)
        binary.spill = spill
        nocase.spill = spill
        rtrim.spill = spill
    }

    /// Seeds that keep storage classes apart: `1` and `'1'` differ, `1` and `1.0` do not.
    private static let integerSeed: UInt64 = 1, realSeed: UInt64 = 2, textSeed: UInt64 = 3, blobSeed: UInt64 = 4

    mutating func addNull() { counts.nulls += 1 }

    @inline(__always)
    mutating func addText(_ bytes: UnsafeBufferPointer<UInt8>) {
        counts.text += 1
        if bytes.isEmpty { counts.empty += 1 }
        let raw = UnsafeRawBufferPointer(bytes)
        var highBits: UInt64 = 0
        binary.append(ValueHash.hash(raw, seed: Self.textSeed, highBits: &highBits))
        // ASCII: every byte is a character.
        length(highBits == 0 ? bytes.count : ValueTransforms.scalarCount(bytes))
        if measuresNocase { nocase.append(ValueHash.foldedHash(raw, trimmed: false, seed: Self.textSeed)) }
        if measuresRtrim { rtrim.append(ValueHash.rightTrimmedHash(raw, seed: Self.textSeed)) }
    }

    mutating func addBlob(_ bytes: UnsafeBufferPointer<UInt8>) {
        counts.blob += 1
        if bytes.isEmpty { counts.empty += 1 }
        length(bytes.count)
        appendToAll(ValueHash.hash(UnsafeRawBufferPointer(bytes), seed: Self.blobSeed))
    }

    mutating func addInteger(_ value: Int64) {
        counts.integer += 1
        appendToAll(Self.numberHash(value))
    }

    mutating func addReal(_ value: Double) {
        counts.real += 1
        // A whole real equals the integer (SQLite compares them as numbers).
        if value == value.rounded(), let integer = Int64(exactly: value) { return appendToAll(Self.numberHash(integer)) }
        var bits = value.bitPattern.littleEndian
        appendToAll(withUnsafeBytes(of: &bits) { ValueHash.hash($0, seed: Self.realSeed) })
    }

    private static func numberHash(_ value: Int64) -> UInt64 {
        var bits = value.littleEndian
        return withUnsafeBytes(of: &bits) { ValueHash.hash($0, seed: integerSeed) }
    }

    @inline(__always)
    private mutating func length(_ length: Int) {
        if length < shortest { shortest = length }
        if length > longest { longest = length }
    }

    private mutating func appendToAll(_ hash: UInt64) {
        binary.append(hash)
        if measuresNocase { nocase.append(hash) }
        if measuresRtrim { rtrim.append(hash) }
    }

    /// The counts, distinct values and duplicate groups included; the hashes
    /// are freed. `nil` when the hashes could not be read back from their spill.
    mutating func finish() -> Manifest.ProfileCounts? {
        if longest >= 0 {
            counts.minLength = shortest
            counts.maxLength = longest
        }
        for comparison in comparisons {
            let result = switch comparison {
            case .binary: binary.finish()
            case .nocase: nocase.finish()
            case .rtrim: rtrim.finish()
            }
            guard let (distinct, groups) = result else { return nil }
            counts.distinct[comparison.rawValue] = distinct
            counts.duplicateGroups[comparison.rawValue] = groups
        }
        return counts
    }

    /// Frees the hashes (a tally not finished).
    mutating func release() {
        binary.release()
        nocase.release()
        rtrim.release()
    }
}
