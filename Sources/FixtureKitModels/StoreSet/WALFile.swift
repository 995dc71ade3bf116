import FixtureKitSystem
import FixtureKitCrypto

/// What a `-wal` file holds, read from its bytes as SQLite's recovery reads it.
///
/// SQLite replays frames from the start while each one's salts match the header
/// and its cumulative checksum holds; the log ends at the last commit frame
/// before the first frame that fails. Everything after that is ignored without
/// an error: a torn tail (part of a frame) and an unfinished transaction are the
/// normal end of a log; committed transactions after an invalid frame are lost.
public struct WALFile: Sendable, Equatable, Codable {
    public struct Header: Sendable, Equatable, Codable {
        public internal(set) var magic: UInt32
        public internal(set) var version: UInt32
        public internal(set) var pageSize: Int
        public internal(set) var checkpointSequence: UInt32
        public var salt1: UInt32
        public var salt2: UInt32
        /// Checksums are computed over big-endian words (the magic's last bit).
        public internal(set) var bigEndianChecksums: Bool
    }

    /// Why SQLite would not use all of the log, in the terms of the file format.
    public enum Problem: Sendable, Equatable, Codable, CustomStringConvertible {
        /// Fewer bytes than a WAL header: SQLite treats the log as empty.
        case partialHeader(bytes: Int)
        case badMagic(UInt32)
        /// SQLite refuses to open the database ("unable to open").
        case unsupportedVersion(UInt32)
        case invalidPageSize(Int)
        /// SQLite ignores the whole log.
        case badHeaderChecksum
        /// A frame whose salts differ from the header's, before frames of this log.
        case saltMismatch(frame: Int)
        /// A frame whose cumulative checksum fails, before frames of this log.
        case frameChecksumMismatch(frame: Int)
        /// A frame for page 0, which does not exist.
        case invalidPageNumber(frame: Int)

        public var description: String {
            switch self {
            case .partialHeader(let bytes): "\(bytes) bytes, shorter than a WAL header (32 bytes)"
            case .badMagic(let magic): "bad magic number 0x\(String(magic, radix: 16)) in the WAL header"
            case .unsupportedVersion(let version): "unsupported WAL format version \(version) (SQLite writes 3007000)"
            case .invalidPageSize(let size): "invalid page size \(size) in the WAL header"
            case .badHeaderChecksum: "WAL header checksum mismatch"
            case .saltMismatch(let frame): "frame \(frame): salt mismatch (the frame is not part of this log)"
            case .frameChecksumMismatch(let frame): "frame \(frame): checksum mismatch"
            case .invalidPageNumber(let frame): "frame \(frame): page number 0"
            }
        }

        /// Whether SQLite ignores the whole log because of it.
        package var discardsLog: Bool {
            switch self {
            case .partialHeader, .badMagic, .badHeaderChecksum, .invalidPageSize, .unsupportedVersion: true
            case .saltMismatch, .frameChecksumMismatch, .invalidPageNumber: false
            }
        }
    }

    public internal(set) var fileSize: UInt64
    /// `nil` when the file is too short or its magic is wrong.
    public internal(set) var header: Header?
    /// What stops SQLite from reading the log to its last commit frame; `nil` when nothing does.
    /// An invalid frame after the last commit is not a problem: see ``tailFrames``.
    public internal(set) var problem: Problem?
    /// Whole frames in the file.
    public internal(set) var frameCount: Int
    /// Frames SQLite replays: up to and including the last valid commit frame.
    public internal(set) var committedFrames: Int
    /// Committed transactions in those frames.
    public internal(set) var commits: Int
    /// The database size in pages after the last valid commit.
    public internal(set) var databaseSizeInPages: UInt32?
    /// Frames after the last valid commit that SQLite ignores: an unfinished
    /// transaction, or frames of an earlier log that this one has not overwritten.
    public internal(set) var tailFrames: Int
    /// Frames of this log (its salts) after the first invalid frame, which SQLite
    /// drops without an error, and the committed transactions among them.
    public internal(set) var framesAfterInvalid: Int
    public internal(set) var commitsAfterInvalid: Int
    /// Bytes at the end that do not make a whole frame: a torn write, normal.
    public internal(set) var tornTailBytes: Int
    /// The 1-based numbers of the valid commit frames, in order.
    var commitFrames: [Int] = []
    /// The database header as of the last valid commit, when the log holds page 1:
    /// what SQLite reads instead of the main file's first 100 bytes.
    public internal(set) var committedDatabaseHeader: [UInt8]?

    enum CodingKeys: String, CodingKey {
        case fileSize, header, problem, frameCount, committedFrames, commits, databaseSizeInPages
        case tailFrames, framesAfterInvalid, commitsAfterInvalid, tornTailBytes
    }

    /// The page number of the database's first page, which holds its header.
    private static let headerPage: UInt32 = 1

    /// Committed transactions whose commit frame comes after frame `frame`.
    package func commits(after frame: Int) -> Int {
        commitFrames.count - commitFrames.prefix(while: { $0 <= frame }).count
    }

    /// Whether the file holds no log at all (zero bytes, or only a header).
    public var isEmpty: Bool { frameCount == 0 }

    /// Reads the WAL at `path` in one sequential pass.
    /// - Throws: ``FileSystemError`` when it cannot be opened, or a read fails.
    public init(path: String) throws(FileSystemError) {
        let reader = try SequentialReader(path: path)
        try self.init(size: reader.size) { (buffer: inout [UInt8]) throws(FileSystemError) in try reader.read(into: &buffer) }
    }

    /// Reads a WAL held in memory (tests, archives).
    public init(bytes: [UInt8]) {
        var offset = 0
        self.init(size: UInt64(bytes.count)) { (buffer: inout [UInt8]) in
            let count = min(buffer.count, bytes.count - offset)
            buffer.replaceSubrange(0..<count, with: bytes[offset..<(offset + count)])
            offset += count
            return count
        }
    }

    /// Reads a WAL of `size` bytes front to back: `read` fills a buffer as far
    /// as the log goes and says how many bytes it got.
    ///
    /// A log that grows while it is read (a live `-wal`) is read as it was at
    /// `size`: bytes past it do not count.
    init<Failure: Error>(size: UInt64, read: (inout [UInt8]) throws(Failure) -> Int) throws(Failure) {
        fileSize = size
        frameCount = 0
        committedFrames = 0
        commits = 0
        tailFrames = 0
        framesAfterInvalid = 0
        commitsAfterInvalid = 0
        tornTailBytes = 0
        var headerBytes = [UInt8](repeating: 0, count: FileFormat.walHeaderSize)
        let got = min(try read(&headerBytes), Int(clamping: size))
        guard got == FileFormat.walHeaderSize else {
            if got > 0 { problem = .partialHeader(bytes: got) }
            return
        }
        let magic = headerBytes.bigEndian(at: 0)
        let pageSize = Int(headerBytes.bigEndian(at: FileFormat.walPageSizeOffset))
        let frameSize = FileFormat.walFrameHeaderSize + pageSize
        let bytesAfterHeader = size - UInt64(FileFormat.walHeaderSize)
        frameCount = pageSize > 0 ? Int(bytesAfterHeader / UInt64(frameSize)) : 0
        tornTailBytes = pageSize > 0 ? Int(bytesAfterHeader % UInt64(frameSize)) : 0
        guard magic == FileFormat.walMagicLittleEndian || magic == FileFormat.walMagicBigEndian else {
            problem = .badMagic(magic)
            return
        }
        let bigEndian = magic & 1 == 1
        let header = Header(
            magic: magic, version: headerBytes.bigEndian(at: 4), pageSize: pageSize,
            checkpointSequence: headerBytes.bigEndian(at: FileFormat.walCheckpointSequenceOffset),
            salt1: headerBytes.bigEndian(at: FileFormat.walSalt1Offset), salt2: headerBytes.bigEndian(at: FileFormat.walSalt2Offset),
            bigEndianChecksums: bigEndian)
        self.header = header
        let wholeFrames = frameCount

        // In the order of SQLite's recovery (`walIndexRecover`): the page size,
        // then the header's checksum, then the version.
        guard pageSize >= FileFormat.minimumPageSize, pageSize <= FileFormat.maximumPageSize, pageSize & (pageSize - 1) == 0 else {
            problem = .invalidPageSize(pageSize)
            return
        }
        var checksum = WALChecksum.zero.adding(Array(headerBytes[0..<FileFormat.walHeaderChecksummedBytes]), bigEndian: bigEndian)
        guard checksum == WALChecksum(first: headerBytes.bigEndian(at: FileFormat.walChecksum1Offset), second: headerBytes.bigEndian(at: FileFormat.walChecksum2Offset)) else {
            problem = .badHeaderChecksum
            return
        }
        guard header.version == FileFormat.walVersion else {
            problem = .unsupportedVersion(header.version)
            return
        }

        var frame = [UInt8](repeating: 0, count: frameSize)
        var firstInvalid: Problem?
        var pendingHeader: [UInt8]?
        for index in stride(from: 1, through: wholeFrames, by: 1) {
            guard try read(&frame) == frameSize else { break }
            let salt1 = frame.bigEndian(at: FileFormat.walFrameSalt1Offset)
            let salt2 = frame.bigEndian(at: FileFormat.walFrameSalt2Offset)
            let ofThisLog = salt1 == header.salt1 && salt2 == header.salt2
            let commitSize = frame.bigEndian(at: FileFormat.walFrameCommitSizeOffset)
            if firstInvalid != nil {
                // SQLite stops at the first invalid frame; count what it drops.
                if ofThisLog {
                    framesAfterInvalid += 1
                    if commitSize != 0 { commitsAfterInvalid += 1 }
                }
                continue
            }
            let pageNumber = frame.bigEndian(at: FileFormat.walFramePageNumberOffset)
            let next = frame.withUnsafeBytes { raw in
                checksum
                    .adding(UnsafeRawBufferPointer(rebasing: raw[0..<FileFormat.walFrameChecksummedHeaderBytes]), bigEndian: bigEndian)
                    .adding(UnsafeRawBufferPointer(rebasing: raw[FileFormat.walFrameHeaderSize...]), bigEndian: bigEndian)
            }
            let stored = WALChecksum(first: frame.bigEndian(at: FileFormat.walFrameChecksum1Offset), second: frame.bigEndian(at: FileFormat.walFrameChecksum2Offset))
            if !ofThisLog {
                firstInvalid = .saltMismatch(frame: index)
            } else if pageNumber == 0 {
                firstInvalid = .invalidPageNumber(frame: index)
            } else if next != stored {
                firstInvalid = .frameChecksumMismatch(frame: index)
            }
            if firstInvalid != nil {
                // The invalid frame itself, when it claims to be of this log, is dropped too.
                if ofThisLog && commitSize != 0 { commitsAfterInvalid += 1 }
                continue
            }
            checksum = next
            if pageNumber == Self.headerPage {
                let start = FileFormat.walFrameHeaderSize
                pendingHeader = Array(frame[start..<(start + FileFormat.databaseHeaderSize)])
            }
            if commitSize != 0 {
                if let pendingHeader { committedDatabaseHeader = pendingHeader }
                committedFrames = index
                commits += 1
                commitFrames.append(index)
                databaseSizeInPages = commitSize
            }
        }
        tailFrames = wholeFrames - committedFrames - framesAfterInvalid
        // An invalid frame matters only when committed transactions of this log follow it.
        if let firstInvalid, commitsAfterInvalid > 0 { problem = firstInvalid }
    }
}
