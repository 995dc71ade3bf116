import Testing
@testable import FixtureKitModels
@testable import FixtureKitSQLite
@testable import FixtureKitSystem

/// The 100-byte header read from real files SQLite wrote, then from copies
/// with single fields changed; each value is checked against what SQLite's own
/// pragmas report for the same file.
@Suite struct DatabaseHeaderTests {
    @Test(arguments: [512, 1024, 4096, 8192, 32768, 65536])
    func readsEveryFieldOfARollbackStore(pageSize: Int) throws {
        let store = try TestStore(pageSize: pageSize)
        try store.commit([
            "PRAGMA user_version = 42",
            "PRAGMA application_id = -1234567",
            "CREATE TABLE notes (id INTEGER PRIMARY KEY, body BLOB)",
            "INSERT INTO notes (body) SELECT zeroblob(3000) FROM (WITH RECURSIVE series(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM series WHERE n < 40) SELECT n FROM series)",
            "DELETE FROM notes WHERE id > 10",
        ])
        let expected = (
            pages: try store.integer("PRAGMA page_count"), free: try store.integer("PRAGMA freelist_count"),
            cookie: try store.integer("PRAGMA schema_version"))
        try store.close()
        let bytes = try store.bytes()
        let header = try DatabaseHeader(bytes: Array(bytes.prefix(100)))

        #expect(header.pageSize == pageSize)
        // 65536 does not fit in two bytes: SQLite writes 1.
        let stored = Int(bytes[16]) << 8 | Int(bytes[17])
        #expect(stored == (pageSize == 65536 ? 1 : pageSize))
        #expect(header.writeVersion == 1)
        #expect(header.readVersion == 1)
        #expect(!header.isWAL)
        #expect(header.journalMode == "rollback")
        #expect(header.reservedBytesPerPage == 0)
        #expect(Int64(header.pageCount) == expected.pages)
        #expect(Int(header.pageCount) * pageSize == bytes.count)
        #expect(Int64(header.freelistPageCount) == expected.free)
        #expect(header.freelistPageCount > 0)
        #expect(Int64(header.schemaCookie) == expected.cookie)
        #expect(header.schemaFormat == 4)
        #expect(header.textEncoding == 1)
        #expect(header.textEncodingName == "UTF-8")
        #expect(header.userVersion == 42)
        #expect(header.applicationID == -1_234_567)
        #expect(header.versionValidFor == header.fileChangeCounter)
        #expect(header.sqliteVersion == Database.libraryVersion)
    }

    @Test func countsOneChangePerTransaction() throws {
        let store = try TestStore()
        try store.commit(["CREATE TABLE notes (id INTEGER PRIMARY KEY)"])
        let before = try DatabaseHeader(bytes: Array(try store.bytes().prefix(100))).fileChangeCounter
        try store.commit((1...7).map { "INSERT INTO notes VALUES (\($0))" })
        let after = try DatabaseHeader(bytes: Array(try store.bytes().prefix(100))).fileChangeCounter
        #expect(after == before + 7)
    }

    @Test func walStoreHasVersionsTwo() throws {
        let store = try TestStore(pageSize: 1024, wal: true)
        try store.commit(["CREATE TABLE notes (id INTEGER PRIMARY KEY)"])
        let header = try DatabaseHeader(bytes: Array(try store.bytes().prefix(100)))
        #expect(header.writeVersion == 2)
        #expect(header.readVersion == 2)
        #expect(header.isWAL)
        #expect(header.journalMode == "wal")
        #expect(header.pageSize == 1024)
    }

    @Test(arguments: [("UTF-16le", UInt32(2)), ("UTF-16be", UInt32(3)), ("UTF-8", UInt32(1))])
    func readsTheTextEncoding(name: String, code: UInt32) throws {
        let store = try TestStore(prepare: "PRAGMA encoding = '\(name)'")
        try store.commit(["CREATE TABLE notes (title TEXT)", "INSERT INTO notes VALUES ('é')"])
        try store.close()
        let header = try DatabaseHeader(bytes: Array(try store.bytes().prefix(100)))
        #expect(header.textEncoding == code)
        #expect(header.textEncodingName == name)
    }

    /// Fields SQLite only writes in rare set-ups, set in the bytes.
    @Test func readsReservedBytesAndUnknownEncodingFromTheBytes() throws {
        let store = try TestStore()
        try store.commit(["CREATE TABLE notes (id INTEGER PRIMARY KEY)"])
        var bytes = Array(try store.bytes().prefix(100))
        bytes[20] = 32
        bytes.setBigEndian(4, at: 56)
        bytes.setBigEndian(3_045_002, at: 96)
        bytes.setBigEndian(0xFFFF_FFFE, at: 60)
        let header = try DatabaseHeader(bytes: bytes)
        #expect(header.reservedBytesPerPage == 32)
        #expect(header.textEncoding == 4)
        #expect(header.textEncodingName == "unknown (4)")
        #expect(header.sqliteVersion == "3.45.2")
        #expect(header.userVersion == -2)
    }

    @Test func everyValidPageSizeIsReadAndEveryOtherRefused() throws {
        let store = try TestStore()
        try store.commit(["CREATE TABLE notes (id INTEGER PRIMARY KEY)"])
        let good = Array(try store.bytes().prefix(100))
        func header(raw: Int) -> Result<Int, DatabaseHeader.Problem> {
            var bytes = good
            bytes[16] = UInt8(raw >> 8)
            bytes[17] = UInt8(raw & 0xFF)
            return Result { () throws(DatabaseHeader.Problem) in try DatabaseHeader(bytes: bytes).pageSize }
        }
        let accepted = (0...0xFFFF).compactMap { raw in (try? header(raw: raw).get()).map { [raw, $0] } }
        #expect(accepted == [[1, 65536], [512, 512], [1024, 1024], [2048, 2048], [4096, 4096], [8192, 8192], [16384, 16384], [32768, 32768]])
        for raw in [0, 2, 256, 511, 513, 1000, 4095, 32769, 65535] {
            #expect(header(raw: raw) == .failure(.invalidPageSize(raw)))
        }
    }

    @Test func refusesWhatIsNotAHeader() throws {
        let store = try TestStore()
        try store.commit(["CREATE TABLE notes (id INTEGER PRIMARY KEY)"])
        let good = Array(try store.bytes().prefix(100))
        #expect(throws: DatabaseHeader.Problem.empty) { try DatabaseHeader(bytes: []) }
        // A cut header still starting with the magic is short; anything else is not SQLite.
        for count in [1, 6, 15, 16, 50, 99] {
            #expect(throws: DatabaseHeader.Problem.tooShort(count)) { try DatabaseHeader(bytes: Array(good.prefix(count))) }
        }
        #expect(throws: DatabaseHeader.Problem.notSQLite) { try DatabaseHeader(bytes: Array("Hello".utf8)) }
        #expect(throws: DatabaseHeader.Problem.notSQLite) { try DatabaseHeader(bytes: Array(good.prefix(50)).flipping(3)) }
        for offset in 0..<16 {
            #expect(throws: DatabaseHeader.Problem.notSQLite) { try DatabaseHeader(bytes: good.flipping(offset, bits: 0x20)) }
        }
        // Bytes after the header do not matter.
        #expect(try DatabaseHeader(bytes: good + [1, 2, 3]) == DatabaseHeader(bytes: good))
    }
}
