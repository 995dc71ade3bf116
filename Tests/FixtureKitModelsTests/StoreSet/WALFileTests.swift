#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import FixtureKitModels
@testable import FixtureKitSQLite
@testable import FixtureKitSystem

/// The WAL reader on logs SQLite wrote, whole and with bytes cut, flipped or
/// rewritten; where SQLite still reads the log, it replays exactly the commits
/// the reader counts.
@Suite struct WALFileTests {
    struct Log {
        let store: TestStore
        let bytes: [UInt8]
        let pageSize: Int
        var frameSize: Int { 24 + pageSize }
        /// 1-based numbers of the frames whose commit size is set, read from the bytes.
        var commitFrames: [Int] {
            (1...((bytes.count - 32) / frameSize)).filter { bytes.uint32BigEndian(at: frameStart($0) + 4) != 0 }
        }

        func frameStart(_ frame: Int) -> Int { 32 + (frame - 1) * frameSize }
    }

    /// A held WAL store: one commit creates `notes`, each later one adds a row;
    /// every `bulkEvery`-th row commit adds enough rows to span several pages.
    func log(pageSize: Int = 4096, rows: Int = 12) throws -> Log {
        let store = try TestStore(pageSize: pageSize, wal: true)
        try store.commit(["CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT)"])
        try store.commit((0..<rows).map { index in
            index % 4 == 3
                ? "INSERT INTO notes (title) SELECT printf('%.*c', \(pageSize / 2), 'x') FROM (WITH RECURSIVE series(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM series WHERE n < 3) SELECT n FROM series)"
                : "INSERT INTO notes (title) VALUES ('note \(index)')"
        })
        return Log(store: store, bytes: try store.bytes("-wal"), pageSize: pageSize)
    }

    /// The frame's cumulative checksum recomputed from the previous frame's, as after a rewrite.
    static func rechecksummed(_ bytes: [UInt8], frame: Int, frameSize: Int) -> [UInt8] {
        var copy = bytes
        let start = 32 + (frame - 1) * frameSize
        let previous = frame == 1 ? 24 : start - frameSize + 16
        let running = WALChecksum(first: copy.uint32BigEndian(at: previous), second: copy.uint32BigEndian(at: previous + 4))
            .adding(Array(copy[start..<(start + 8)]), bigEndian: false)
            .adding(Array(copy[(start + 24)..<(start + frameSize)]), bigEndian: false)
        copy.setBigEndian(running.first, at: start + 16)
        copy.setBigEndian(running.second, at: start + 20)
        return copy
    }

    @Test(arguments: [512, 1024, 4096, 65536])
    func readsAWholeLog(pageSize: Int) throws {
        let log = try log(pageSize: pageSize)
        let wal = WALFile(bytes: log.bytes)
        let frames = (log.bytes.count - 32) / log.frameSize
        #expect((log.bytes.count - 32) % log.frameSize == 0)
        #expect(wal.problem == nil)
        #expect(wal.fileSize == UInt64(log.bytes.count))
        #expect(wal.frameCount == frames)
        #expect(wal.committedFrames == frames)
        #expect(wal.commits == 13)
        #expect(wal.commitFrames == log.commitFrames)
        #expect(log.commitFrames.count == 13)
        #expect(wal.tailFrames == 0)
        #expect(wal.framesAfterInvalid == 0)
        #expect(wal.commitsAfterInvalid == 0)
        #expect(wal.tornTailBytes == 0)
        #expect(!wal.isEmpty)
        #expect(Int64(wal.databaseSizeInPages ?? 0) == (try log.store.integer("PRAGMA page_count")))
        let header = try #require(wal.header)
        #expect(header.magic == 0x377F_0682)
        #expect(!header.bigEndianChecksums)
        #expect(header.version == 3_007_000)
        #expect(header.pageSize == pageSize)
        #expect(header.checkpointSequence == 0)
        #expect(header.salt1 == log.bytes.uint32BigEndian(at: 16))
        #expect(header.salt2 == log.bytes.uint32BigEndian(at: 20))
        // The header SQLite reads instead of the main file's: page 1 as of the last commit.
        let committed = try DatabaseHeader(bytes: try #require(wal.committedDatabaseHeader))
        #expect(committed.pageSize == pageSize)
        #expect(committed.pageCount == wal.databaseSizeInPages)
        #expect(try log.store.rowCount(withWAL: log.bytes) == 18)
    }

    @Test func readsAFileAsItReadsItsBytes() throws {
        let log = try log()
        #expect(try WALFile(path: log.store.path + "-wal") == WALFile(bytes: log.bytes))
        #expect(throws: FileSystemError.self) { try WALFile(path: log.store.folder) }
        #expect(throws: FileSystemError.self) { try WALFile(path: log.store.folder + "/missing-wal") }
    }

    /// A read that fails once the file is open (`EIO` from a failing disk) is an
    /// error, at every read of the pass: never frames counted as the log's tail.
    @Test func aReadThatFailsAfterOpeningIsAnError() throws {
        let log = try log()
        let path = log.store.path + "-wal"
        let frames = (log.bytes.count - 32) / log.frameSize
        #expect(frames > 3)
        // The header's read, the first frame's, a middle one's, the last one's.
        for failing in [1, 2, frames / 2 + 1, frames + 1] {
            Self.failRead(failing, of: path, errno: EIO)
            do {
                let wal = try WALFile(path: path)
                Issue.record("read \(failing) failed, and the log read as \(wal)")
            } catch {
                #expect(error.errno == EIO && error.operation == "read" && error.path == path, "read \(failing): \(error)")
            }
        }
        // Nothing left registered: the next pass reads the whole log.
        #expect(try WALFile(path: path) == WALFile(bytes: log.bytes))
    }

    /// Makes the `count`-th read of `path` from now fail with `errno`.
    static func failRead(_ count: Int, of path: String, errno code: Int32) {
        if count <= 1 {
            FaultInjection.at(.read, of: path) { FaultInjection.fail(.read, of: path, errno: code) }
        } else {
            FaultInjection.at(.read, of: path) { failRead(count - 1, of: path, errno: code) }
        }
    }

    @Test func countsCommitsAfterAFrame() throws {
        let log = try log()
        let wal = WALFile(bytes: log.bytes)
        for frame in 0...wal.frameCount {
            #expect(wal.commits(after: frame) == log.commitFrames.filter { $0 > frame }.count)
        }
    }

    /// A flipped byte in each frame's page in turn: SQLite stops before it.
    @Test(arguments: [1024, 4096])
    func aFlippedByteEndsTheLogAtThePreviousCommit(pageSize: Int) throws {
        let log = try log(pageSize: pageSize)
        let frames = (log.bytes.count - 32) / log.frameSize
        let commitFrames = log.commitFrames
        for frame in 1...frames {
            let damaged = log.bytes.flipping(log.frameStart(frame) + 24 + pageSize / 2)
            let wal = WALFile(bytes: damaged)
            let kept = commitFrames.filter { $0 < frame }
            let lost = commitFrames.filter { $0 >= frame }
            #expect(wal.committedFrames == (kept.last ?? 0), "frame \(frame)")
            #expect(wal.commits == kept.count, "frame \(frame)")
            #expect(wal.commitsAfterInvalid == lost.count, "frame \(frame)")
            #expect(wal.framesAfterInvalid == frames - frame, "frame \(frame)")
            #expect(wal.tailFrames == frame - (kept.last ?? 0), "frame \(frame)")
            #expect(wal.problem == .frameChecksumMismatch(frame: frame), "frame \(frame)")
            #expect(wal.problem?.discardsLog == false)
            if frame % 5 == 0 || frame == frames {
                #expect(try log.store.rowCount(withWAL: damaged) == (kept.isEmpty ? nil : rows(afterCommits: kept.count)), "frame \(frame)")
            }
        }
    }

    /// Rows in `notes` after the first `commits` commits of ``log(pageSize:rows:)``.
    func rows(afterCommits commits: Int) -> Int64 {
        Int64((0..<(commits - 1)).map { $0 % 4 == 3 ? 3 : 1 }.reduce(0, +))
    }

    @Test func aFlippedByteInAFrameHeaderIsFound() throws {
        let log = try log()
        let frame = 4
        let start = log.frameStart(frame)
        let salt = WALFile(bytes: log.bytes.flipping(start + 8))
        #expect(salt.problem == .saltMismatch(frame: frame))
        // The frame with the foreign salt is not of this log: it is not counted after the break.
        #expect(salt.framesAfterInvalid == salt.frameCount - frame)
        #expect(salt.commitsAfterInvalid == log.commitFrames.filter { $0 > frame }.count)
        #expect(WALFile(bytes: log.bytes.flipping(start + 19)).problem == .frameChecksumMismatch(frame: frame))
        #expect(WALFile(bytes: log.bytes.flipping(start + 5)).problem == .frameChecksumMismatch(frame: frame))
        var pageZero = log.bytes
        pageZero.setBigEndian(0, at: start)
        #expect(WALFile(bytes: pageZero).problem == .invalidPageNumber(frame: frame))
        #expect(WALFile(bytes: pageZero).committedFrames == log.commitFrames.filter { $0 < frame }.last)
    }

    @Test func aTruncatedFinalFrameIsATornTailNotAProblem() throws {
        let log = try log()
        let frames = (log.bytes.count - 32) / log.frameSize
        for cut in [1, 100, log.frameSize - 1] {
            let wal = WALFile(bytes: Array(log.bytes.dropLast(cut)))
            #expect(wal.problem == nil)
            #expect(wal.frameCount == frames - 1)
            #expect(wal.tornTailBytes == log.frameSize - cut)
            #expect(wal.committedFrames == log.commitFrames.filter { $0 < frames }.last)
            #expect(wal.commits == 12)
        }
        let whole = WALFile(bytes: Array(log.bytes.dropLast(log.frameSize)))
        #expect(whole.tornTailBytes == 0)
        #expect(whole.frameCount == frames - 1)
        #expect(try log.store.rowCount(withWAL: Array(log.bytes.dropLast(100))) == rows(afterCommits: 12))
    }

    /// The last commit turned into an unfinished transaction (commit size 0,
    /// checksum recomputed): its frame is a tail, not a problem.
    @Test func anUnfinishedTransactionIsATail() throws {
        let log = try log()
        let frames = (log.bytes.count - 32) / log.frameSize
        var bytes = log.bytes
        bytes.setBigEndian(0, at: log.frameStart(frames) + 4)
        let unfinished = Self.rechecksummed(bytes, frame: frames, frameSize: log.frameSize)
        let wal = WALFile(bytes: unfinished)
        #expect(wal.problem == nil)
        #expect(wal.commits == 12)
        #expect(wal.committedFrames == log.commitFrames[11])
        #expect(wal.tailFrames == frames - log.commitFrames[11])
        #expect(wal.framesAfterInvalid == 0)
        #expect(try log.store.rowCount(withWAL: unfinished) == rows(afterCommits: 12))
        // Damage in that tail is no problem either: nothing committed follows it.
        let damaged = WALFile(bytes: unfinished.flipping(log.frameStart(frames) + 30))
        #expect(damaged.problem == nil)
        #expect(damaged.commits == 12)
    }

    @Test func headerProblemsDiscardTheLog() throws {
        let log = try log()
        let frames = (log.bytes.count - 32) / log.frameSize
        let empty = WALFile(bytes: [])
        #expect(empty.isEmpty)
        #expect(empty.problem == nil)
        #expect(empty.header == nil)
        #expect(WALFile(bytes: Array(log.bytes.prefix(32))).problem == nil)
        #expect(WALFile(bytes: Array(log.bytes.prefix(32))).isEmpty)
        #expect(WALFile(bytes: Array(log.bytes.prefix(31))).problem == .partialHeader(bytes: 31))

        let magic = WALFile(bytes: log.bytes.flipping(3, bits: 0x10))
        #expect(magic.problem == .badMagic(0x377F_0692))
        #expect(magic.header == nil)
        #expect(magic.frameCount == frames)

        let checksum = WALFile(bytes: log.bytes.flipping(27))
        #expect(checksum.problem == .badHeaderChecksum)
        #expect(checksum.header?.pageSize == 4096)
        #expect(checksum.commits == 0)
        #expect(checksum.problem?.discardsLog == true)

        var version = log.bytes
        version.setBigEndian(3_007_001, at: 4)
        let sum = WALChecksum.zero.adding(Array(version[0..<24]), bigEndian: false)
        version.setBigEndian(sum.first, at: 24)
        version.setBigEndian(sum.second, at: 28)
        #expect(WALFile(bytes: version).problem == .unsupportedVersion(3_007_001))

        var pageSize = log.bytes
        pageSize.setBigEndian(1000, at: 8)
        #expect(WALFile(bytes: pageSize).problem == .invalidPageSize(1000))
    }
}

@Suite struct WALChecksumTests {
    @Test func sumsPairsOfWordsInTheGivenByteOrder() {
        let bytes: [UInt8] = [0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4]
        // s1 += w0 + s2; s2 += w1 + s1, for each pair.
        #expect(WALChecksum.zero.adding(bytes, bigEndian: true) == WALChecksum(first: 1 + 3 + 3, second: 3 + 4 + 7))
        #expect(WALChecksum.zero.adding(bytes, bigEndian: false) == WALChecksum(first: 7 << 24, second: 14 << 24))
        // Bytes beyond a multiple of eight are not summed.
        #expect(WALChecksum.zero.adding(bytes + [9, 9, 9], bigEndian: true) == WALChecksum.zero.adding(bytes, bigEndian: true))
        #expect(WALChecksum.zero.adding([], bigEndian: true) == .zero)
    }

    @Test func wrapsAround() {
        let ones = [UInt8](repeating: 0xFF, count: 8)
        #expect(WALChecksum.zero.adding(ones, bigEndian: true) == WALChecksum(first: 0xFFFF_FFFF, second: 0xFFFF_FFFE))
        #expect(WALChecksum(first: 1, second: 2).adding(ones, bigEndian: false) == WALChecksum(first: 2, second: 3))
    }

    @Test func matchesTheHeaderChecksumSQLiteWrote() throws {
        let store = try TestStore(wal: true)
        try store.commit(["CREATE TABLE notes (id INTEGER PRIMARY KEY)"])
        let bytes = try store.bytes("-wal")
        let sum = WALChecksum.zero.adding(Array(bytes[0..<24]), bigEndian: bytes[3] & 1 == 1)
        #expect(sum == WALChecksum(first: bytes.uint32BigEndian(at: 24), second: bytes.uint32BigEndian(at: 28)))
    }
}

/// A live `-wal` grows between the size taken and the bytes read: the log is read
/// as it was at its size, never past it (a size under the header's once crashed
/// the reader with an arithmetic overflow).
@Suite struct GrowingWALTests {
    @Test(arguments: [0, 1, 31])
    func bytesPastTheSizeDoNotCount(size: Int) throws {
        // A WAL header's magic, format version and page size (4096), then zeros.
        let header: [UInt8] = [0x37, 0x7f, 0x06, 0x82, 0x00, 0x2d, 0xe2, 0x18, 0x00, 0x00, 0x10, 0x00] + [UInt8](repeating: 0, count: 20)
        // Every read hands the whole header, whatever the size was.
        let log = WALFile(size: UInt64(size)) { (buffer: inout [UInt8]) -> Int in
            let count = min(buffer.count, header.count)
            buffer.replaceSubrange(0..<count, with: header[0..<count])
            return count
        }
        #expect(log.frameCount == 0)
        #expect(log.problem == (size == 0 ? nil : .partialHeader(bytes: size)))
    }
}
