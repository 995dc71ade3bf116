import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// The data profile's counting: the sort, the hash lists (cut to two copies,
/// spilled to a file), and each comparison's equality.
@Suite struct ProfileTallyTests {
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state ^ (state >> 29)
        }
    }

    @Test(arguments: [0, 1, 2, 64, 65, 129, 300, 5000, 70_000, 300_000])
    func theSortSortsEverySize(count: Int) {
        var random = Generator(state: UInt64(count) + 7)
        // Repeats, and keys that share their top bytes, as well as spread ones.
        var keys = (0..<count).map { index -> UInt64 in
            switch index % 4 {
            case 0: random.next()
            case 1: random.next() & 0x0000_FFFF_FFFF_FFFF
            case 2: UInt64(index % 97)
            default: random.next() | 0xFFFF_0000_0000_0000
            }
        }
        let expected = keys.sorted()
        keys.withUnsafeMutableBufferPointer { RadixSort.sort($0) }
        #expect(keys == expected)
    }

    @Test(arguments: [(1000, 1), (70_000, 3), (300_000, 1), (300_000, 7), (400_000, 200_000), (1_000_000, 5000), (500_000, 50)])
    func aListCountsDistinctValuesAndGroupsAcrossCutsAndSpills(count: Int, every: Int) throws {
        try countAndCompare(count: count, every: every, gatherLimit: nil)
    }

    /// The repeat table leaves out appends of hashes held twice: a few frequent
    /// values among singletons, values held exactly twice, the hash 0 (an empty
    /// slot's), and hashes that take one another's slot, give the counts of a dictionary.
    @Test func leftOutRepeatsChangeNoCount() throws {
        var list = HashList()
        var occurrences: [UInt64: Int] = [:]
        func add(_ hash: UInt64) {
            occurrences[hash, default: 0] += 1
            list.append(hash)
        }
        var random = Generator(state: 9)
        let frequent = (0..<150).map { _ in random.next() }
        // Same low bits as a frequent value: they share its slot.
        let rivals = frequent.prefix(20).map { $0 ^ (random.next() << 11) }
        for index in 0..<600_000 {
            add(frequent[index % frequent.count])
            if index % 3 == 0 { add(random.next()) }
            if index % 1000 == 0 { add(rivals[(index / 1000) % rivals.count]) }
            if index % 50_000 == 7 { add(0) }
            if index % 100_000 == 11 { add(UInt64(index) << 20) }
            if index % 100_000 == 12 { add(UInt64(index - 1) << 20) }
        }
        let finished = list.finish()
        let (distinct, groups) = try #require(finished)
        #expect(distinct == occurrences.count)
        #expect(groups == occurrences.values.count { $0 > 1 })
    }

    /// A list longer than its gather limit is counted by merging its sorted
    /// chunks from the spill: the same counts, every chunk size and remainder.
    @Test(arguments: [(140_000, 1), (300_000, 1), (300_000, 7), (400_000, 200_000), (1_000_000, 3)])
    func aLongListIsCountedByMergingItsChunksFromTheSpill(count: Int, every: Int) throws {
        try countAndCompare(count: count, every: every, gatherLimit: 0)
    }

    func countAndCompare(count: Int, every: Int, gatherLimit: Int?) throws {
        // `count` hashes of `count / every`... values: value i appears `every` times, some once more.
        let folder = try TemporaryFolder()
        var list = HashList()
        list.spill = try SpillFile(folder: folder.path, prefix: ".fixturekit-profile")
        if let gatherLimit { list.gatherLimit = gatherLimit }
        var random = Generator(state: 42)
        let distinct = max(1, count / every)
        let values = (0..<distinct).map { _ in random.next() }
        var occurrences: [UInt64: Int] = [:]
        for index in 0..<count {
            let value = values[(index * 7919) % distinct]
            occurrences[value, default: 0] += 1
            list.append(value)
        }
        let finished = list.finish()
        let (counted, groups) = try #require(finished)
        #expect(counted == occurrences.count)
        #expect(groups == occurrences.values.count { $0 > 1 })
        // The spill file was unlinked as soon as it was made.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test func eachComparisonFindsWhatSQLiteFindsEqual() {
        var tally = ProfileTally(comparisons: [.binary, .nocase, .rtrim], spill: nil)
        for text in ["Ann", "ann", "ANN", "ann  ", " ann", "", "Zoë", "ZOË"] {
            var text = text
            text.withUTF8 { tally.addText($0) }
        }
        tally.addNull()
        tally.addInteger(1)
        tally.addReal(1.0)
        tally.addReal(1.5)
        [UInt8]([1, 2, 3]).withUnsafeBufferPointer { tally.addBlob($0) }
        let counts = tally.finish()
        #expect(counts?.nulls == 1 && counts?.empty == 1 && counts?.text == 8 && counts?.integer == 1 && counts?.real == 2 && counts?.blob == 1)
        // Lengths in characters for text, bytes for blobs: '' 0, "ann  " 5.
        #expect(counts?.minLength == 0 && counts?.maxLength == 5)
        // BINARY: 8 texts, the number 1 (1 and 1.0 are one value), 1.5, the blob.
        #expect(counts?.distinct == ["BINARY": 11, "NOCASE": 9, "RTRIM": 10])
        // NOCASE folds ASCII only: Zoë and ZOË stay two; Ann, ann, ANN are one.
        #expect(counts?.duplicateGroups == ["BINARY": 1, "NOCASE": 2, "RTRIM": 2])
    }
}
