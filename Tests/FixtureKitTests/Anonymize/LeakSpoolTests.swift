import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport
import FixtureKitSystem

/// The spool read back behind its writer: every record comes back whole and
/// in order, and a reader that discards frees only the pages before its first
/// unread record.
struct LeakSpoolTests {
    /// Record `number` of the test spool: 20 to 119 bytes, each byte telling it apart.
    static func record(_ number: Int) -> [UInt8] {
        (0..<(20 + number % 100)).map { UInt8(truncatingIfNeeded: number &* 31 &+ $0 &* 7 | 1) }
    }

    /// Reads the records from `offset`, stopping before record `stop` (all when nil).
    static func read(_ file: SpoolFile, from offset: inout Int64, discarding: Bool, stoppingAt stop: Int? = nil, first: Int) throws -> [Int] {
        var numbers: [Int] = []
        var next = first
        try file.records(from: &offset, withColumn: true, discarding: discarding) { column, bytes in
            if next == stop { return false }
            #expect(Int(column) == next % 7 && Array(bytes) == record(next), "record \(next)")
            numbers.append(next)
            next += 1
            return true
        }
        return numbers
    }

    /// The first `count` bytes of the spool's file, as a reader of the file sees them.
    static func head(_ file: SpoolFile, _ count: Int) throws -> [UInt8] {
        try file.file.read(fromAbsoluteOffset: 0, upTo: count)
    }

    @Test(arguments: [false, true])
    func aReaderFreesOnlyWhatItRead(discarding: Bool) throws {
        let folder = try TemporaryFolder()
        let spool = try LeakSpool(folder: folder.path, utf16: false)
        // About 15 MiB of records: several discard steps.
        let count = 200_000
        for number in 0..<count {
            Self.record(number).withUnsafeBytes { spool.originals.appendValue(UInt32(number % 7), $0) }
        }
        try spool.finish()
        // A first batch stops in the middle, a second one reads the rest.
        let stop = 150_000
        var offset: Int64 = 0
        #expect(try Self.read(spool.originals, from: &offset, discarding: discarding, stoppingAt: stop, first: 0) == Array(0..<stop))
        let firstUnread = offset
        #expect(firstUnread > 2 * SpoolFile.discardStep)
        // Freed exactly up to the page of the first unread record (when the file system can).
        let probe = try FileDescriptor.open(folder.url("probe"), .readWrite, options: [.exclusiveCreate], permissions: 0o600)
        defer { try? probe.close() }
        try probe.writeAll([UInt8](repeating: 1, count: 8192))
        let canDiscard = probe.discard(0..<4096)
        let page = Int(firstUnread) & ~4095
        let bytes = try Self.head(spool.originals, Int(firstUnread) + 64)
        #expect(bytes[..<page].allSatisfy { $0 == 0 } == (discarding && canDiscard))
        #expect(bytes[page...].contains { $0 != 0 })
        #expect(try Self.read(spool.originals, from: &offset, discarding: discarding, first: stop) == Array(stop..<count))
    }

    /// The written values' spool is a set: a repeat of a value taken last is
    /// left out, and every distinct value is kept, those sharing a slot and
    /// those too long for one included.
    @Test func theWrittenValuesAreKeptOnceEachAndNoneLost() throws {
        let folder = try TemporaryFolder()
        let spool = try LeakSpool(folder: folder.path, utf16: false)
        // 10,000 values of 3 to 69 bytes, more than the slots: many share one.
        let values = (0..<10_000).map { number in Array("w\(number)-".utf8) + Array(repeating: UInt8(0x61 + number % 26), count: number % 64) }
        for value in values {
            // Each twice in a row (a mask's repeat), the second left out.
            for _ in 0..<2 { value.withUnsafeBytes { spool.addWritten($0, isText: true) } }
        }
        // A value written on every row of a column (a constant).
        for _ in 0..<1000 { Array("redacted".utf8).withUnsafeBytes { spool.addWritten($0, isText: true) } }
        try spool.finish()
        var records: [[UInt8]] = []
        var offset: Int64 = 0
        try spool.written.records(from: &offset, withColumn: false) { _, bytes in
            records.append(Array(bytes))
            return true
        }
        // (Values shorter than the index takes are never spooled: "w0-".)
        let spooled = values.filter { $0.count >= PatternIndex.minimumBytes } + [Array("redacted".utf8)]
        let long = spooled.filter { $0.count > RecentValues.valueBytes }
        #expect(spooled.count == values.count && !long.isEmpty)
        let missing = Set(spooled).subtracting(records), extra = Set(records).subtracting(spooled)
        #expect(missing.isEmpty && extra.isEmpty, "\(missing.count) missing, \(extra.count) not written")
        // Short values once, long ones twice: kept whatever they repeat.
        #expect(records.count == spooled.count + long.count)
    }
}
