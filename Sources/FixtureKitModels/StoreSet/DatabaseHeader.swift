import FixtureKitSystem

/// The 100-byte header at the start of every SQLite database file, read from
/// the file's bytes without SQLite.
public struct DatabaseHeader: Sendable, Equatable, Codable {
    public internal(set) var pageSize: Int
    /// 1 for a rollback journal, 2 for WAL: the journal mode the file was left in.
    public internal(set) var writeVersion: UInt8
    public internal(set) var readVersion: UInt8
    public internal(set) var reservedBytesPerPage: Int
    public internal(set) var fileChangeCounter: UInt32
    /// The size in pages, valid when `versionValidFor` equals the change counter.
    public internal(set) var pageCount: UInt32
    public internal(set) var freelistPageCount: UInt32
    public internal(set) var schemaCookie: UInt32
    public internal(set) var schemaFormat: UInt32
    /// 1 UTF-8, 2 UTF-16le, 3 UTF-16be.
    public internal(set) var textEncoding: UInt32
    public internal(set) var userVersion: Int32
    public internal(set) var applicationID: Int32
    public internal(set) var versionValidFor: UInt32
    /// `SQLITE_VERSION_NUMBER` of the library that last wrote the file.
    public internal(set) var sqliteVersionNumber: UInt32

    /// Why the bytes are not a database header.
    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        case empty
        case tooShort(Int)
        case notSQLite
        case invalidPageSize(Int)

        public var description: String {
            switch self {
            case .empty: "empty file, not an SQLite database"
            case .tooShort(let count): "\(count) bytes, shorter than an SQLite header (100 bytes)"
            case .notSQLite: "not an SQLite database (no \"SQLite format 3\" header)"
            case .invalidPageSize(let size): "invalid page size \(size) in the database header"
            }
        }
    }

    /// Reads the header from the first bytes of a file.
    public init(bytes: [UInt8]) throws(Problem) {
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count >= FileFormat.databaseHeaderSize else {
            throw bytes.starts(with: FileFormat.databaseMagic.prefix(bytes.count)) ? .tooShort(bytes.count) : .notSQLite
        }
        guard bytes.starts(with: FileFormat.databaseMagic) else { throw .notSQLite }
        let rawPageSize = Int(bytes.bigEndian(at: FileFormat.pageSizeOffset, count: 2))
        let pageSize = rawPageSize == FileFormat.pageSize65536Marker ? 65536 : rawPageSize
        guard pageSize >= FileFormat.minimumPageSize, pageSize <= FileFormat.maximumPageSize, pageSize & (pageSize - 1) == 0 else {
            throw .invalidPageSize(rawPageSize)
        }
        self.pageSize = pageSize
        writeVersion = bytes[FileFormat.writeVersionOffset]
        readVersion = bytes[FileFormat.readVersionOffset]
        reservedBytesPerPage = Int(bytes[FileFormat.reservedBytesOffset])
        fileChangeCounter = bytes.bigEndian(at: FileFormat.fileChangeCounterOffset)
        pageCount = bytes.bigEndian(at: FileFormat.pageCountOffset)
        freelistPageCount = bytes.bigEndian(at: FileFormat.freelistCountOffset)
        schemaCookie = bytes.bigEndian(at: FileFormat.schemaCookieOffset)
        schemaFormat = bytes.bigEndian(at: FileFormat.schemaFormatOffset)
        textEncoding = bytes.bigEndian(at: FileFormat.textEncodingOffset)
        userVersion = Int32(bitPattern: bytes.bigEndian(at: FileFormat.userVersionOffset))
        applicationID = Int32(bitPattern: bytes.bigEndian(at: FileFormat.applicationIDOffset))
        versionValidFor = bytes.bigEndian(at: FileFormat.versionValidForOffset)
        sqliteVersionNumber = bytes.bigEndian(at: FileFormat.sqliteVersionNumberOffset)
    }

    /// Whether the file was left in WAL mode: its read/write versions are 2.
    public var isWAL: Bool { writeVersion == FileFormat.walFormatVersion || readVersion == FileFormat.walFormatVersion }

    /// `wal` or `rollback` (the header cannot tell the rollback modes delete, truncate and persist apart).
    public var journalMode: String { isWAL ? "wal" : "rollback" }

    /// `UTF-8`, `UTF-16le`, `UTF-16be`.
    public var textEncodingName: String {
        switch textEncoding {
        case 1: "UTF-8"
        case 2: "UTF-16le"
        case 3: "UTF-16be"
        default: "unknown (\(textEncoding))"
        }
    }

    /// `3.40.1`, from `SQLITE_VERSION_NUMBER` (3040001).
    public var sqliteVersion: String {
        let number = sqliteVersionNumber
        return "\(number / 1_000_000).\(number / 1000 % 1000).\(number % 1000)"
    }
}
