import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// Windows that many long values share (``PatternIndex/WindowGroup``): the index
/// that groups them finds exactly what the one that does not finds, on values
/// with a common part at every place a run can start.
struct PatternIndexGroupTests {
    /// Bytes from `alphabet`, pseudo-random from `seed`.
    func random(_ count: Int, seed: inout UInt64, alphabet: [UInt8] = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)) -> [UInt8] {
        (0..<count).map { _ in
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return alphabet[Int(seed >> 33) % alphabet.count]
        }
    }

    /// What a search found, in terms that do not depend on the patterns' order:
    /// the value (long value, or the short value's bytes), the offset, the run.
    struct Hit: Hashable, Comparable {
        var value: [UInt8]
        var offset: Int
        var start: Int
        var length: Int
        var back: Int
        var forward: Int
        var trackedToo: Bool

        static func < (a: Hit, b: Hit) -> Bool {
            (a.start, a.length, a.offset, a.back, a.forward, a.value.lexicographicallyPrecedes(b.value) ? 0 : 1)
                < (b.start, b.length, b.offset, b.back, b.forward, b.value.lexicographicallyPrecedes(a.value) ? 0 : 1)
        }
    }

    func hits(_ index: PatternIndex, in buffer: [UInt8]) -> [Hit] {
        var found: [Hit] = []
        buffer.withUnsafeBytes { bytes in
            index.search(bytes, through: bytes.count - 1) { pattern, run in
                let origin = index.origin(of: pattern)
                let value: [UInt8] = index.arena.withUnsafeBytes { arena in
                    if let long = origin.longValue {
                        let start = Int(index.longStarts[long])
                        return Array(arena[start..<(start + Int(index.longLengths[long]))])
                    }
                    let start = Int(index.starts[pattern])
                    return Array(arena[start..<(start + index.valueLength(of: pattern))])
                }
                found.append(Hit(value: value, offset: origin.offset, start: run.start, length: run.length, back: run.back, forward: run.forward, trackedToo: index.isValue(pattern, of: 3)))
            }
        }
        return found.sorted()
    }

    @Test func groupedWindowsFindExactlyWhatTheWindowsOneByOneFind() throws {
        var seed: UInt64 = 7
        // 100 pseudonyms with one common part long enough for several windows,
        // at the same place in each (a fixed-length random part first).
        let common = Array("@pseudonyms.anonymized.example.invalid/common".utf8)
        let longValues = (0..<100).map { _ in random(10, seed: &seed) + common + random(7, seed: &seed) }
        // Short values, each in column 1 and again in the tracked column 3.
        let shortValues = (0..<300).map { _ in random(12, seed: &seed) }
        func build(grouped: Bool) -> PatternIndex {
            var index = PatternIndex()
            index.groupsCommonWindows = grouped
            index.trackedColumns = [3]
            for value in longValues { value.withUnsafeBytes { index.add($0, column: 2) } }
            for value in shortValues {
                value.withUnsafeBytes { index.add($0, column: 1) }
                value.withUnsafeBytes { index.add($0, column: 3) }
            }
            index.build()
            return index
        }
        let grouped = build(grouped: true), reference = build(grouped: false)
        #expect(!grouped.windowGroups.isEmpty)
        #expect(grouped.windowGroups.values.allSatisfy { $0.count > PatternIndex.groupThreshold })
        #expect(reference.windowGroups.isEmpty)

        // The bytes searched: whole values; every run of 31, 32 and 33 bytes of
        // some values, at every offset; new pseudonyms with the same common part;
        // the common part alone; the short values.
        var buffer: [UInt8] = []
        func add(_ bytes: some Collection<UInt8>) { buffer += [0] + bytes + [0] }
        for value in longValues.prefix(3) { add(value) }
        for value in longValues.dropFirst(3).prefix(6) {
            for length in [31, 32, 33] {
                for start in stride(from: 0, through: value.count - length, by: 1) { add(value[start..<(start + length)]) }
            }
        }
        for _ in 0..<40 { add(random(10, seed: &seed) + common + random(7, seed: &seed)) }
        add(common)
        for value in shortValues.prefix(150) { add(value) }

        let found = hits(grouped, in: buffer), expected = hits(reference, in: buffer)
        let (missing, extra) = (Set(expected).subtracting(found).count, Set(found).subtracting(expected).count)
        #expect(missing == 0 && extra == 0 && found.count == expected.count, "\(found.count) hits against \(expected.count)")
        // Not vacuous: runs of exactly 32 bytes, and every short value searched, were found.
        #expect(found.contains { $0.length == PatternIndex.runBytes && $0.offset > 0 })
        #expect(found.filter { $0.offset == 0 && $0.value.count == 12 }.count == 150)
        #expect(found.filter { $0.value.count == 12 }.allSatisfy { $0.trackedToo })
    }
}
