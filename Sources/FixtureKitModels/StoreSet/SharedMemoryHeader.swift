import FixtureKitSystem

/// The header of a `-shm` file (SQLite's wal-index), read from its bytes.
///
/// SQLite writes it in the byte order of the machine, and rebuilds it from the
/// `-wal` whenever the first connection opens the store; so a `-shm` never
/// carries data, but a stale one tells how the store set was copied.
public struct SharedMemoryHeader: Sendable, Equatable, Codable {
    public internal(set) var version: UInt32
    public internal(set) var isInitialized: Bool
    public internal(set) var pageSize: Int
    /// The last frame of the log as the writer last knew it (`mxFrame`).
    public internal(set) var maxFrame: UInt32
    public internal(set) var pageCount: UInt32
    public var salt1: UInt32
    public var salt2: UInt32
    /// Frames a checkpoint has already copied into the main file (`nBackfill`).
    public internal(set) var backfilledFrames: UInt32
    /// Both copies of the header agree and their checksum holds.
    public internal(set) var isConsistent: Bool

    /// Reads the first 136 bytes of a `-shm`; `nil` when there are fewer.
    ///
    /// The header is in the writer's byte order; fixturekit runs on little-endian
    /// machines, as do the devices stores come from (arm64, x86-64).
    public init?(bytes: [UInt8]) {
        guard bytes.count >= FileFormat.shmHeaderSize else { return nil }
        let first = Array(bytes[0..<FileFormat.shmIndexHeaderSize])
        let second = Array(bytes[FileFormat.shmIndexHeaderSize..<(2 * FileFormat.shmIndexHeaderSize)])
        version = first.littleEndian(at: FileFormat.shmVersionOffset)
        isInitialized = first[FileFormat.shmIsInitOffset] != 0
        let rawPageSize = Int(first.littleEndian(at: FileFormat.shmPageSizeOffset, count: 2))
        // 65536 is stored as 1, as in the database header.
        pageSize = rawPageSize == FileFormat.pageSize65536Marker ? 65536 : rawPageSize
        maxFrame = first.littleEndian(at: FileFormat.shmMaxFrameOffset)
        pageCount = first.littleEndian(at: FileFormat.shmPageCountOffset)
        // SQLite copies the salts byte for byte from the WAL header: big-endian.
        salt1 = first.bigEndian(at: FileFormat.shmSalt1Offset)
        salt2 = first.bigEndian(at: FileFormat.shmSalt2Offset)
        backfilledFrames = bytes.littleEndian(at: FileFormat.shmBackfillOffset)
        let checksum = WALChecksum.zero.adding(Array(first[0..<FileFormat.shmChecksummedBytes]), bigEndian: false)
        let stored = WALChecksum(first: first.littleEndian(at: FileFormat.shmChecksum1Offset), second: first.littleEndian(at: FileFormat.shmChecksum2Offset))
        isConsistent = first == second && checksum == stored && isInitialized
    }
}
