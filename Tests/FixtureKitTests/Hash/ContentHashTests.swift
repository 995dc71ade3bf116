import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// The content hash (`fixturekit hash`): the same whatever the page layout, different
/// when any value changes, computed on copies only, and exactly the documented encoding.
@Suite struct ContentHashTests {
    /// Every kind of object and value: a rowid table with an INTEGER PRIMARY KEY, one
    /// without (VACUUM renumbers its rowids), a WITHOUT ROWID table, an index, a view,
    /// a trigger; NULL, negative and large integers, reals, UTF-8 text in several
    /// scripts, empty text and blobs, a blob over several overflow pages; free pages.
    static let schema = """
        CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT, score REAL, body BLOB, extra);
        CREATE TABLE tags (name TEXT, weight INTEGER);
        CREATE TABLE settings (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
        CREATE INDEX notes_by_title ON notes(title);
        CREATE VIEW heavy AS SELECT name FROM tags WHERE weight > 10;
        CREATE TRIGGER stamp AFTER INSERT ON tags BEGIN UPDATE settings SET value = value + 1 WHERE key = 'count'; END;
        PRAGMA user_version = 7;
        """
    static let rows = """
        INSERT INTO settings VALUES ('count', 0), ('theme', 'dark'), ('ratio', 0.25), ('zero', -0.0);
        INSERT INTO notes VALUES (1, 'Groceries', 1.5, x'00ff', NULL), (2, '', -0.0, x'', 42), (3, 'Заметки 会议 ملاحظات 😀', 1e300, zeroblob(20000), 'x');
        WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < 400)
        INSERT INTO notes (title, score, extra) SELECT 'note ' || value, value / 7.0, -value * 1000000007 FROM n;
        INSERT INTO tags VALUES ('home', 3), ('work', 12), (NULL, NULL), ('work', 12);
        DELETE FROM notes WHERE id % 5 = 0;
        DELETE FROM tags WHERE name = 'home';
        INSERT INTO tags VALUES ('late', 99);
        """

    /// A store of the fixed content, built in rollback mode with `pageSize`.
    static func makeStore(_ path: String, pageSize: Int = 4096, encoding: String = "UTF-8", before: String = "", then: String = "") throws {
        let database = try Database(path: path, options: .init(create: true))
        try database.execute("PRAGMA page_size = \(pageSize); PRAGMA encoding = '\(encoding)'")
        if !before.isEmpty { try database.execute(before) }
        try database.execute(schema)
        try database.execute(rows)
        if !then.isEmpty { try database.execute(then) }
        try database.close()
    }

    static func hash(_ path: String) throws -> SHA256Digest { try ContentHash.of(path) }

    /// The documented encoding of a value, for streams built by hand.
    static func integer(_ value: Int64) -> [UInt8] { [0x01] + withUnsafeBytes(of: UInt64(bitPattern: value).bigEndian, Array.init) }
    static func real(_ value: Double) -> [UInt8] { [0x02] + withUnsafeBytes(of: value.bitPattern.bigEndian, Array.init) }
    static func text(_ value: String) -> [UInt8] { text(bytes: Array(value.utf8)) }
    static func text(bytes: [UInt8]) -> [UInt8] { [0x03] + withUnsafeBytes(of: UInt64(bytes.count).bigEndian, Array.init) + bytes }
    static func blob(_ value: [UInt8]) -> [UInt8] { [0x04] + withUnsafeBytes(of: UInt64(value.count).bigEndian, Array.init) + value }

    /// The documented stream of a store whose one table `t` `sql` created, up
    /// to its rows: the definition's version, `user_version`, `application_id`
    /// 0, the table's schema row and its marker.
    static func stream(ofTable sql: String, userVersion: Int64) -> [UInt8] {
        var stream = Array("fixturekit-content-1".utf8) + [0]
        stream += integer(userVersion) + integer(0)
        stream += Array("S".utf8) + text("table") + text("t") + text("t") + text(sql)
        return stream + Array("T".utf8) + text("t")
    }

    @Test(arguments: [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536])
    func theSameWhateverThePageSizeAndAfterVacuum(pageSize: Int) throws {
        let folder = try TemporaryFolder()
        try Self.makeStore(folder.url("reference.sqlite"))
        try Self.makeStore(folder.url("store.sqlite"), pageSize: pageSize)
        let reference = try Self.hash(folder.url("reference.sqlite"))
        #expect(try Self.hash(folder.url("store.sqlite")) == reference)
        // The files differ: only the content is the same.
        #expect(try folder.read("store.sqlite") != (try folder.read("reference.sqlite")) || pageSize == 4096)
        // VACUUM drops the free pages and renumbers the rowids of `tags`; a VACUUM to
        // another page size (1024 and 8192 both ways) rewrites every page.
        let database = try Database(path: folder.url("store.sqlite"))
        try database.execute("VACUUM")
        #expect(try Self.hash(folder.url("store.sqlite")) == reference)
        try database.execute("PRAGMA page_size = \(pageSize == 1024 ? 8192 : 1024); VACUUM")
        try database.close()
        #expect(try Self.hash(folder.url("store.sqlite")) == reference)
    }

    @Test func theSameInWALModeWithEveryCommitStillInTheWAL() throws {
        let folder = try TemporaryFolder()
        try Self.makeStore(folder.url("rollback.sqlite"))
        // The same statements, each commit left in the -wal by a connection held open.
        let database = try Database(path: folder.url("wal.sqlite"), options: .init(create: true))
        try database.execute("PRAGMA page_size = 8192; PRAGMA journal_mode = WAL")
        database.disableAutomaticCheckpoint()
        try database.setCheckpointOnClose(false)
        try database.execute(Self.schema)
        try database.execute(Self.rows)
        let before = try snapshotOfFiles(folder.path)
        #expect(before.keys.contains("wal.sqlite-wal"))
        #expect(try Self.hash(folder.url("wal.sqlite")) == (try Self.hash(folder.url("rollback.sqlite"))))
        // Hashed on a copy: not a byte of the set changed, its -wal is still there.
        #expect(try snapshotOfFiles(folder.path) == before)
        withExtendedLifetime(database) {}
    }

    @Test func theSameAfterABackupEitherWay() throws {
        let folder = try TemporaryFolder()
        try Self.makeStore(folder.url("store.sqlite"), pageSize: 1024)
        let reference = try Self.hash(folder.url("store.sqlite"))
        let shell = try run(["sqlite3", folder.url("store.sqlite"), ".backup '\(folder.url("shell.sqlite"))'"])
        #expect(shell.status == 0, "\(shell.standardError)")
        #expect(try Self.hash(folder.url("shell.sqlite")) == reference)
        let source = try Database(path: folder.url("store.sqlite"), options: .init(readOnly: true))
        let copy = try Database(path: folder.url("api.sqlite"), options: .init(create: true))
        try copy.execute("PRAGMA page_size = 8192")
        try source.backup(to: copy)
        try copy.close()
        #expect(try Self.hash(folder.url("api.sqlite")) == reference)
    }

    @Test func theSameForAUTF16Store() throws {
        let folder = try TemporaryFolder()
        try Self.makeStore(folder.url("utf8.sqlite"))
        try Self.makeStore(folder.url("utf16.sqlite"), encoding: "UTF-16le")
        #expect(try Self.hash(folder.url("utf16.sqlite")) == (try Self.hash(folder.url("utf8.sqlite"))))
    }

    /// One change each, the smallest of its kind.
    static let changes: [(String, String)] = [
        ("one integer", "UPDATE notes SET extra = 43 WHERE id = 2"),
        ("one real's last bit", "UPDATE notes SET score = 1.5000000000000002 WHERE id = 1"),
        ("-0.0 to 0.0 in a column without affinity", "UPDATE settings SET value = 0.0 WHERE key = 'zero'"),
        ("one character of text", "UPDATE notes SET title = 'Groceriez' WHERE id = 1"),
        ("one byte of a blob over overflow pages", "UPDATE notes SET body = zeroblob(19999) || x'01' WHERE id = 3"),
        ("NULL to empty text", "UPDATE tags SET name = '' WHERE name IS NULL"),
        ("empty text to an empty blob", "UPDATE notes SET title = x'' WHERE id = 2"),
        ("integer 42 to real 42.0", "UPDATE notes SET extra = 42.0 WHERE id = 2"),
        ("integer 42 to text '42'", "UPDATE notes SET extra = '42' WHERE id = 2"),
        ("one added row", "INSERT INTO notes (title) VALUES ('new')"),
        ("one removed row", "DELETE FROM notes WHERE id = 7"),
        ("the same rows in another rowid order", "DELETE FROM tags WHERE name IS NULL; INSERT INTO tags VALUES (NULL, NULL); UPDATE settings SET value = value - 1 WHERE key = 'count'"),
        ("a row of a WITHOUT ROWID table", "UPDATE settings SET value = 'light' WHERE key = 'theme'"),
        ("one changed index definition", "DROP INDEX notes_by_title; CREATE INDEX notes_by_title ON notes(title DESC)"),
        ("one more index", "CREATE INDEX tags_by_name ON tags(name)"),
        ("a view's definition", "DROP VIEW heavy; CREATE VIEW heavy AS SELECT name FROM tags WHERE weight > 11"),
        ("a trigger's definition", "DROP TRIGGER stamp; CREATE TRIGGER stamp AFTER INSERT ON tags BEGIN SELECT 1; END"),
        ("user_version", "PRAGMA user_version = 8"),
        ("application_id", "PRAGMA application_id = 1"),
        ("an empty table more", "CREATE TABLE empty (x)"),
    ]

    @Test(arguments: changes.indices)
    func differentAfterAnyChange(change: Int) throws {
        let (name, sql) = Self.changes[change]
        let folder = try TemporaryFolder()
        try Self.makeStore(folder.url("base.sqlite"))
        try Self.makeStore(folder.url("changed.sqlite"), then: sql)
        #expect(try Self.hash(folder.url("changed.sqlite")) != (try Self.hash(folder.url("base.sqlite"))), "\(name)")
    }

    @Test func statisticsAndRootPagesDoNotCount() throws {
        let folder = try TemporaryFolder()
        try Self.makeStore(folder.url("base.sqlite"))
        // ANALYZE adds sqlite_stat1 (and its schema row); recreating a table first moves every root page.
        try Self.makeStore(folder.url("analyzed.sqlite"), then: "ANALYZE")
        try Self.makeStore(folder.url("moved.sqlite"), before: "CREATE TABLE filler (x); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30) INSERT INTO filler SELECT randomblob(3000) FROM n", then: "DROP TABLE filler")
        func roots(_ name: String) throws -> [SQLiteValue] {
            try Database(path: folder.url(name), options: .init(readOnly: true)).rows("SELECT rootpage FROM sqlite_schema WHERE name = 'notes'").flatMap { $0 }
        }
        #expect(try roots("moved.sqlite") != (try roots("base.sqlite")))
        let base = try Self.hash(folder.url("base.sqlite"))
        #expect(try Self.hash(folder.url("analyzed.sqlite")) == base)
        #expect(try Self.hash(folder.url("moved.sqlite")) == base)
    }

    /// The stream README documents, built here by hand for a small store: if the
    /// definition changes, every recorded hash changes, and this test says so.
    @Test func theHashedStreamIsTheDocumentedOne() throws {
        let folder = try TemporaryFolder()
        let sql = "CREATE TABLE t (a, b)"
        let database = try Database(path: folder.url("t.sqlite"), options: .init(create: true))
        try database.execute("\(sql); PRAGMA user_version = 7; INSERT INTO t VALUES (1, 'x'), (NULL, x'00ff'), (-2.5, '')")
        try database.close()
        var stream = Self.stream(ofTable: sql, userVersion: 7)
        stream += Array("R".utf8) + Self.integer(1) + Self.text("x")
        stream += Array("R".utf8) + [0x00] + Self.blob([0x00, 0xFF])
        stream += Array("R".utf8) + Self.real(-2.5) + Self.text("")
        #expect(try Self.hash(folder.url("t.sqlite")) == (try FixtureKit.SHA256.hash(stream)))
    }

    /// A table's rows are hashed by a function its scan calls, or, when the
    /// table has more columns than a function may take, by its `SELECT *`: the
    /// same digest for every mix of the two (this connection's limit lowered
    /// so that the store's tables of 1, 2 and 5 columns are read either way).
    @Test(arguments: [1, 2, 4, 5])
    func theSameWhenTablesAreReadByTheirSelect(functionArgumentLimit: Int) throws {
        let folder = try TemporaryFolder()
        try Self.makeStore(folder.url("store.sqlite"), then: "CREATE TABLE one (x); INSERT INTO one VALUES (1), ('one'), (NULL)")
        let reference = try Self.hash(folder.url("store.sqlite"))
        let database = try Database(path: folder.url("store.sqlite"), options: .init(readOnly: true))
        defer { try? database.close() }
        database.functionArgumentLimit = functionArgumentLimit
        #expect(database.functionArgumentLimit == functionArgumentLimit)
        #expect(try database.contentHash() == reference)
        #expect(try database.contentHash(hashing: .onASecondThread(bufferSize: 100)) == reference)
    }

    /// A table of one column more than a function may take on this build of
    /// SQLite, hashed as documented (by its `SELECT *`).
    @Test func aTableWiderThanAFunctionTakesIsHashedAsDocumented() throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.url("wide.sqlite"), options: .init(create: true))
        let width = database.functionArgumentLimit + 1
        let sql = "CREATE TABLE t (" + (0..<width).map { "c\($0)" }.joined(separator: ", ") + ")"
        try database.execute(sql)
        var stream = Self.stream(ofTable: sql, userVersion: 0)
        do { // the statement finalized before the connection closes
            let insert = try database.prepare("INSERT INTO t VALUES (" + (1...width).map { "?\($0)" }.joined(separator: ", ") + ")")
            for row in 0..<2 {
                var values: [SQLiteValue] = []
                stream += Array("R".utf8)
                for column in 0..<width {
                    switch (row + column) % 3 {
                    case 0: values.append(.integer(Int64(column))); stream += Self.integer(Int64(column))
                    case 1: values.append(.text("v\(column)")); stream += Self.text("v\(column)")
                    default: values.append(.null); stream += [0x00]
                    }
                }
                try insert.bind(values)
                _ = try insert.step()
                insert.reset()
            }
        }
        try database.close()
        #expect(try Self.hash(folder.url("wide.sqlite")) == (try FixtureKit.SHA256.hash(stream)))
    }

    /// Each column read as `SELECT *` reads it, whichever way the rows are
    /// hashed: a REAL column's whole numbers (stored as integers, read back as
    /// reals), a column added by `ALTER TABLE` with a default (the rows before
    /// it do not hold it), generated columns, a column named `rowid` (the rows
    /// then in `_rowid_` order) and names that need quoting.
    @Test(arguments: [nil, 1] as [Int?])
    func eachColumnIsReadAsItsSelectReadsIt(functionArgumentLimit: Int?) throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.url("t.sqlite"), options: .init(create: true))
        defer { try? database.close() }
        try database.execute("""
            CREATE TABLE t ("rowid" TEXT, "a ""quoted"" name" REAL, "ключ" INTEGER, g AS ("ключ" * 2) VIRTUAL, h TEXT AS (upper("rowid")) STORED);
            INSERT INTO t ("rowid", "a ""quoted"" name", "ключ") VALUES ('x', 3, 7), ('y', 2.5, NULL);
            ALTER TABLE t ADD COLUMN late TEXT DEFAULT 'd';
            INSERT INTO t ("rowid", "a ""quoted"" name", "ключ", late) VALUES ('z', -1, 1, 'e');
            """)
        #expect(try database.scalar("SELECT typeof(CAST(\"a \"\"quoted\"\" name\" AS BLOB)) FROM t WHERE _rowid_ = 1") == .text("blob"))
        let sql = try #require(try database.scalar("SELECT sql FROM sqlite_schema WHERE name = 't'")?.text)
        var stream = Self.stream(ofTable: sql, userVersion: 0)
        stream += Array("R".utf8) + Self.text("x") + Self.real(3) + Self.integer(7) + Self.integer(14) + Self.text("X") + Self.text("d")
        stream += Array("R".utf8) + Self.text("y") + Self.real(2.5) + [0x00] + [0x00] + Self.text("Y") + Self.text("d")
        stream += Array("R".utf8) + Self.text("z") + Self.real(-1) + Self.integer(1) + Self.integer(2) + Self.text("Z") + Self.text("e")
        if let functionArgumentLimit { database.functionArgumentLimit = functionArgumentLimit }
        #expect(try database.contentHash() == (try FixtureKit.SHA256.hash(stream)))
    }

    /// The function that hashes each row is there only during a hash: gone
    /// after it; and when SQLite cannot remove it (a statement of the caller's
    /// still running on the connection), it refuses every call until a later
    /// hash removes it, and the hashes meanwhile, which SQLite lets add no
    /// function of that name, read every table by its `SELECT *`.
    @Test func theRowFunctionIsNotLeftToCall() throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.url("t.sqlite"), options: .init(create: true))
        defer { try? database.close() }
        try database.execute("CREATE TABLE t (a); INSERT INTO t VALUES (1), (2), (3)")
        let digest = try database.contentHash()
        func call() -> String {
            do { return "\(try database.scalar("SELECT fixturekit_content_row(1)") ?? .null)" } catch { return error.message }
        }
        #expect(call() == "no such function: fixturekit_content_row")
        let running = try database.prepare("SELECT a FROM t")
        #expect(try running.step())
        #expect(try database.contentHash() == digest)
        #expect(call() == "fixturekit_content_row: only a content hash's scan calls it")
        #expect(try database.contentHash() == digest)
        #expect(try database.contentHash(hashing: .onASecondThread(bufferSize: 7)) == digest)
        #expect(call() == "fixturekit_content_row: only a content hash's scan calls it")
        running.reset()
        #expect(try database.contentHash() == digest)
        #expect(call() == "no such function: fixturekit_content_row")
    }

    /// The SHA-256 computed on a second thread hashes the same stream, in the
    /// same order, as on the scanning thread: values of every size up to
    /// three buffers, so that a buffer fills at every place within a value, a
    /// tag or a length, and values larger than a buffer (hashed directly, after
    /// the buffers before them) come between small ones; the expected digest is
    /// the documented stream's, built by hand.
    @Test(arguments: [1, 13, 64, 100])
    func aSecondThreadHashesTheSameStreamInTheSameOrder(bufferSize: Int) throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.url("t.sqlite"), options: .init(create: true))
        defer { try? database.close() }
        // Blobs of 1 byte up (an empty one is bound as NULL); the text beside each is 0 to 6 bytes.
        let sizes = Array(1...(3 * bufferSize + 2)) + [5 * bufferSize, 1, 4 * bufferSize + 7, 2]
        try database.execute("CREATE TABLE t (a, b)")
        let insert = try database.prepare("INSERT INTO t VALUES (?1, ?2)")
        var stream = Self.stream(ofTable: "CREATE TABLE t (a, b)", userVersion: 0)
        for (index, size) in sizes.enumerated() {
            let value = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
            let word = Array(String(repeating: "x", count: size % 7).utf8)
            try insert.bind([.blob(value), .text(String(decoding: word, as: UTF8.self))])
            _ = try insert.step()
            stream += Array("R".utf8) + Self.blob(value) + Self.text(bytes: word)
        }
        let expected = try FixtureKit.SHA256.hash(stream)
        #expect(try database.contentHash(hashing: .onTheScanningThread) == expected)
        #expect(try database.contentHash(hashing: .onASecondThread(bufferSize: bufferSize)) == expected)
        #expect(try database.contentHash(hashing: .onASecondThread()) == expected)
    }

    /// A store whose pages break part way through the scan, while the second
    /// thread is hashing a buffer: the same error as on the scanning thread,
    /// for a break at each of several places, and no crash (the buffers are
    /// freed only once the stage is done with them).
    @Test func aScanThatFailsWhileTheSecondThreadHashesFailsAlike() throws {
        let folder = try TemporaryFolder()
        let pristine = folder.url("pristine.sqlite")
        let database = try Database(path: pristine, options: .init(create: true))
        try database.execute("""
            PRAGMA page_size = 1024; CREATE TABLE t (v);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
            INSERT INTO t SELECT printf('%.100c', char(65 + i % 26)) FROM n
            """)
        try database.close()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: pristine))
        var failed = 0
        for page in stride(from: 40, to: bytes.count / 1024, by: 37) {
            var damaged = bytes
            // A leaf page of the table: its header's type byte made invalid.
            damaged[page * 1024] = 0x7F
            let path = folder.url("damaged-\(page).sqlite")
            try damaged.write(to: URL(fileURLWithPath: path))
            let store = try Database(path: path, options: .init(readOnly: true))
            defer { try? store.close() }
            func outcome(_ hashing: ContentHashing) -> String {
                do { return try store.contentHash(hashing: hashing).hex } catch { return "\(error.code): \(error.description)" }
            }
            let alone = outcome(.onTheScanningThread)
            #expect(outcome(.onASecondThread(bufferSize: 512)) == alone, "page \(page)")
            if alone.hasPrefix("11: ") { failed += 1 }
        }
        #expect(failed > 5)
    }

    @Test func hashPrintsLikeSha256sumForAStoreAFixtureAndAnArchive() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.url("live"), withIntermediateDirectories: true)
        let store = try HeldWALStore(in: folder.url("live"), notes: 30)
        #expect(fixturekit("capture", "--no-anonymize", store.path, "--version", "1.0.0", "--corpus", folder.url("corpus"), "--mode", "raw").status == 0)
        #expect(fixturekit("pack", "--quiet", folder.url("corpus/1.0.0")).status == 0)
        let fixture = try snapshotOfFiles(folder.url("corpus/1.0.0"))
        #expect(fixture.keys.contains("App.sqlite-wal"))
        let expected = try Self.hash(store.path).hex
        for path in [store.path, folder.url("corpus/1.0.0"), folder.url("corpus/1.0.0/App.sqlite"), folder.url("corpus/App-1.0.0.tar.zst")] {
            let result = fixturekit("hash", path)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput == "\(expected)  \(path)\n")
        }
        // The manifest records it; the fixture was never opened in place.
        #expect(try Manifest.decode(try folder.read("corpus/1.0.0/manifest.json")).contentHash == expected)
        #expect(try snapshotOfFiles(folder.url("corpus/1.0.0")) == fixture)
        // A name with a line feed is escaped as sha256sum escapes it.
        try FileManager.default.copyItem(atPath: folder.url("corpus/1.0.0"), toPath: folder.url("odd\nname"))
        #expect(fixturekit("hash", folder.url("odd\nname")).standardOutput == "\\\(expected)  \(folder.path)/odd\\nname\n")
    }

    @Test func hashRefusesWhatItCannotHash() throws {
        let folder = try TemporaryFolder()
        try folder.write("text.sqlite", "not a database, but long enough to have a header of 100 bytes......................................")
        let missing = fixturekit("hash", folder.url("missing.sqlite"))
        #expect(missing.status == 2)
        #expect(missing.standardError == "fixturekit: open store: \(folder.url("missing.sqlite")): no such file\n")
        let text = fixturekit("hash", folder.url("text.sqlite"))
        #expect(text.status == 2)
        #expect(text.standardError.hasPrefix("fixturekit: hash: \(folder.url("text.sqlite")): "))
        #expect(text.standardError.split(separator: "\n").count == 1)
        // A live store whose b-tree is damaged (read in place, not copied): one line
        // naming the store and the scan that met the damage, the store left as it was.
        let damaged = try Database(path: folder.url("damaged.sqlite"), options: .init(create: true))
        try damaged.execute("PRAGMA page_size = 4096; CREATE TABLE t (x)")
        try damaged.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) INSERT INTO t SELECT randomblob(100) FROM n")
        try damaged.close()
        var pages = try folder.read("damaged.sqlite")
        pages.replaceSubrange(4096..<4160, with: [UInt8](repeating: 0xFF, count: 64))
        try folder.write("damaged.sqlite", pages)
        let malformed = fixturekit("hash", folder.url("damaged.sqlite"))
        #expect(malformed.status == 2)
        #expect(malformed.standardError == "fixturekit: hash: \(folder.url("damaged.sqlite")): SQLite error 11: database disk image is malformed - while executing `SELECT * FROM \"t\" NOT INDEXED ORDER BY rowid`\n")
        #expect(try folder.read("damaged.sqlite") == pages)
        #expect(!FileManager.default.fileExists(atPath: folder.url("damaged.sqlite-journal")))
        // An archive whose store was changed fails its SHA256SUMS: a check failed.
        let live = try TemporaryFolder()
        try Self.makeStore(live.url("App.sqlite"))
        #expect(fixturekit("capture", "--no-anonymize", live.url("App.sqlite"), "--version", "1.0.0", "--corpus", folder.url("corpus")).status == 0)
        var bytes = try folder.read("corpus/1.0.0/App.sqlite")
        bytes[bytes.count - 1] ^= 1
        try folder.write("corpus/1.0.0/App.sqlite", bytes)
        #expect(try run(["tar", "-C", folder.url("corpus/1.0.0"), "-cf", folder.url("bad.tar"), "SHA256SUMS", "manifest.json", "App.sqlite"]).status == 0)
        let archive = fixturekit("hash", folder.url("bad.tar"))
        #expect(archive.status == 1)
        #expect(archive.standardError == "fixturekit: hash: \(folder.url("bad.tar")): the archive fails its SHA256SUMS: App.sqlite: changed (hint: `fixturekit verify \(folder.url("bad.tar"))` lists every problem)\n")
        #expect(fixturekit("hash").status == 64)
    }

    /// `hash` verifies a fixture first, as `sql` does: every way a fixture can
    /// fail its check, named by its folder or by its store's file, gives the
    /// same refusal from both (exit 1), and nothing is hashed; a corpus gives a
    /// line per fixture.
    @Test func hashVerifiesAFixtureFirstAsSqlDoes() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.url("live"), withIntermediateDirectories: true)
        let store = try HeldWALStore(in: folder.url("live"), notes: 30)
        #expect(fixturekit("capture", "--no-anonymize", store.path, "--version", "1.0.0", "--corpus", folder.url("corpus"), "--mode", "raw").status == 0)
        #expect(fixturekit("capture", "--no-anonymize", store.path, "--version", "2.0.0", "--corpus", folder.url("corpus")).status == 0)
        let good = try snapshotOfFiles(folder.url("corpus/1.0.0"))
        let expected = try Self.hash(store.path).hex
        let corpus = fixturekit("hash", folder.url("corpus"))
        #expect(corpus.status == 0, "\(corpus.standardError)")
        #expect(corpus.standardOutput == "\(expected)  \(folder.url("corpus/1.0.0"))\n\(expected)  \(folder.url("corpus/2.0.0"))\n")

        let fixture = folder.url("corpus/1.0.0")
        let damages: [(String, (String) throws -> Void, String)] = [
            ("a changed byte", { path in
                var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path + "/App.sqlite")))
                bytes[bytes.count - 1] ^= 1
                try Data(bytes).write(to: URL(fileURLWithPath: path + "/App.sqlite"))
            }, "App.sqlite: changed"),
            ("a missing -wal", { path in try FileManager.default.removeItem(atPath: path + "/App.sqlite-wal") }, "App.sqlite-wal: missing"),
            ("an unlisted file", { path in try Data("x".utf8).write(to: URL(fileURLWithPath: path + "/extra")) }, "extra: unlisted"),
            ("a SHA256SUMS that lists itself", { path in
                let sums = try String(contentsOfFile: path + "/SHA256SUMS", encoding: .utf8)
                try (sums + String(repeating: "0", count: 64) + "  SHA256SUMS\n").write(toFile: path + "/SHA256SUMS", atomically: true, encoding: .utf8)
            }, "SHA256SUMS: changed"),
        ]
        for (name, damage, problem) in damages {
            try? FileManager.default.removeItem(atPath: fixture)
            try FileManager.default.createDirectory(atPath: fixture, withIntermediateDirectories: true)
            for (file, bytes) in good { try Data(bytes).write(to: URL(fileURLWithPath: fixture + "/" + file)) }
            try damage(fixture)
            let files = try snapshotOfFiles(fixture)
            for path in [fixture, fixture + "/App.sqlite"] {
                let hash = fixturekit("hash", path)
                let sql = fixturekit("sql", path, "SELECT 1")
                #expect(hash.status == 1, "\(name): \(hash.standardError)")
                #expect(hash.standardOutput == "", "\(name)")
                #expect(hash.standardError == "fixturekit: verify: \(fixture)/\(problem)\n", "\(name): \(hash.standardError)")
                #expect(sql.status == hash.status && sql.standardError == hash.standardError, "\(name): \(sql.standardError)")
            }
            let inCorpus = fixturekit("hash", folder.url("corpus"))
            #expect(inCorpus.status == 1 && inCorpus.standardOutput == "", "\(name)")
            // Looking changed nothing.
            #expect(try snapshotOfFiles(fixture) == files, "\(name)")
        }
        withExtendedLifetime(store) {}
    }
}
