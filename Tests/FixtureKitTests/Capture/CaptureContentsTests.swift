import Foundation
import Synchronization
import Testing
@testable import FixtureKit
@testable import FixtureKitCrypto
@testable import FixtureKitModels
@testable import FixtureKitSQLite
@testable import FixtureKitSystem
@testable import FixtureKitTestSupport

/// `capture --mode snapshot` reads the snapshot's contents (content hash, schema,
/// row counts, foreign-key violations, model) on a second connection while the
/// first copies it (``SnapshotContentsReader``): the manifest and the lock's
/// content hash must be exactly those read from the copy afterwards, as capture
/// did before, whatever the journal mode, the page size, however the source is
/// read, and while another process writes the store.
@Suite struct CaptureContentsTests {
    /// The manifest of a fixture's store as capture wrote it before reading the
    /// contents alongside the copy: the staged copy inspected, read and hashed.
    /// (Its anonymization is the capture's: `--no-anonymize` writes that it opted out.)
    static func manifestReadFromTheCopy(_ result: CaptureResult, store: String) throws -> [UInt8] {
        let fixture = result.fixture
        let scratch = try TemporaryFolder()
        try FileManager.default.copyItem(atPath: fixture + "/" + store, toPath: scratch.url(store))
        let inspection = try StoreInspection(set: try StoreSet.locate(scratch.url(store)), readContents: true, access: .ownedFileImmutable)
        var manifest = try Manifest(version: result.manifest.version, mode: CaptureMode.snapshot.rawValue, inspection: inspection)
        manifest.anonymization = result.manifest.anonymization
        let database = try ScratchStore.openImmutable(scratch.url(store))
        manifest.contentHash = try database.contentHash().hex
        try database.close()
        return manifest.rendered()
    }

    @Test(arguments: CaptureOnePassTests.Source.allCases, [512, 1024, 4096, 65536])
    func theContentsAreTheCopysWhateverTheSourceAndPageSize(source: CaptureOnePassTests.Source, pageSize: Int) throws {
        let folder = try TemporaryFolder()
        let (path, held) = try CaptureOnePassTests.store(source, pageSize: pageSize, in: folder)
        let copied = try Capture.snapshot(try StoreSet.locate(path), to: folder.url("copy.sqlite"), readingContents: true)
        // A WAL store read in place (another connection holds it) is read from the copy.
        guard source != .heldWAL else {
            #expect(copied.contents == nil)
            return withExtendedLifetime(held) {}
        }
        let contents = try #require(copied.contents, "the contents were not read alongside the copy")
        let database = try ScratchStore.openImmutable(folder.url("copy.sqlite"))
        #expect(contents == (try StoreContents(reading: database)).with(contentHash: try database.contentHash().hex))
        #expect(contents.foreignKeyViolations == 10)
        try database.close()
        withExtendedLifetime(held) {}
    }

    /// A WAL store read in place is never read on a second connection: telling
    /// that its snapshot is the first one's would mean reading the `-shm` beside
    /// SQLite, and closing that descriptor would drop the first connection's read
    /// lock (POSIX locks are the process'). A writer that keeps the second
    /// connection out of a rollback store leaves the contents to be read from the copy.
    @Test func aSecondConnectionThatMayReadAnotherSnapshotIsNotUsed() throws {
        let folder = try TemporaryFolder()
        let (path, held) = try CaptureOnePassTests.store(.heldWAL, pageSize: 4096, in: folder)
        let store = try #require(held)
        let opener = Capture.SourceOpener(set: try StoreSet.locate(path), read: .inPlace)
        #expect(SnapshotContentsReader(opener).hashed() == nil)
        try store.insert(1)
        #expect(SnapshotContentsReader(opener).hashed() == nil)

        let other = try TemporaryFolder()
        let (rollback, _) = try CaptureOnePassTests.store(.rollback, pageSize: 4096, in: other)
        let writer = try Database(path: rollback)
        try writer.execute("BEGIN EXCLUSIVE")
        let kept = Capture.SourceOpener(set: try StoreSet.locate(rollback), read: .inPlace)
        #expect(SnapshotContentsReader(kept).hashed() == nil)
        try writer.execute("COMMIT")
        #expect(SnapshotContentsReader(kept).hashed() != nil)
    }

    /// Every journal mode SQLite has, a foreign key that some rows violate, a
    /// `WITHOUT ROWID` table, an FTS5 table (shadow tables), and the empty store.
    @Test(arguments: ["delete", "truncate", "persist", "memory", "wal", "off", "empty"])
    func theCapturedFixtureIsTheOneReadFromTheCopy(journal: String) throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.url("live"), withIntermediateDirectories: true)
        let path = folder.url("live/App.sqlite")
        let database = try Database(path: path, options: .init(create: true))
        if journal == "empty" {
            try database.execute("PRAGMA user_version = 3")
        } else {
            try database.execute("PRAGMA journal_mode = \(journal)")
            try database.execute("""
                CREATE TABLE folders (id INTEGER PRIMARY KEY, name TEXT);
                CREATE TABLE notes (id INTEGER PRIMARY KEY, folder INTEGER REFERENCES folders(id), body TEXT);
                CREATE TABLE tags (name TEXT PRIMARY KEY, uses INTEGER) WITHOUT ROWID;
                CREATE VIRTUAL TABLE search USING fts5(body);
                CREATE INDEX notes_folder ON notes(folder);
                INSERT INTO folders (name) VALUES ('inbox'), ('work');
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
                INSERT INTO notes (folder, body) SELECT i % 4, hex(randomblob(100)) FROM n;
                INSERT INTO tags VALUES ('a', 1), ('b', 2);
                INSERT INTO search (body) SELECT body FROM notes WHERE id < 200;
                PRAGMA user_version = 7;
                """)
        }
        let result = try Capture.capture(store: path, version: "1.0.0", corpus: folder.url("corpus"), mode: .snapshot, anonymize: .synthetic)
        try database.close()
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: result.fixture + "/manifest.json")))
        let expected = try Self.manifestReadFromTheCopy(result, store: "App.sqlite")
        #expect(written == expected)
        if journal != "empty" {
            #expect(result.manifest.schema.foreignKeyViolations == 1500)
            #expect(result.manifest.tables["notes"] == 3000)
        }
        let check = try run(["sha256sum", "-c", "--strict", "--quiet", "SHA256SUMS"], in: result.fixture)
        #expect(check.status == 0, "\(check.standardOutput)")
    }

    /// A rollback-journal store that another process writes during each capture:
    /// the manifest's row counts and content hash are those of the copy (the
    /// second connection read the snapshot copied, or the copy was read after).
    @Test func aRollbackStoreWrittenMeanwhileGivesTheCopysContents() throws {
        let folder = try TemporaryFolder()
        let store = folder.url("Bank.sqlite")
        let setup = try Database(path: store, options: .init(create: true))
        try setup.execute("CREATE TABLE transfers (id INTEGER PRIMARY KEY, amount INTEGER, note TEXT)")
        try setup.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) INSERT INTO transfers (amount, note) SELECT i, hex(randomblob(100)) FROM n")
        try setup.close()
        let writer = try FeedingProcess(database: store, pause: 20_000) { n in
            "INSERT INTO transfers (amount, note) VALUES (\(n), hex(randomblob(200)));"
        }
        defer { writer.stop() }
        var counts = Set<Int>()
        for index in 0..<5 {
            let result = try Capture.capture(store: store, version: "1.0.\(index)", corpus: folder.url("corpus"), mode: .snapshot, anonymize: .synthetic)
            let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: result.fixture + "/manifest.json")))
            let expected = try Self.manifestReadFromTheCopy(result, store: "Bank.sqlite")
            #expect(written == expected)
            counts.insert(result.manifest.tables["transfers"] ?? 0)
        }
        #expect(counts.count > 1, "the writer did not write during the captures")
    }

    /// A WAL store at rest (its app gone, its `-wal` left) that short-lived
    /// processes write during the captures, each leaving it at rest again: the
    /// two connections of a capture start together, so a commit can fall between
    /// their reads; the manifest is still the copy's, or the capture says the
    /// store changed while it was read; at least two captures succeed.
    @Test func aStoreAtRestThatAppsWriteMeanwhileGivesTheCopysContents() throws {
        let folder = try TemporaryFolder()
        let store = folder.url("Bank.sqlite")
        let setup = try run(["sqlite3", store, """
            PRAGMA journal_mode = WAL; CREATE TABLE transfers (id INTEGER PRIMARY KEY, amount INTEGER, note TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) INSERT INTO transfers (amount, note) SELECT i, hex(randomblob(100)) FROM n;
            """])
        #expect(setup.status == 0)
        let stopped = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var n = 0
            while !stopped.load(ordering: .relaxed) {
                // Closed without a checkpoint: the -wal stays, and the store is at rest.
                _ = try? run(["sqlite3", "-cmd", ".timeout 10000", "-cmd", ".dbconfig no_ckpt_on_close on", store,
                              "INSERT INTO transfers (amount, note) VALUES (\(n), hex(randomblob(200)))"])
                n += 1
                usleep(30_000)
            }
            done.signal()
        }
        defer {
            stopped.store(true, ordering: .relaxed)
            done.wait()
        }
        var counts = Set<Int>()
        // 16 captures at least; more, up to 64, while fewer than two different
        // snapshots were captured (on a loaded machine a slow capture overlaps a
        // write each time, and says so).
        var index = 0
        while index < 16 || (counts.count < 2 && index < 64) {
            defer { index += 1 }
            do {
                let result = try Capture.capture(store: store, version: "1.0.\(index)", corpus: folder.url("corpus"), mode: .snapshot, anonymize: .synthetic)
                let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: result.fixture + "/manifest.json")))
                #expect(written == (try Self.manifestReadFromTheCopy(result, store: "Bank.sqlite")))
                counts.insert(result.manifest.tables["transfers"] ?? 0)
            } catch {
                #expect((error as? FixtureKitError)?.description == "capture: snapshot: \(store): changed while it was read, 3 times (hint: another process writes it: retry, or close the app)")
            }
        }
        #expect(counts.count > 1, "the writers did not write during the captures")
    }
}

extension StoreContents {
    func with(contentHash: String) -> StoreContents {
        var contents = self
        contents.contentHash = contentHash
        return contents
    }
}
