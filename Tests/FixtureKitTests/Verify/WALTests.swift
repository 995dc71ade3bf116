import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitArchiveIO
@testable import FixtureKitCrypto
@testable import FixtureKitModels
@testable import FixtureKitSQLite
@testable import FixtureKitSystem
@testable import FixtureKitTestSupport

/// The WAL reader and the store-set checks, on one good WAL built in the test and
/// sliced and flipped in code into each bad case.
@Suite struct WALTests {
    /// A raw fixture of a store with 50 commits in its WAL (frame size 4120).
    func makeRawFixture(_ folder: TemporaryFolder) throws -> (fixture: String, wal: [UInt8]) {
        try FileManager.default.createDirectory(atPath: folder.url("live"), withIntermediateDirectories: true)
        let store = try HeldWALStore(in: folder.url("live"))
        let capture = fixturekit("capture", "--no-anonymize", store.path, "--version", "1.0.0", "--corpus", folder.url("corpus"), "--mode", "raw")
        #expect(capture.status == 0, "\(capture.standardError)")
        let fixture = folder.url("corpus/1.0.0")
        return (fixture, try folder.read("corpus/1.0.0/App.sqlite-wal"))
    }

    static let frameSize = 24 + 4096

    /// One bad case: how to damage the WAL, and what inspect and verify say.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var damage: @Sendable ([UInt8]) -> [UInt8]
        var inspectLine: String
        var verifyLine: String
        var testDescription: String { name }
    }

    static func withHeaderChecksum(_ bytes: [UInt8]) -> [UInt8] {
        var wal = bytes
        let checksum = WALChecksum.zero.adding(Array(wal[0..<24]), bigEndian: wal.bigEndianValue(at: 0) & 1 == 1)
        wal.putBigEndian(checksum.first, at: 24)
        wal.putBigEndian(checksum.second, at: 28)
        return wal
    }

    static let cases: [Case] = [
        Case(name: "zero length", damage: { _ in [] },
             inspectLine: "note: App.sqlite-wal is empty: nothing to replay (a stale sidecar)",
             verifyLine: "App.sqlite-wal: 0 committed transactions to replay, the manifest recorded 51"),
        Case(name: "partial header", damage: { Array($0.prefix(20)) },
             inspectLine: "problem: App.sqlite-wal: 20 bytes, shorter than a WAL header (32 bytes): SQLite ignores the whole log",
             verifyLine: "App.sqlite-wal: 20 bytes, shorter than a WAL header (32 bytes): SQLite ignores the whole log"),
        Case(name: "bad magic", damage: { var wal = $0; wal[3] = 0x99; return wal },
             inspectLine: "problem: App.sqlite-wal: bad magic number 0x377f0699 in the WAL header: SQLite ignores the whole log and its 103 frames",
             verifyLine: "App.sqlite-wal: bad magic number 0x377f0699 in the WAL header: SQLite ignores the whole log and its 103 frames"),
        Case(name: "bad header checksum", damage: { var wal = $0; wal[27] ^= 0x01; return wal },
             inspectLine: "problem: App.sqlite-wal: WAL header checksum mismatch: SQLite ignores the whole log and its 103 frames",
             verifyLine: "App.sqlite-wal: WAL header checksum mismatch: SQLite ignores the whole log and its 103 frames"),
        Case(name: "unsupported version", damage: { var wal = $0; wal.putBigEndian(3_007_001, at: 4); return withHeaderChecksum(wal) },
             inspectLine: "problem: App.sqlite-wal: unsupported WAL format version 3007001 (SQLite writes 3007000): SQLite refuses to open the store",
             verifyLine: "App.sqlite-wal: unsupported WAL format version 3007001 (SQLite writes 3007000): SQLite refuses to open the store"),
        Case(name: "salt mismatch", damage: { var wal = $0; wal[32 + 9 * frameSize + 8] ^= 0x40; return wal },
             inspectLine: "problem: App.sqlite-wal: frame 10: salt mismatch (the frame is not part of this log): SQLite silently drops it and the 93 frames after it, 47 committed transactions in all",
             verifyLine: "App.sqlite-wal: frame 10: salt mismatch (the frame is not part of this log): SQLite silently drops it and the 93 frames after it, 47 committed transactions in all"),
        Case(name: "frame checksum mismatch in the middle", damage: { var wal = $0; wal[32 + 49 * frameSize + 24 + 100] ^= 0x01; return wal },
             inspectLine: "problem: App.sqlite-wal: frame 50: checksum mismatch: SQLite silently drops it and the 53 frames after it, 27 committed transactions in all",
             verifyLine: "App.sqlite-wal: frame 50: checksum mismatch: SQLite silently drops it and the 53 frames after it, 27 committed transactions in all"),
        Case(name: "torn last frame", damage: { Array($0.dropLast(1000)) },
             inspectLine: "note: App.sqlite-wal ends with 3120 bytes of a torn frame (an interrupted write; SQLite ignores it)",
             verifyLine: "App.sqlite-wal: 50 committed transactions to replay, the manifest recorded 51"),
    ]

    @Test(arguments: cases)
    func eachDamageIsClassified(_ damage: Case) throws {
        let folder = try TemporaryFolder()
        let (fixture, wal) = try makeRawFixture(folder)
        #expect(wal.count == 32 + 103 * Self.frameSize)
        try folder.write("corpus/1.0.0/App.sqlite-wal", damage.damage(wal))

        // Where SQLite still reads the store, it replays exactly the commits the reader counts
        // (the first commit creates the table, each later one adds a row).
        let parsed = WALFile(bytes: damage.damage(wal))
        if parsed.problem?.discardsLog != true, parsed.commits > 0 {
            #expect(try rowCount(ofStoreAt: fixture + "/App.sqlite") == parsed.commits - 1)
        }

        let inspect = fixturekit("inspect", fixture)
        #expect(inspect.standardError.split(separator: "\n").contains { $0 == damage.inspectLine }, "\(inspect.standardError)")
        #expect(inspect.status == (damage.inspectLine.hasPrefix("problem") ? 1 : 0))

        // With SHA256SUMS rewritten, only the store-set check can see the damage.
        #expect(fixturekit("sums", "--quiet", fixture).status == 0)
        let verify = fixturekit("verify", "--quiet", fixture)
        #expect(verify.status == 1)
        #expect(verify.standardError == "fixturekit: verify: \(fixture)/\(damage.verifyLine)\n\(fixture): FAILED (1 problem)\n")
    }

    @Test func pageSizeMismatchIsClassified() throws {
        let folder = try TemporaryFolder()
        let (fixture, _) = try makeRawFixture(folder)
        try FileManager.default.createDirectory(atPath: folder.url("other"), withIntermediateDirectories: true)
        let other = try HeldWALStore(in: folder.url("other"), pageSize: 1024, notes: 3)
        _ = other
        try folder.write("corpus/1.0.0/App.sqlite-wal", try folder.read("other/App.sqlite-wal"))
        let line = "App.sqlite-wal: 1024-byte pages, but App.sqlite has 4096-byte pages: the log does not belong to this database"
        let inspect = fixturekit("inspect", fixture)
        #expect(inspect.status == 1)
        #expect(inspect.standardError.contains("\nproblem: \(line)\n"), "\(inspect.standardError)")
        #expect(fixturekit("sums", "--quiet", fixture).status == 0)
        let verify = fixturekit("verify", "--quiet", fixture)
        #expect(verify.status == 1)
        #expect(verify.standardError.hasPrefix("fixturekit: verify: \(fixture)/\(line)\n"), "\(verify.standardError)")
    }

    @Test func goodWALIsReadToItsLastCommit() throws {
        let folder = try TemporaryFolder()
        let (fixture, wal) = try makeRawFixture(folder)
        let parsed = WALFile(bytes: wal)
        #expect(parsed.problem == nil)
        #expect(parsed.frameCount == 103)
        #expect(parsed.commits == 51)
        #expect(parsed.committedFrames == 103)
        #expect(parsed.tornTailBytes == 0)
        #expect(parsed.header?.pageSize == 4096)
        #expect(fixturekit("verify", "--deep", fixture).status == 0)
        let inspect = fixturekit("inspect", fixture)
        #expect(inspect.status == 0)
        #expect(inspect.standardError.contains("\nwarning: 51 committed transactions (103 frames) live only in App.sqlite-wal: copying App.sqlite alone loses them\n"))
    }

    @Test func bothChecksumByteOrdersAreRead() throws {
        // Rebuild the good log with big-endian checksums: magic 0x377f0683 and
        // every checksum recomputed in that order.
        let folder = try TemporaryFolder()
        let (_, wal) = try makeRawFixture(folder)
        var flipped = wal
        flipped.putBigEndian(0x377F_0683, at: 0)
        flipped = Self.withHeaderChecksum(flipped)
        var running = WALChecksum(first: flipped.bigEndianValue(at: 24), second: flipped.bigEndianValue(at: 28))
        for frame in 0..<103 {
            let start = 32 + frame * Self.frameSize
            running = running.adding(Array(flipped[start..<(start + 8)]), bigEndian: true)
                .adding(Array(flipped[(start + 24)..<(start + Self.frameSize)]), bigEndian: true)
            flipped.putBigEndian(running.first, at: start + 16)
            flipped.putBigEndian(running.second, at: start + 20)
        }
        let parsed = WALFile(bytes: flipped)
        #expect(parsed.header?.bigEndianChecksums == true)
        #expect(parsed.problem == nil)
        #expect(parsed.commits == 51)
        // SQLite agrees: the big-endian log replays all 50 rows.
        try folder.write("be/App.sqlite", try folder.read("corpus/1.0.0/App.sqlite"))
        try folder.write("be/App.sqlite-wal", flipped)
        #expect(try rowCount(ofStoreAt: folder.url("be/App.sqlite")) == 50)
    }
}
