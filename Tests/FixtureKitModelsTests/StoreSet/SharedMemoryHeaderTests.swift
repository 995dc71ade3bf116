import Testing
@testable import FixtureKitModels
@testable import FixtureKitSQLite
@testable import FixtureKitSystem

/// The `-shm` header of stores held open in WAL mode, checked against the
/// `-wal` beside it and SQLite's pragmas, then with bytes changed.
@Suite struct SharedMemoryHeaderTests {
    /// A held WAL store with one table and `rows` single-row commits.
    func heldStore(pageSize: Int = 4096, rows: Int = 5) throws -> TestStore {
        let store = try TestStore(pageSize: pageSize, wal: true)
        try store.commit(["CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT)"])
        try store.commit((0..<rows).map { "INSERT INTO notes (title) VALUES ('note \($0)')" })
        return store
    }

    /// `bytes` with both copies of the index header set from `change` applied to
    /// the first, and its checksum recomputed: a header SQLite would accept.
    func rewritten(_ bytes: [UInt8], _ change: (inout [UInt8]) -> Void) -> [UInt8] {
        var copy = bytes
        change(&copy)
        let checksum = WALChecksum.zero.adding(Array(copy[0..<40]), bigEndian: false)
        copy.setLittleEndian(checksum.first, at: 40)
        copy.setLittleEndian(checksum.second, at: 44)
        copy.replaceSubrange(48..<96, with: copy[0..<48])
        return copy
    }

    @Test(arguments: [512, 1024, 4096, 65536])
    func agreesWithTheLogAndTheDatabase(pageSize: Int) throws {
        let store = try heldStore(pageSize: pageSize)
        let pages = try store.integer("PRAGMA page_count")
        let wal = WALFile(bytes: try store.bytes("-wal"))
        let shm = try #require(SharedMemoryHeader(bytes: try store.bytes("-shm")))
        #expect(shm.version == 3_007_000)
        #expect(shm.isInitialized)
        #expect(shm.isConsistent)
        #expect(shm.pageSize == pageSize)
        #expect(Int(shm.maxFrame) == wal.committedFrames)
        #expect(shm.maxFrame == 7)
        #expect(Int64(shm.pageCount) == pages)
        #expect(shm.salt1 == wal.header?.salt1)
        #expect(shm.salt2 == wal.header?.salt2)
        #expect(shm.backfilledFrames == 0)
    }

    @Test func countsBackfilledFramesAfterACheckpoint() throws {
        let store = try heldStore(rows: 9)
        let result = try store.db.checkpoint(.passive)
        let shm = try #require(SharedMemoryHeader(bytes: try store.bytes("-shm")))
        #expect(result.logFrames == 11)
        #expect(shm.maxFrame == 11)
        #expect(shm.backfilledFrames == 11)
        #expect(shm.isConsistent)
    }

    @Test func aRecomputedChecksumIsAccepted() throws {
        let store = try heldStore()
        let bytes = try store.bytes("-shm")
        let shm = try #require(SharedMemoryHeader(bytes: rewritten(bytes) { $0.setLittleEndian(1234, at: 16) }))
        #expect(shm.maxFrame == 1234)
        #expect(shm.isConsistent)
        // The salts are copied from the WAL header as they are there: big-endian.
        let salted = try #require(SharedMemoryHeader(bytes: rewritten(bytes) { $0.replaceSubrange(32..<40, with: [1, 2, 3, 4, 5, 6, 7, 8]) }))
        #expect(salted.salt1 == 0x0102_0304)
        #expect(salted.salt2 == 0x0506_0708)
        #expect(salted.isConsistent)
    }

    @Test func anyChangedByteOfEitherCopyMakesItInconsistent() throws {
        let store = try heldStore()
        let bytes = try store.bytes("-shm")
        #expect(SharedMemoryHeader(bytes: bytes)?.isConsistent == true)
        for offset in 0..<96 {
            let shm = try #require(SharedMemoryHeader(bytes: bytes.flipping(offset, bits: 0x10)))
            #expect(!shm.isConsistent, "byte \(offset)")
        }
        // The same change in both copies, checksum left as it was.
        var both = bytes.flipping(20)
        both[48 + 20] ^= 0x01
        #expect(SharedMemoryHeader(bytes: both)?.isConsistent == false)
        // Bytes after the two copies (the checkpoint information) do not take part.
        #expect(SharedMemoryHeader(bytes: bytes.flipping(120))?.isConsistent == true)
    }

    @Test func anUninitializedHeaderIsNotConsistent() throws {
        let store = try heldStore()
        let shm = try #require(SharedMemoryHeader(bytes: rewritten(try store.bytes("-shm")) { $0[12] = 0 }))
        #expect(!shm.isInitialized)
        #expect(!shm.isConsistent)
    }

    @Test func needs136Bytes() throws {
        let store = try heldStore()
        let bytes = try store.bytes("-shm")
        #expect(SharedMemoryHeader(bytes: Array(bytes.prefix(135))) == nil)
        #expect(SharedMemoryHeader(bytes: []) == nil)
        #expect(SharedMemoryHeader(bytes: Array(bytes.prefix(136))) == SharedMemoryHeader(bytes: bytes))
    }
}
