import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitCrypto
@testable import FixtureKitModels
@testable import FixtureKitSQLite
@testable import FixtureKitSystem
@testable import FixtureKitTestSupport

/// `capture --mode snapshot` hashes its copy from the bytes SQLite writes
/// (``HashedWrites``), in one pass: the digest is the copy's, and the copy is the
/// bytes a plain backup writes, whatever the page size and however the source is
/// read (in place beside its writer, a WAL at rest read in place without its
/// `-shm`, a WAL store
/// without `-wal` read immutable, a rollback-journal store).
@Suite struct CaptureOnePassTests {
    enum Source: String, CaseIterable { case heldWAL, walAtRest, walWithoutLog, rollback }

    /// A store of about 6 MiB (more than SQLite's page cache, so that the backup
    /// spills pages before its commit) in `folder/live/`, and whatever holds it open.
    static func store(_ source: Source, pageSize: Int, in folder: TemporaryFolder) throws -> (path: String, held: HeldWALStore?) {
        try FileManager.default.createDirectory(atPath: folder.url("live"), withIntermediateDirectories: true)
        // (With links to notes, 10 of them to none: the contents count the violations.)
        let fill = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12000) INSERT INTO notes (uuid, title) SELECT 'U' || i, hex(randomblob(240)) FROM n; "
            + "CREATE TABLE links (id INTEGER PRIMARY KEY, note INTEGER REFERENCES notes (id)); "
            + "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40) INSERT INTO links (note) SELECT i * 400 FROM n"
        switch source {
        case .heldWAL, .walAtRest, .walWithoutLog:
            let store = try HeldWALStore(in: folder.url("live"), pageSize: pageSize, notes: 5)
            try store.database.execute(fill)
            if source == .heldWAL { return (store.path, store) }
            if source == .walWithoutLog { try store.database.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
            try store.database.close()
            if source == .walWithoutLog {
                unlink(store.path + "-wal")
                unlink(store.path + "-shm")
            }
            return (store.path, nil)
        case .rollback:
            let path = folder.url("live/App.sqlite")
            let database = try Database(path: path, options: .init(create: true))
            try database.execute("PRAGMA page_size = \(pageSize); CREATE TABLE notes (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, title TEXT)")
            try database.execute(fill)
            try database.close()
            return (path, nil)
        }
    }

    /// The source copied by SQLite's backup alone, as capture did before.
    static func plainBackup(of path: String, to destination: String) throws {
        let source = try Database(path: ScratchStore.fileURI(path) + "?mode=ro", options: .init(readOnly: true, uri: true))
        let copy = try Database(path: destination, options: .init(create: true))
        try copy.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
        try source.backup(to: copy)
        try copy.close()
        try source.close()
    }

    @Test(arguments: Source.allCases, [512, 4096, 65536])
    func theCopyIsHashedAsItIsWritten(source: Source, pageSize: Int) throws {
        let folder = try TemporaryFolder()
        let (path, held) = try Self.store(source, pageSize: pageSize, in: folder)
        let set = try StoreSet.locate(path)
        #expect(Capture.SourceRead(set) == [.heldWAL: .inPlace, .walAtRest: .atRest, .walWithoutLog: .immutable, .rollback: .inPlace][source])
        try FileManager.default.createDirectory(atPath: folder.url("copies"), withIntermediateDirectories: true)
        let digest = try Capture.snapshot(set, to: folder.url("copies/captured.sqlite")).digest
        let onDisk = try sha256(ofFileAt: folder.url("copies/captured.sqlite"))
        #expect(digest?.digest.hex == onDisk, "the copy was hashed from the disk, or its digest is wrong")
        #expect(digest?.size == UInt64(try folder.read("copies/captured.sqlite").count))
        // The same bytes as SQLite's backup writes alone.
        if held == nil || source == .heldWAL {
            try Self.plainBackup(of: path, to: folder.url("copies/plain.sqlite"))
            #expect(try sha256(ofFileAt: folder.url("copies/plain.sqlite")) == onDisk)
        }
        withExtendedLifetime(held) {}
    }

    /// A store of more than 1 GiB: the backup never writes its lock page (the
    /// page at 1 GiB that holds SQLite's lock bytes, zeros in the file), and the
    /// copy is still hashed as it is written, the lock page's zeros in their
    /// place. (Overflow pages begin with the number of the next one: a page
    /// hashed out of place changes the digest.) The same when the copy goes
    /// around the page cache (`readingContents`): the lock page's zeros are
    /// written with the pieces.
    @Test(arguments: [false, true])
    func aStoreBeyondTheLockPageIsHashedAsItIsWritten(readingContents: Bool) throws {
        let folder = try TemporaryFolder()
        let path = folder.url("big.sqlite")
        let database = try Database(path: path, options: .init(create: true))
        try database.execute("PRAGMA page_size = 65536; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; CREATE TABLE blobs (b BLOB)")
        try database.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1040) INSERT INTO blobs SELECT zeroblob(1048576) FROM n")
        try database.close()
        let copy = folder.url("copy.sqlite")
        let digest = try Capture.snapshot(try StoreSet.locate(path), to: copy, readingContents: readingContents).digest
        let size = try #require(try? POSIX.lstat(copy).size)
        #expect(size > HashedWrites.lockPageOffset + 65536)
        #expect(digest?.digest.hex == (try sha256(ofFileAt: copy)), "the copy was hashed from the disk, or its digest is wrong")
        #expect(digest?.size == UInt64(size))
    }

    /// A page 1 other than the one expected (another library's header, another
    /// backup) leaves no digest: the copy is then hashed from the disk. The bytes
    /// written through the sink are the copy's all the same.
    @Test func anotherFirstPageLeavesTheDigestToTheDisk() throws {
        let folder = try TemporaryFolder()
        let (path, _) = try Self.store(.rollback, pageSize: 4096, in: folder)
        try CaptureVFS.register()
        let sink = try HashedWrites(firstPage: [UInt8](repeating: 0, count: 4096))
        let id = CaptureVFS.register(sink)
        defer { CaptureVFS.unregister(id) }
        let source = try Database(path: path, options: .init(readOnly: true))
        let copy = try Database(path: CaptureVFS.uri(folder.url("sunk.sqlite"), [("fixturekit_sink", String(id))]), options: .init(create: true, uri: true))
        try copy.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
        try source.backup(to: copy)
        try copy.close()
        #expect(try sink.finish() == nil)
        try Self.plainBackup(of: path, to: folder.url("plain.sqlite"))
        #expect(try sha256(ofFileAt: folder.url("sunk.sqlite")) == (try sha256(ofFileAt: folder.url("plain.sqlite"))))
    }

    /// A copy nothing reads again (`readingContents`, as `capture` without
    /// anonymization reads its contents from the source) goes to the disk around
    /// the page cache, where the file system takes `O_DIRECT`: the same bytes and
    /// digest, and nothing of it left in the page cache but page 1, which SQLite
    /// writes itself. A piece the kernel refuses goes through SQLite's file: at
    /// page size 512, every piece starts 512 bytes past a block. (The copy is made
    /// where `O_DIRECT` writes stay out of the page cache: not in tmpfs, where
    /// `make test` keeps its folders, but `/var/tmp` on the disk; without such a
    /// folder only the bytes are compared.)
    @Test(arguments: [512, 4096, 65536])
    func aCopyNothingReadsAgainGoesAroundThePageCache(pageSize: Int) throws {
        let folder = try TemporaryFolder()
        let (path, _) = try Self.store(.walAtRest, pageSize: pageSize, in: folder)
        let disk = Self.folderKeepingDirectWritesOutOfTheCache()
        let copy = (disk ?? folder).url("captured.sqlite")
        let facts = try Capture.snapshot(try StoreSet.locate(path), to: copy, readingContents: true)
        #expect(facts.contents != nil)
        let resident = try Self.residentBytes(of: copy)
        let size = try #require(try? POSIX.lstat(copy).size)
        if pageSize >= HashedWrites.directAlignment, disk != nil {
            #expect(resident <= max(pageSize, Int(sysconf(Int32(_SC_PAGESIZE)))), "\(resident) of \(size) bytes went through the page cache")
        }
        #expect(facts.digest?.digest.hex == (try sha256(ofFileAt: copy)))
        #expect(facts.digest?.size == UInt64(size))
        try Self.plainBackup(of: path, to: folder.url("plain.sqlite"))
        #expect(try sha256(ofFileAt: folder.url("plain.sqlite")) == (try sha256(ofFileAt: copy)))
    }

    /// The copy of a WAL store read in place beside its app is read again for
    /// its contents (``SnapshotContentsReader`` cannot prove the two connections
    /// read one snapshot): it goes through the page cache, which then holds it.
    @Test func aCopyReadAgainStaysInThePageCache() throws {
        let folder = try TemporaryFolder()
        let (path, held) = try Self.store(.heldWAL, pageSize: 4096, in: folder)
        let disk = Self.folderKeepingDirectWritesOutOfTheCache()
        let copy = (disk ?? folder).url("captured.sqlite")
        let facts = try Capture.snapshot(try StoreSet.locate(path), to: copy, readingContents: true)
        #expect(facts.contents == nil)
        let size = try #require(try? POSIX.lstat(copy).size)
        if disk != nil { #expect(try Self.residentBytes(of: copy) == Int(size)) }
        withExtendedLifetime(held) {}
    }

    /// A direct descriptor whose writes fail (here, one opened read-only; on a
    /// user's machine a file system that refuses them) costs nothing but the
    /// page cache: every piece goes through SQLite's file, and the digest is the
    /// copy's.
    @Test func piecesTheKernelRefusesGoThroughSQLitesFile() throws {
        let folder = try TemporaryFolder()
        let (path, _) = try Self.store(.rollback, pageSize: 4096, in: folder)
        let destination = folder.url("sunk.sqlite")
        let refusing = try FileDescriptor.open(destination, .readOnly, options: .exclusiveCreate)
        defer { try? refusing.close() }
        try CaptureVFS.register()
        let source = try Database(path: path, options: .init(readOnly: true))
        let pageCount = try #require(try source.scalar("PRAGMA page_count")?.integer)
        let firstPage = try #require(SnapshotCopy.firstPage(of: Array(try folder.read("live/App.sqlite").prefix(4096)), pageCount: pageCount))
        let sink = try HashedWrites(firstPage: firstPage, direct: refusing)
        let id = CaptureVFS.register(sink)
        defer { CaptureVFS.unregister(id) }
        let copy = try Database(path: CaptureVFS.uri(destination, [("fixturekit_sink", String(id))]), options: .init(create: true, uri: true))
        try copy.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
        try source.backup(to: copy)
        try copy.close()
        let digest = try #require(try sink.finish())
        #expect(digest.digest.hex == (try sha256(ofFileAt: destination)))
        try Self.plainBackup(of: path, to: folder.url("plain.sqlite"))
        #expect(try sha256(ofFileAt: folder.url("plain.sqlite")) == (try sha256(ofFileAt: destination)))
    }

    /// A temporary folder, in `TMPDIR` or else in `/var/tmp`, where a file written
    /// with `O_DIRECT` is not in the page cache afterwards (tmpfs keeps every
    /// file there); nil when neither is such a one.
    static func folderKeepingDirectWritesOutOfTheCache() -> TemporaryFolder? {
        guard let direct = FileDescriptor.OpenOptions.direct else { return nil }
        for parent in [nil, "/var/tmp"] {
            guard let folder = try? TemporaryFolder(in: parent) else { continue }
            let probe = folder.url("probe")
            guard let file = try? FileDescriptor.open(probe, .writeOnly, options: [.exclusiveCreate, direct]) else { continue }
            let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 4096)
            block.initializeMemory(as: UInt8.self, repeating: 7)
            let written = (try? file.writeAll(toAbsoluteOffset: 0, UnsafeRawBufferPointer(block))) != nil
            block.deallocate()
            try? file.close()
            if written, (try? residentBytes(of: probe)) == 0 { return folder }
        }
        return nil
    }

    /// How many bytes of the file at `path` the page cache holds (`mincore`).
    static func residentBytes(of path: String) throws -> Int {
        let file = try FileDescriptor.open(path, .readOnly)
        defer { try? file.close() }
        let size = Int(try file.status().size)
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard size > 0 else { return 0 }
        guard let map = mmap(nil, size, PROT_READ, MAP_SHARED, file.rawValue, 0), map != MAP_FAILED else { throw FileSystemError("mmap", path: path, errno: errno) }
        defer { munmap(map, size) }
        var pages = [UInt8](repeating: 0, count: (size + page - 1) / page)
        guard mincore(map, size, &pages) == 0 else { throw FileSystemError("mincore", path: path, errno: errno) }
        return pages.filter { $0 & 1 != 0 }.count * page
    }

    /// The whole capture: its `SHA256SUMS` names the store's bytes, and the
    /// fixture is the one a capture that hashes from the disk writes.
    @Test func aCaptureRecordsTheDigestOfItsBytes() throws {
        let folder = try TemporaryFolder()
        let (path, held) = try Self.store(.heldWAL, pageSize: 4096, in: folder)
        let result = fixturekit("capture", "--quiet", "--no-anonymize", path, "--version", "1.0.0", "--corpus", folder.url("corpus"), "--mode", "snapshot")
        #expect(result.status == 0, "\(result.standardError)")
        let check = try run(["sha256sum", "-c", "--strict", "--quiet", "SHA256SUMS"], in: folder.url("corpus/1.0.0"))
        #expect(check.status == 0, "\(check.standardOutput)")
        #expect(fixturekit("verify", "--deep", folder.url("corpus")).status == 0)
        withExtendedLifetime(held) {}
    }
}
