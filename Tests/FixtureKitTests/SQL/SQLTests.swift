import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport
@testable import FixtureKitTool

/// `fixturekit sql`: look at a fixture, an archive or a store without touching it.
@Suite struct SQLTests {
    /// A raw fixture: commits that live only in its -wal, which opening it in place would fold away.
    static func rawFixture(in folder: TemporaryFolder) throws -> (store: HeldWALStore, fixture: String) {
        let store = try HeldWALStore(in: folder.path, notes: 20)
        let corpus = folder.url("corpus")
        let captured = fixturekit("capture", store.path, "--version", "1.0.0", "--corpus", corpus, "--mode", "raw", "--no-anonymize", "-q")
        #expect(captured.status == 0, "\(captured.standardError)")
        return (store, corpus + "/1.0.0")
    }

    @Test func aFixtureIsQueriedOnACopyAndLeftUntouched() throws {
        let folder = try TemporaryFolder()
        let (_, fixture) = try Self.rawFixture(in: folder)
        let before = try snapshotOfFiles(fixture)
        #expect(before.keys.contains("App.sqlite-wal"))
        let result = fixturekit("sql", fixture, "SELECT count(*), max(uuid) FROM notes; SELECT title FROM notes WHERE id <= 2 ORDER BY id")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "20|K9\nnote 0\nnote 1\n")
        #expect(try snapshotOfFiles(fixture) == before)
        #expect(fixturekit("verify", fixture).status == 0)
        // A statement that writes changes the copy only.
        #expect(fixturekit("sql", fixture, "DELETE FROM notes").status == 0)
        #expect(fixturekit("sql", fixture, "SELECT count(*) FROM notes").standardOutput == "20\n")
        #expect(try snapshotOfFiles(fixture) == before)
    }

    @Test func anArchiveAndAStoreAreReadable() throws {
        let folder = try TemporaryFolder()
        let (store, fixture) = try Self.rawFixture(in: folder)
        let archive = folder.url("App-1.0.0.tar.zst")
        #expect(fixturekit("pack", fixture, "-o", archive, "-q").status == 0)
        let archiveBytes = try folder.read("App-1.0.0.tar.zst")
        #expect(fixturekit("sql", archive, "SELECT count(*) FROM notes").standardOutput == "20\n")
        #expect(try folder.read("App-1.0.0.tar.zst") == archiveBytes)
        // A live store: a snapshot of it, its -wal left as it is.
        let storeFiles = try snapshotOfFiles(folder.path).filter { $0.key.hasPrefix("App.sqlite") }
        try store.insert(1)
        let live = fixturekit("sql", store.path, "SELECT count(*) FROM notes")
        #expect(live.status == 0)
        #expect(live.standardOutput == "21\n")
        #expect(try snapshotOfFiles(folder.path).filter { $0.key.hasPrefix("App.sqlite") }.keys == storeFiles.keys)
    }

    @Test func aFixtureOrArchiveThatDoesNotVerifyIsRefused() throws {
        let folder = try TemporaryFolder()
        let (_, fixture) = try Self.rawFixture(in: folder)
        let archive = folder.url("App-1.0.0.tar.zst")
        #expect(fixturekit("pack", fixture, "-o", archive, "-q").status == 0)
        try folder.write("corpus/1.0.0/extra", "x")
        let tampered = fixturekit("sql", fixture, "SELECT 1")
        #expect(tampered.status == 1)
        #expect(tampered.standardError == "fixturekit: verify: \(fixture)/extra: unlisted\n")
        #expect(tampered.standardOutput == "")
        #expect(fixturekit("sql", folder.url("nothing.tar.zst"), "SELECT 1").status == 2)
        let bad = fixturekit("sql", archive, "SELEC 1")
        #expect(bad.status == 2)
        #expect(bad.standardError.hasPrefix("fixturekit: sql: \(archive): SQLite error 1: near \"SELEC\": syntax error"))
    }

    @Test func rowsArePrintedAsSqlite3PrintsThem() throws {
        let folder = try TemporaryFolder()
        let path = folder.url("values.sqlite")
        let database = try Database(path: path, options: .init(create: true))
        try database.execute("""
            CREATE TABLE v (a, b);
            INSERT INTO v VALUES (1, 0.1), (-9223372036854775808, 1e20), (3.0, 'x|y'), (NULL, 'Ünïcödé 日本'), (2.5e-7, x'41'), (1e308, '');
            """)
        try database.close()
        let query = "SELECT a, b, typeof(a) FROM v ORDER BY rowid"
        let ours = fixturekit("sql", path, query)
        let theirs = try run(["sqlite3", path, query])
        #expect(ours.status == 0)
        #expect(ours.standardOutput == theirs.standardOutput)
        let json = fixturekit("sql", path, #"SELECT a, b AS "b""q", typeof(a) AS t FROM v ORDER BY rowid LIMIT 3; SELECT x'00ff' AS blob, NULL AS n"#, "--json")
        #expect(json.standardOutput == #"""
            [{"a":1,"b\"q":0.1,"t":"integer"},
            {"a":-9223372036854775808,"b\"q":1.0e+20,"t":"integer"},
            {"a":3.0,"b\"q":"x|y","t":"real"},
            {"blob":"00ff","n":null}]

            """#)
        // Without a query and without a terminal, the SQL comes from stdin.
        let console = Console(capturing: true, standardInput: "SELECT count(*) FROM v;\n")
        #expect(Tool.main(["sql", path], console: console) == .success)
        #expect(console.standardOutput == "6\n")
    }

    @Test func anInteractiveSqlite3RunsOnACopy() throws {
        let folder = try TemporaryFolder()
        let (_, fixture) = try Self.rawFixture(in: folder)
        let before = try snapshotOfFiles(fixture)
        let session = try runOnTerminal(["sql", fixture], input: "SELECT 'rows:' || count(*) FROM notes;\n.quit\n")
        #expect(session.status == 0, "\(session.output)")
        #expect(session.output.contains("sql: \(fixture): sqlite3 on a temporary copy; changes are thrown away at the end\n"))
        #expect(session.output.contains("rows:20"), "\(session.output)")
        #expect(try snapshotOfFiles(fixture) == before)
    }

    @Test func aStoreWithAHotJournalIsRolledBackInTheCopyOnly() throws {
        let folder = try TemporaryFolder()
        let store = try makeHotJournalStore(in: folder)
        let before = try snapshotOfFiles(folder.url("hot"))
        #expect(before.keys.sorted() == ["App.sqlite", "App.sqlite-journal"])
        let result = fixturekit("sql", store, "SELECT count(*), sum(length(x)) FROM t")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "300|300000\n")
        #expect(try snapshotOfFiles(folder.url("hot")) == before)
    }
}

/// A rollback-journal store with a hot journal: a copy of its files taken while a
/// transaction had spilled changed pages into it, as after a crash.
func makeHotJournalStore(in folder: TemporaryFolder) throws -> String {
    let path = folder.url("App.sqlite")
    let database = try Database(path: path, options: .init(create: true))
    try database.execute("""
        CREATE TABLE t (x BLOB);
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300) INSERT INTO t SELECT randomblob(1000) FROM n;
        PRAGMA cache_size = 1;
        BEGIN;
        UPDATE t SET x = randomblob(1000);
        """)
    try FileManager.default.createDirectory(atPath: folder.url("hot"), withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: path, toPath: folder.url("hot/App.sqlite"))
    try FileManager.default.copyItem(atPath: path + "-journal", toPath: folder.url("hot/App.sqlite-journal"))
    try database.execute("ROLLBACK")
    try database.close()
    return folder.url("hot/App.sqlite")
}
