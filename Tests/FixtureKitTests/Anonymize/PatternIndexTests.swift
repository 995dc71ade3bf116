import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// The leak scan's pattern index, on values: what it finds, where, and what it
/// does not find.
struct PatternIndexTests {
    /// An index of `values` (bytes, column), built.
    func index(_ values: [([UInt8], Int)]) -> PatternIndex {
        var index = PatternIndex()
        for (bytes, column) in values { bytes.withUnsafeBytes { index.add($0, column: column) } }
        index.build()
        return index
    }

    /// Every hit of `buffer`, as (pattern, run).
    func hits(_ index: PatternIndex, in buffer: [UInt8], from start: Int = 0, through end: Int? = nil) -> [(pattern: Int, run: PatternIndex.Run)] {
        var found: [(Int, PatternIndex.Run)] = []
        buffer.withUnsafeBytes { bytes in
            index.search(bytes, from: start, through: end ?? bytes.count - 1) { found.append(($0, $1)) }
        }
        return found
    }

    /// Bytes 1...255 (never 0), pseudo-random from `seed`.
    func value(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56) | 1
        }
    }

    @Test func aShortValueIsFoundWholeAtEveryPlaceAndNowhereElse() throws {
        let secret = Array("secret-value-1".utf8)
        let index = index([(secret, 2), (Array("other".utf8), 0)])
        #expect(index.count == 2)
        for offset in [0, 1, 7, 100] {
            for trailing in [0, 1, 9] {
                let buffer = [UInt8](repeating: 0, count: offset) + secret + [UInt8](repeating: 0, count: trailing)
                let found = hits(index, in: buffer)
                #expect(found.count == 1, "offset \(offset), trailing \(trailing)")
                guard let hit = found.first else { continue }
                #expect(hit.run.start == offset)
                #expect(hit.run.length == secret.count)
                #expect(index.origin(of: hit.pattern).column == 2)
                #expect(index.origin(of: hit.pattern).longValue == nil)
                #expect(!index.isWindow(hit.pattern))
                #expect(index.valueLength(of: hit.pattern) == secret.count)
            }
        }
        // A piece of it, or the value with one byte changed, is no hit.
        #expect(hits(index, in: Array(secret.dropLast())).isEmpty)
        #expect(hits(index, in: Array(secret.dropFirst())).isEmpty)
        var changed = secret
        changed[5] ^= 1
        #expect(hits(index, in: changed).isEmpty)
        #expect(hits(index, in: []).isEmpty)
    }

    @Test func theSearchStopsAtItsEnd() throws {
        let secret = Array("abcdefgh".utf8)
        let index = index([(secret, 0)])
        let buffer = [UInt8](repeating: 0, count: 10) + secret + [UInt8](repeating: 0, count: 10)
        // A pattern starting at `end` is found (the bytes after it are read); one after it is not.
        #expect(hits(index, in: buffer, through: 10).count == 1)
        #expect(hits(index, in: buffer, through: 9).isEmpty)
        #expect(hits(index, in: buffer, from: 10).count == 1)
        #expect(hits(index, in: buffer, from: 11).isEmpty)
    }

    @Test func aLongValueIsFoundByEveryRunOfRunBytesAndNoShorterOne() throws {
        for length in [PatternIndex.runBytes, PatternIndex.runBytes + 1, 50, 100, 1000] {
            let long = value(length, seed: UInt64(length))
            let index = index([(long, 3)])
            // Its windows: windowBytes bytes at every windowStep-th offset.
            #expect(index.count == (length - PatternIndex.windowBytes) / PatternIndex.windowStep + 1)
            #expect(index.longValueCount == 1)
            for start in Set([0, 1, length / 2, length - PatternIndex.runBytes]).sorted() where start + PatternIndex.runBytes <= length {
                let run = Array(long[start..<(start + PatternIndex.runBytes)])
                for place in [0, 5] {
                    let buffer = [UInt8](repeating: 0, count: place) + run + [UInt8](repeating: 0, count: 3)
                    let found = hits(index, in: buffer)
                    #expect(!found.isEmpty, "length \(length), run at \(start), placed at \(place)")
                    for hit in found {
                        #expect(index.isWindow(hit.pattern))
                        #expect(index.origin(of: hit.pattern).column == 3)
                        #expect(index.origin(of: hit.pattern).longValue == 0)
                        #expect(index.valueLength(of: hit.pattern) == length)
                        #expect(hit.run.start == place)
                        #expect(hit.run.length == PatternIndex.runBytes)
                        let full = buffer.withUnsafeBytes { index.fullRun(hit.pattern, in: $0, at: hit.run) }
                        #expect(full.start == place && full.length == PatternIndex.runBytes)
                        #expect(full.whole == (length == PatternIndex.runBytes))
                    }
                    // One byte shorter: no hit.
                    #expect(hits(index, in: [UInt8](repeating: 0, count: place) + Array(run.dropLast()) + [0, 0, 0]).isEmpty)
                }
            }
            // The whole value: its full run is the whole value.
            let buffer = [0, 0] + long + [0]
            let found = hits(index, in: buffer)
            #expect(!found.isEmpty)
            for hit in found {
                let full = buffer.withUnsafeBytes { index.fullRun(hit.pattern, in: $0, at: hit.run) }
                #expect(full.start == 2 && full.length == length && full.whole)
            }
        }
    }

    @Test func equalValuesAreKeptOnceWithTheFirstColumn() throws {
        let short = Array("repeated value".utf8)
        let long = value(80, seed: 9)
        let index = index([(short, 4), (long, 1), (short, 7), (long, 5)])
        #expect(index.longValueCount == 1)
        let found = hits(index, in: short + [0] + long)
        #expect(Set(found.map { index.origin(of: $0.pattern).column }) == [4, 1])
        #expect(found.filter { !index.isWindow($0.pattern) }.count == 1)
    }

    @Test func manyValuesAreEachFoundInOneBuffer() throws {
        let values = (0..<500).map { value(4 + $0 % 60, seed: UInt64($0) + 1000) }
        let index = index(values.enumerated().map { ($0.element, $0.offset) })
        var buffer: [UInt8] = []
        var places: [Int: Int] = [:]
        for (column, bytes) in values.enumerated() where column % 3 == 0 {
            places[column] = buffer.count
            buffer += bytes + [0]
        }
        let found = hits(index, in: buffer)
        for (column, place) in places {
            #expect(found.contains { index.origin(of: $0.pattern).column == column && $0.run.start <= place + max(0, values[column].count - PatternIndex.runBytes) && $0.run.start >= place }, "value \(column)")
        }
        // Only the values placed are found.
        #expect(Set(found.map { index.origin(of: $0.pattern).column }).isSubset(of: Set(places.keys)))
    }
}
