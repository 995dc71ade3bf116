import FixtureKitSystem

/// Format numbers of SQLite's files, from <https://www.sqlite.org/fileformat2.html>
/// and the comments of SQLite's `wal.c`. Every number fixturekit reads a file by
/// is named here.
package enum FileFormat {
    // MARK: - Database header

    /// The database header is the first 100 bytes of the file.
    package static let databaseHeaderSize = 100
    /// "SQLite format 3" and a NUL.
    package static let databaseMagic: [UInt8] = Array("SQLite format 3\0".utf8)
    static let pageSizeOffset = 16
    /// A stored page size of 1 means 65536, which does not fit in two bytes.
    static let pageSize65536Marker = 1
    static let writeVersionOffset = 18
    static let readVersionOffset = 19
    /// Write/read format version 1 is a rollback journal, 2 is WAL.
    package static let legacyFormatVersion: UInt8 = 1
    static let walFormatVersion: UInt8 = 2
    static let reservedBytesOffset = 20
    static let fileChangeCounterOffset = 24
    static let pageCountOffset = 28
    static let freelistTrunkOffset = 32
    static let freelistCountOffset = 36
    static let schemaCookieOffset = 40
    static let schemaFormatOffset = 44
    static let textEncodingOffset = 56
    static let userVersionOffset = 60
    static let incrementalVacuumOffset = 64
    static let applicationIDOffset = 68
    static let versionValidForOffset = 92
    static let sqliteVersionNumberOffset = 96
    static let minimumPageSize = 512
    static let maximumPageSize = 65536

    // MARK: - WAL

    /// The WAL header: magic, version, page size, checkpoint sequence, two salts,
    /// two checksums, each a big-endian 32-bit number.
    static let walHeaderSize = 32
    /// Each frame: page number, database size after a commit (0 otherwise), the
    /// two salts, two cumulative checksums; then the page.
    static let walFrameHeaderSize = 24
    /// The magic's last bit says in which byte order checksums are computed.
    static let walMagicLittleEndian: UInt32 = 0x377F_0682
    static let walMagicBigEndian: UInt32 = 0x377F_0683
    /// The only WAL format version there is (3.7.0).
    static let walVersion: UInt32 = 3_007_000
    static let walPageSizeOffset = 8
    static let walCheckpointSequenceOffset = 12
    static let walSalt1Offset = 16
    static let walSalt2Offset = 20
    static let walChecksum1Offset = 24
    static let walChecksum2Offset = 28
    /// The header's checksum covers its first 24 bytes.
    static let walHeaderChecksummedBytes = 24
    static let walFramePageNumberOffset = 0
    static let walFrameCommitSizeOffset = 4
    static let walFrameSalt1Offset = 8
    static let walFrameSalt2Offset = 12
    static let walFrameChecksum1Offset = 16
    static let walFrameChecksum2Offset = 20
    /// A frame's checksum covers the first 8 bytes of its header, then its page.
    static let walFrameChecksummedHeaderBytes = 8

    // MARK: - Shared-memory wal-index (-shm)

    /// Two copies of the 48-byte wal-index header, then the 40-byte checkpoint
    /// information, in the byte order of the machine that wrote them.
    package static let shmIndexHeaderSize = 48
    static let shmHeaderSize = 136
    static let shmVersionOffset = 0
    static let shmChangeOffset = 8
    static let shmIsInitOffset = 12
    static let shmBigEndianChecksumOffset = 13
    static let shmPageSizeOffset = 14
    static let shmMaxFrameOffset = 16
    static let shmPageCountOffset = 20
    static let shmSalt1Offset = 32
    static let shmSalt2Offset = 36
    static let shmChecksum1Offset = 40
    static let shmChecksum2Offset = 44
    /// The index header's checksum covers its first 40 bytes.
    static let shmChecksummedBytes = 40
    /// `nBackfill`: how many WAL frames a checkpoint has copied into the database.
    static let shmBackfillOffset = 96
    static let shmReadMarksOffset = 100
    static let shmReadMarkCount = 5
    static let shmBackfillAttemptedOffset = 128

    // MARK: - Rollback journal

    /// The first 8 bytes of a journal that holds a transaction to roll back.
    static let journalMagic: [UInt8] = [0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7]
}

extension Collection where Element == UInt8, Index == Int {
    /// The big-endian unsigned number of `count` bytes at `offset`.
    func bigEndian(at offset: Int, count: Int = 4) -> UInt32 {
        var value: UInt32 = 0
        for index in offset..<(offset + count) { value = value << 8 | UInt32(self[startIndex + index]) }
        return value
    }

    /// The little-endian unsigned number of `count` bytes at `offset`.
    func littleEndian(at offset: Int, count: Int = 4) -> UInt32 {
        var value: UInt32 = 0
        for index in (offset..<(offset + count)).reversed() { value = value << 8 | UInt32(self[startIndex + index]) }
        return value
    }
}
