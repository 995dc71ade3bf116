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
/// Hashes are kept at most twice each: runs are cut to two copies whenever
/// the list doubles, which is all that counting distinct values and duplicate
/// groups needs, so a column of repeated values costs little memory.
struct ProfileTally {
    var counts = Manifest.ProfileCounts()
    let comparisons: [ProfileComparison]
    private var hashes: [[UInt64]]
    private var compactAt: [Int]
    private static let firstCompaction = 1 << 16

    init(comparisons: [ProfileComparison]) {
        self.comparisons = comparisons
        hashes = comparisons.map { _ in [] }
        compactAt = comparisons.map { _ in Self.firstCompaction }
    }

    /// Seeds that keep storage classes apart: `1` and `'1'` differ, `1` and `1.0` do not.
    private static let integerSeed: UInt64 = 1, realSeed: UInt64 = 2, textSeed: UInt64 = 3, blobSeed: UInt64 = 4

    mutating func addNull() { counts.nulls += 1 }

    @inline(__always)
    mutating func addText(_ bytes: UnsafeBufferPointer<UInt8>) {
        counts.text += 1
        if bytes.isEmpty { counts.empty += 1 }
        length(ValueTransforms.scalarCount(bytes))
        let raw = UnsafeRawBufferPointer(bytes)
        for (index, comparison) in comparisons.enumerated() {
            switch comparison {
            case .binary: append(ValueHash.hash(raw, seed: Self.textSeed), index)
            case .nocase: append(ValueHash.foldedHash(raw, trimmed: false, seed: Self.textSeed), index)
            case .rtrim: append(ValueHash.rightTrimmedHash(raw, seed: Self.textSeed), index)
            }
        }
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
        counts.minLength = min(counts.minLength ?? length, length)
        counts.maxLength = max(counts.maxLength ?? length, length)
    }

    private mutating func appendToAll(_ hash: UInt64) {
        for index in comparisons.indices { append(hash, index) }
    }

    @inline(__always)
    private mutating func append(_ hash: UInt64, _ index: Int) {
        hashes[index].append(hash)
        if hashes[index].count >= compactAt[index] {
            Self.compact(&hashes[index])
            compactAt[index] = max(Self.firstCompaction, 2 * hashes[index].count)
        }
    }

    /// Sorts `hashes` and cuts every run to two copies.
    private static func compact(_ hashes: inout [UInt64]) {
        RadixSort.sort(&hashes)
        var kept = 0
        for index in hashes.indices where kept < 2 || hashes[index] != hashes[kept - 2] {
            hashes[kept] = hashes[index]
            kept += 1
        }
        hashes.removeSubrange(kept...)
    }

    /// The counts, distinct values and duplicate groups included; the hashes are freed.
    mutating func finish() -> Manifest.ProfileCounts {
        for (index, comparison) in comparisons.enumerated() {
            Self.compact(&hashes[index])
            var distinct = 0, groups = 0
            var position = 0
            let list = hashes[index]
            while position < list.count {
                var end = position + 1
                while end < list.count && list[end] == list[position] { end += 1 }
                distinct += 1
                if end - position > 1 { groups += 1 }
                position = end
            }
            counts.distinct[comparison.rawValue] = distinct
            counts.duplicateGroups[comparison.rawValue] = groups
            hashes[index] = []
        }
        return counts
    }
}

/// Least-significant-digit radix sort of 64-bit keys, 16 bits a pass: four
/// passes over the keys, linear in their number.
enum RadixSort {
    static func sort(_ keys: inout [UInt64]) {
        guard keys.count > 256 else { return keys.sort() }
        var buffer = [UInt64](repeating: 0, count: keys.count)
        var counts = [Int](repeating: 0, count: 1 << 16)
        for shift in stride(from: UInt64(0), to: 64, by: 16) {
            for index in counts.indices { counts[index] = 0 }
            keys.withUnsafeBufferPointer { keys in
                for key in keys { counts[Int((key >> shift) & 0xFFFF)] += 1 }
            }
            var total = 0
            for index in counts.indices {
                let count = counts[index]
                counts[index] = total
                total += count
            }
            keys.withUnsafeBufferPointer { keys in
                buffer.withUnsafeMutableBufferPointer { buffer in
                    counts.withUnsafeMutableBufferPointer { counts in
                        for key in keys {
                            let digit = Int((key >> shift) & 0xFFFF)
                            buffer[counts[digit]] = key
                            counts[digit] += 1
                        }
                    }
                }
            }
            swap(&keys, &buffer)
        }
    }
}
