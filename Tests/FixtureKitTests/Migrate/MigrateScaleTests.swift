import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitArchiveIO
@testable import FixtureKitCrypto
@testable import FixtureKitModels
@testable import FixtureKitSQLite
@testable import FixtureKitSystem
@testable import FixtureKitTestSupport

/// `migrate` at scale: regression guards, generous on purpose (the benchmarks
/// in bench/ carry the real figures).
@Suite(.serialized) struct MigrateScaleTests {
    static let schema1 = "CREATE TABLE notes (uuid TEXT NOT NULL, title TEXT, body TEXT, created_at TEXT);"
    static let schema2 = """
        CREATE TABLE notes (uuid TEXT NOT NULL, title TEXT, body TEXT, created_at TEXT, pinned INTEGER NOT NULL DEFAULT 0);
        CREATE INDEX notes_by_date ON notes (created_at);
        PRAGMA user_version = 2;
        """

    /// A corpus of two versions: 1.0.0 with `rows` notes, 2.0.0 empty, and the
    /// stage between them; `keys` declares notes' `uuid`, which has no index.
    /// - Parameter sharedKey: rows 2 and 3 get the uuid of row 1.
    static func corpus(rows: Int, stage: String, sharedKey: Bool = false) throws -> (TemporaryFolder, config: String) {
        let folder = try TemporaryFolder()
        let corpus = folder.url("MigrationFixtures")
        for (version, schema, fill) in [
            ("1.0.0", schema1, """
                WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < \(rows))
                INSERT INTO notes SELECT printf('%08X-%04X', (n * 2654435761) % 4294967296, n % 65536), 'Note ' || n,
                    'Body of note ' || n, strftime('%Y-%m-%dT%H:%M:%SZ', 1700000000 + n * 61, 'unixepoch') FROM i;
                """ + (sharedKey ? "UPDATE notes SET uuid = (SELECT uuid FROM notes WHERE rowid = 1) WHERE rowid IN (2, 3);" : "")),
            ("2.0.0", schema2, ""),
        ] {
            let live = folder.url("live-\(version)")
            try FileManager.default.createDirectory(atPath: live, withIntermediateDirectories: true)
            let database = try Database(path: live + "/App.sqlite", options: .init(create: true))
            try database.execute(schema + fill)
            try database.close()
            _ = try Capture.capture(store: live + "/App.sqlite", version: version, corpus: corpus, mode: .snapshot, anonymize: .synthetic)
        }
        try folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", stage)
        let config = """
            {"store": "App.sqlite", "current": "2.0.0", "supported": ["1.0.0"],
             "stages": [{"from": "1.0.0", "to": "2.0.0", "sql": "migrations/1.0.0-2.0.0.sql"}],
             "keys": {"notes": ["uuid"]}}
            """
        return (folder, try folder.write("MigrationFixtures/fixturekit.json", config))
    }

    /// The issue's case: before, with 20,000 rows the diff took 84 s; with
    /// 200,000 it ran for hours. Twice: a stage that rewrites the table with
    /// its rowids (SQLite's twelve steps), and one that renumbers every row;
    /// on 40,000 rows, 200,000 under `make torture`.
    @Test func aDeclaredKeyWithoutAnIndexDiffsInSeconds() throws {
        let rows = tortureSize(40_000, torture: 200_000)
        let rebuild = { (order: String) in
            """
            CREATE TABLE notes_new (uuid TEXT NOT NULL, title TEXT, body TEXT, created_at TEXT, pinned INTEGER NOT NULL DEFAULT 0);
            INSERT INTO notes_new (\(order.isEmpty ? "rowid, " : "")uuid, title, body, created_at) SELECT \(order.isEmpty ? "rowid, " : "")uuid, title, body, created_at FROM notes \(order);
            DROP TABLE notes;
            ALTER TABLE notes_new RENAME TO notes;
            CREATE INDEX notes_by_date ON notes (created_at);
            PRAGMA user_version = 2;
            """
        }
        for (name, stage) in [("with its rowids", rebuild("")), ("renumbered in another order", rebuild("ORDER BY uuid DESC"))] {
            let (folder, config) = try Self.corpus(rows: rows, stage: stage)
            defer { withExtendedLifetime(folder) {} }
            let report = try MigrationRunner.runMatrix(config: config, options: .init(jobs: 1))
            let path = try #require(report.paths.first)
            #expect(path.passed, "\(name): \(String(describing: path.firstFailure))")
            let notes = try #require(path.preservation.first { $0.table == "notes" && $0.column == nil })
            #expect((notes.compared, notes.lost) == (rows, 0), "\(name)")
            #expect(path.preservationSeconds < 5, "\(name): the data diff took \(path.preservationSeconds) s")
        }
    }

    /// Foreign keys are counted as `PRAGMA foreign_key_check` counts them (the
    /// parent's affinity and collation applied to the child's value), through
    /// the parent's index; a parent column without one (a key SQLite calls a
    /// mismatch) is not scanned once per child row either.
    @Test func foreignKeysAreCountedWithoutAScanPerRow() throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.url("fk.sqlite"), options: .init(create: true))
        try database.execute("""
            CREATE TABLE folders (id INTEGER PRIMARY KEY, code TEXT UNIQUE, name TEXT COLLATE NOCASE);
            CREATE TABLE notes (id INTEGER PRIMARY KEY, folder_code INTEGER REFERENCES folders(code), folder_name TEXT REFERENCES folders(name), folder_id TEXT REFERENCES folders(id));
            WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < 50000)
            INSERT INTO folders SELECT n, CAST(n AS TEXT), 'Folder ' || n FROM i;
            WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < 50000)
            INSERT INTO notes SELECT n, n, 'FOLDER ' || n, CAST(n AS TEXT) FROM i;
            UPDATE notes SET folder_code = 999999 WHERE id <= 3;
            UPDATE notes SET folder_name = 'nowhere' WHERE id <= 5;
            UPDATE notes SET folder_id = 'x' WHERE id <= 7;
            """)
        let schema = try SchemaSnapshot(database: database)
        let clock = ContinuousClock()
        let start = clock.now
        let counted = try StoreContents.countForeignKeyViolations(database, schema: schema)
        let elapsed = clock.now - start
        // folders.name has no unique index: the pragma refuses that key, the
        // count still gathers folder names once, compared without case.
        #expect(counted == 3 + 5 + 7)
        #expect(elapsed < .seconds(5), "\(elapsed)")
        // Where the pragma runs (the keys to an indexed column), it agrees.
        try database.execute("""
            CREATE TABLE copies (id INTEGER PRIMARY KEY, folder_code INTEGER REFERENCES folders(code), folder_id TEXT REFERENCES folders(id));
            INSERT INTO copies SELECT id, folder_code, folder_id FROM notes;
            """)
        #expect(try database.rows("PRAGMA foreign_key_check(copies)").count == 3 + 7)
        #expect(try StoreContents.countForeignKeyViolations(database, schema: try SchemaSnapshot(database: database)) == 2 * (3 + 7) + 5)
    }

    /// Per table and per key (the lint's baselines), the counts are the pragma's:
    /// single-column keys by anti-join, composite keys, keys to a primary key by
    /// omission and keys to a missing table by the pragma; keys no row violates
    /// are left out.
    @Test func eachKeysViolationsAreCountedAsThePragmaCountsThem() throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.url("fk.sqlite"), options: .init(create: true))
        try database.execute("""
            CREATE TABLE folders (id INTEGER PRIMARY KEY, code TEXT UNIQUE, a INTEGER, b INTEGER, UNIQUE (a, b));
            CREATE TABLE notes (id INTEGER PRIMARY KEY, folder_id INTEGER REFERENCES folders(id), code TEXT REFERENCES folders(code));
            CREATE TABLE pairs (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, folder_id INTEGER REFERENCES folders, FOREIGN KEY (a, b) REFERENCES folders(a, b));
            CREATE TABLE orphans (id INTEGER PRIMARY KEY, gone_id INTEGER REFERENCES gone(id));
            CREATE TABLE tidy (id INTEGER PRIMARY KEY, folder_id INTEGER REFERENCES folders(id));
            INSERT INTO folders VALUES (1, 'one', 1, 1), (2, 'two', 2, 2);
            INSERT INTO notes VALUES (1, 1, 'one'), (2, 3, 'two'), (3, 4, 'three'), (4, NULL, NULL), (5, 2, 'four');
            INSERT INTO pairs VALUES (1, 1, 1, 1), (2, 1, 2, 9), (3, 3, 3, 2), (4, NULL, 1, NULL);
            INSERT INTO orphans VALUES (1, 1), (2, NULL), (3, 2);
            INSERT INTO tidy VALUES (1, 1), (2, NULL);
            """)
        let schema = try SchemaSnapshot(database: database)
        func counts(_ name: String) throws -> [String: Int] {
            try StoreContents.foreignKeyViolations(database, of: try #require(schema.tables.first { $0.name == name }), schema: schema)
        }
        #expect(try counts("notes") == ["(folder_id) REFERENCES folders": 2, "(code) REFERENCES folders": 2])
        #expect(try counts("pairs") == ["(a, b) REFERENCES folders": 2, "(folder_id) REFERENCES folders": 1])
        #expect(try counts("orphans") == ["(gone_id) REFERENCES gone": 2])
        #expect(try counts("tidy") == [:])
        for table in ["notes", "pairs", "orphans", "tidy"] {
            #expect(try counts(table).values.reduce(0, +) == database.rows("PRAGMA foreign_key_check(\(table))").count, "\(table)")
        }
        #expect(try StoreContents.countForeignKeyViolations(database, schema: schema) == 4 + 3 + 2)
    }

    /// A child whose key an index reads in order, its parent found by rowid:
    /// each distinct value is looked up once, and the counts are still the
    /// pragma's for values that GROUP BY takes as one (1 and 1.0, texts equal
    /// under the child's collation) and for every storage class.
    @Test func childValuesReadFromAnIndexAreCountedAsThePragmaCountsThem() throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.url("fk.sqlite"), options: .init(create: true))
        let values = "(1), (1.0), ('1'), (' 1'), ('1 '), ('01'), (1.5), (2), (2.0), ('2e0'), ('x'), ('X'), ('x  '), (x'01'), (NULL), (7), (7.0), ('7'), (3), (3)"
        try database.execute("CREATE TABLE parents (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO parents VALUES (1, 'a'), (2, 'b'), (3, 'c');")
        let children = [
            ("plain", "v", ""), ("numbers", "v INTEGER", ""), ("texts", "v TEXT", ""), ("nocase", "v TEXT COLLATE NOCASE", ""), ("rtrim", "v TEXT COLLATE RTRIM", ""),
            ("crossed", "v TEXT COLLATE NOCASE", " COLLATE BINARY"),
        ]
        for (name, column, indexCollation) in children {
            try database.execute("""
                CREATE TABLE \(name) (id INTEGER PRIMARY KEY, \(column) REFERENCES parents(id));
                CREATE INDEX \(name)_v ON \(name) (v\(indexCollation), id);
                INSERT INTO \(name) (v) VALUES \(values);
                """)
        }
        // A parent found by a text key: 1 and 1.0, one group, are '1' and '1.0' to it.
        try database.execute("""
            CREATE TABLE codes (code TEXT PRIMARY KEY); INSERT INTO codes VALUES ('1'), ('2');
            CREATE TABLE loose (id INTEGER PRIMARY KEY, v REFERENCES codes(code)); CREATE INDEX loose_v ON loose (v);
            INSERT INTO loose (v) VALUES (1), (1), (1.0), (2.0), (2), (2), ('2');
            """)
        let schema = try SchemaSnapshot(database: database)
        for name in children.map(\.0) + ["loose"] {
            let table = try #require(schema.tables.first { $0.name == name })
            let counted = try StoreContents.foreignKeyViolations(database, of: table, schema: schema).values.reduce(0, +)
            let pragma = try database.rows("PRAGMA foreign_key_check(\(name))").count
            #expect(counted == pragma, "\(name)")
            #expect(pragma >= (name == "loose" ? 2 : 6), "\(name): \(pragma)")
        }
    }

    /// A configured check is read only as far as its `expect` needs: a query
    /// over a whole large table costs neither memory nor time.
    @Test func aConfiguredCheckReadsOnlyTheRowsItsExpectNeeds() throws {
        let database = try Database(path: ":memory:")
        let everything = "WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < 100000000) SELECT n FROM i"
        let checks = [
            CorpusConfiguration.Check(name: "first", sql: everything, expect: .number(1)),
            CorpusConfiguration.Check(name: "two rows", sql: everything, expect: .array([.number(1), .number(2)])),
            CorpusConfiguration.Check(name: "three rows", sql: "SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3", expect: .array([.number(1), .number(2)])),
        ]
        let clock = ContinuousClock()
        let start = clock.now
        let results = ConfiguredChecks.run(checks, from: "1.0.0", on: database, source: nil, personal: [])
        #expect(clock.now - start < .seconds(5))
        #expect(results.map(\.passed) == [true, false, false])
        #expect(results[1].message == "expected [1, 2], got [[1], [2], [3], ...]")
        #expect(results[2].message == "expected [1, 2], got [[1], [2], [3]]")
    }

    /// A declared key that is not unique in the source fails every path that
    /// starts there, found once (``SourceKeys``) while the stages run.
    @Test func aKeyThatIsNotUniqueInTheSourceFails() throws {
        let (folder, config) = try Self.corpus(rows: 1000, stage: "ALTER TABLE notes ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0; CREATE INDEX notes_by_date ON notes (created_at); PRAGMA user_version = 2;", sharedKey: true)
        defer { withExtendedLifetime(folder) {} }
        let path = try #require(try MigrationRunner.runMatrix(config: config).paths.first)
        #expect(path.checks.first { $0.name == "data preserved" }?.message == "key (\"uuid\") is not unique in the source: rows cannot be matched (declare \"keys\")")
    }

    /// Two runs at once on one corpus and one TMPDIR each make their own copies
    /// and their own store of keys (``SourceKeys``), give the same report, and
    /// leave the folder as they found it; a run killed (SIGKILL) while it holds
    /// them leaves its folders, which a later run neither reads nor minds.
    @Test func runsAtOnceOrKilledShareATemporaryFolderWithoutMeetingThere() throws {
        // The rows renumbered: the diff pairs them by key, through the keys copied
        // ahead. The stage takes a second or so: time to kill a run during it.
        let (folder, config) = try Self.corpus(rows: 20_000, stage: """
            CREATE TEMP TABLE pause AS WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 10000000) SELECT count(*) AS n FROM c;
            CREATE TABLE notes_new (uuid TEXT NOT NULL, title TEXT, body TEXT, created_at TEXT, pinned INTEGER NOT NULL DEFAULT 0);
            INSERT INTO notes_new (uuid, title, body, created_at) SELECT uuid, title, body, created_at FROM notes ORDER BY uuid DESC;
            DROP TABLE notes;
            ALTER TABLE notes_new RENAME TO notes;
            CREATE INDEX notes_by_date ON notes (created_at);
            PRAGMA user_version = 2;
            """)
        defer { withExtendedLifetime(folder) {} }
        let temporary = folder.url("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temporary
        let migrate = ["migrate", "--config", config, "--jobs", "1"]
        func entries() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: temporary).sorted() }
        func summary(_ result: RunResult) -> [Substring] {
            // The report without its times.
            result.standardError.split(separator: "\n").filter { !$0.contains("time:") }.map { $0.prefix { $0 != "," } }
        }

        let runs = try (0..<2).map { _ in try ToolProcess(migrate, folder: folder.path, environment: environment) }
        let results = runs.map { $0.wait() }
        for result in results { #expect(result.status == 0, "\(result.standardError)") }
        #expect(summary(results[0]) == summary(results[1]))
        #expect(summary(results[0]).contains("PASS  1.0.0 -> 2.0.0  1 stage"), "\(results[0].standardError)")
        #expect(try entries() == [])

        // Killed once its store of keys exists, while it is being filled or used.
        let victim = try ToolProcess(migrate, folder: folder.path, environment: environment)
        let deadline = ContinuousClock.now + .seconds(60)
        while try !entries().contains(where: { $0.hasPrefix(".fixturekit-keys-") }), ContinuousClock.now < deadline, isAlive(victim.pid) {
            usleep(2000)
        }
        kill(victim.pid, SIGKILL)
        #expect(victim.wait().status == 128 + SIGKILL)
        let left = try entries()
        #expect(left.contains { $0.hasPrefix(".fixturekit-keys-") }, "\(left)")
        let after = try ToolProcess(migrate, folder: folder.path, environment: environment).wait()
        #expect(after.status == 0, "\(after.standardError)")
        #expect(summary(after) == summary(results[0]))
        #expect(try entries() == left)
    }
}
