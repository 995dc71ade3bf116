import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// The value-level comparison pairs rows by key without a quadratic path, and
/// says what a naive correlated comparison says, for every kind of key and
/// every kind of stage.
@Suite struct RowPairingTests {
    /// A kind of table and key: every kind has the columns id, uuid, a, b, v, n.
    struct Kind: CustomStringConvertible, Sendable {
        var description: String
        /// The CREATE TABLE statement of a table named `$`.
        var create: String
        var keys: [String: [String]] = [:]
        var indexes = ""
        var withoutRowID: Bool { create.hasSuffix("WITHOUT ROWID") }
        var integerPrimaryKey: Bool { create.contains("id INTEGER PRIMARY KEY") && !withoutRowID }

        func table(_ name: String) -> String { create.replacingOccurrences(of: "$", with: name) }
    }

    static let kinds: [Kind] = [
        Kind(description: "a declared key without an index", create: "CREATE TABLE $ (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL, a TEXT, b INTEGER, v TEXT, n INTEGER)", keys: ["t": ["uuid"]]),
        Kind(description: "a composite declared key", create: "CREATE TABLE $ (id INTEGER PRIMARY KEY, uuid TEXT, a TEXT, b INTEGER, v TEXT, n INTEGER)", keys: ["t": ["b", "a"]]),
        Kind(description: "the primary key of a WITHOUT ROWID table", create: "CREATE TABLE $ (id INTEGER, uuid TEXT, a TEXT, b INTEGER, v TEXT, n INTEGER, PRIMARY KEY (a, b)) WITHOUT ROWID"),
        Kind(description: "a declared key on a WITHOUT ROWID table", create: "CREATE TABLE $ (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL, a TEXT, b INTEGER, v TEXT, n INTEGER) WITHOUT ROWID", keys: ["t": ["uuid"]]),
        Kind(description: "no primary key (the rowid)", create: "CREATE TABLE $ (id INTEGER, uuid TEXT, a TEXT, b INTEGER, v TEXT, n INTEGER)"),
        Kind(description: "a NOCASE declared key", create: "CREATE TABLE $ (id INTEGER PRIMARY KEY, uuid TEXT COLLATE NOCASE NOT NULL, a TEXT, b INTEGER, v TEXT, n INTEGER)", keys: ["t": ["uuid"]]),
        Kind(description: "a declared key with a unique index", create: "CREATE TABLE $ (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL, a TEXT, b INTEGER, v TEXT, n INTEGER)", keys: ["t": ["uuid"]], indexes: "CREATE UNIQUE INDEX t_uuid ON t (uuid);"),
        Kind(description: "an INTEGER PRIMARY KEY", create: "CREATE TABLE $ (id INTEGER PRIMARY KEY, uuid TEXT, a TEXT, b INTEGER, v TEXT, n INTEGER)"),
    ]

    /// Stages, as SQL for a kind: each breaks or keeps the pairing another way.
    static let stages: [(name: String, sql: @Sendable (Kind) -> String)] = [
        ("nothing", { _ in "SELECT 1" }),
        ("values changed", { _ in "UPDATE t SET v = NULL WHERE n % 10 = 1; UPDATE t SET v = '' WHERE n % 10 = 2; UPDATE t SET v = substr(v, 1, 3) WHERE n % 10 = 3; UPDATE t SET n = n + 1000 WHERE n % 10 = 4;" }),
        ("rebuilt with its rowids", { kind in
            let copy = kind.withoutRowID || kind.integerPrimaryKey ? "INSERT INTO t_new SELECT * FROM t" : "INSERT INTO t_new (rowid, id, uuid, a, b, v, n) SELECT rowid, id, uuid, a, b, v, n FROM t"
            return "\(kind.table("t_new")); \(copy); DROP TABLE t; ALTER TABLE t_new RENAME TO t; \(kind.indexes) CREATE INDEX t_by_n ON t (n);"
        }),
        ("rebuilt, renumbered in order", { kind in
            let id = kind.integerPrimaryKey ? "id + 1000" : "id"
            return "\(kind.table("t_new")); INSERT INTO t_new (id, uuid, a, b, v, n) SELECT \(id), uuid, a, b, v, n FROM t ORDER BY n; DROP TABLE t; ALTER TABLE t_new RENAME TO t; \(kind.indexes)"
        }),
        ("rebuilt in another order", { kind in
            let id = kind.integerPrimaryKey ? "100000 - id" : "id"
            return "\(kind.table("t_new")); INSERT INTO t_new (id, uuid, a, b, v, n) SELECT \(id), uuid, a, b, v, n FROM t ORDER BY uuid DESC; DROP TABLE t; ALTER TABLE t_new RENAME TO t; \(kind.indexes)"
        }),
        ("rows lost, others added", { _ in "DELETE FROM t WHERE n IN (5, 6); INSERT INTO t (id, uuid, a, b, v, n) VALUES (900001, 'NEW1', 'Z', 1, 'x', 900001), (900002, 'NEW2', 'Z', 2, 'y', 900002);" }),
        ("keys duplicated", { _ in "INSERT OR IGNORE INTO t (id, uuid, a, b, v, n) SELECT id + 500000, uuid, a, b, 'dup', n FROM t WHERE n IN (7, 8);" }),
        ("rows added", { _ in "INSERT INTO t (id, uuid, a, b, v, n) VALUES (700001, 'X1', 'X', 1, 'new', 700001), (700002, 'X2', 'X', 2, 'new', 700002);" }),
        ("a key set to NULL", { _ in "UPDATE OR IGNORE t SET uuid = NULL, a = NULL WHERE n = 9;" }),
        ("rows renumbered and added", { kind in
            let id = kind.integerPrimaryKey ? "id + 1000" : "id"
            return "\(kind.table("t_new")); INSERT INTO t_new (id, uuid, a, b, v, n) SELECT \(id), uuid, a, b, v, n FROM t ORDER BY uuid DESC; INSERT INTO t_new (id, uuid, a, b, v, n) VALUES (800001, 'Y1', 'Y', 1, 'new', 800001); DROP TABLE t; ALTER TABLE t_new RENAME TO t;"
        }),
    ]

    /// A source store of `kind` with `rows` rows (rowids with gaps: every 13th
    /// row deleted), and a copy of it migrated by `stage`.
    static func stores(_ kind: Kind, rows: Int, stage: String) throws -> (TemporaryFolder, source: String, migrated: String) {
        let folder = try TemporaryFolder()
        let source = folder.url("source.sqlite"), migrated = folder.url("migrated.sqlite")
        let database = try Database(path: source, options: .init(create: true))
        try database.execute("""
            \(kind.table("t")); \(kind.indexes)
            WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < \(rows))
            INSERT INTO t (id, uuid, a, b, v, n)
            SELECT n, (CASE n % 2 WHEN 0 THEN 'u' ELSE 'U' END) || printf('%08d', (n * 7919) % 1000003), 'A' || (n / 7), n % 7, 'value ' || n, n FROM i;
            DELETE FROM t WHERE n % 13 = 0;
            """)
        try database.close()
        try FileManager.default.copyItem(atPath: source, toPath: migrated)
        let target = try Database(path: migrated)
        try target.execute("BEGIN; \(stage); COMMIT;")
        try target.close()
        return (folder, source, migrated)
    }

    /// The check's figures: per table its rows compared and lost, per column its
    /// values compared and equal.
    static func figures(_ rows: [ColumnPreservation]) -> [String] {
        rows.map { row in
            row.column.map { "\(row.table).\($0): \(row.equal) of \(row.compared)" } ?? "\(row.table): \(row.compared) compared, \(row.lost) lost"
        }
    }

    /// The same figures from naive correlated queries, fine on small tables:
    /// keys matched as the source's column compares them (`s.k = +m.k`).
    static func naiveFigures(_ database: Database, key: [String], columns: [String]) throws -> [String] {
        let on = key.isEmpty ? "m.rowid = s.rowid" : key.map { "s.\($0) = +m.\($0)" }.joined(separator: " AND ")
        let join = "FROM fixturekit_source.t AS s JOIN main.t AS m ON \(on)"
        let total = Int(try database.scalar("SELECT count(*) FROM fixturekit_source.t")?.integer ?? 0)
        let lost = Int(try database.scalar("SELECT count(*) FROM fixturekit_source.t AS s WHERE NOT EXISTS (SELECT 1 FROM main.t AS m WHERE \(on))")?.integer ?? 0)
        let matched = Int(try database.scalar("SELECT count(*) \(join)")?.integer ?? 0)
        var figures = ["t: \(total - lost) compared, \(lost) lost"]
        for column in columns {
            let equal = Int(try database.scalar("SELECT coalesce(sum(\(PreservationCheck.sameValue("s.\(column)", "m.\(column)"))), 0) \(join)")?.integer ?? 0)
            figures.append("t.\(column): \(equal) of \(matched)")
        }
        return figures
    }

    /// Runs the check, and the naive figures while the source is attached.
    /// - Parameter prepared: with the source's keys' uniqueness found beforehand
    ///   and the keys that no index of the source finds copied ahead
    ///   (``SourceKeys``), as the runner finds them, rather than by the check.
    static func compare(_ kind: Kind, rows: Int, stage: String, naive: Bool = true, prepared: Bool = false) throws -> (check: [String], naive: [String], seconds: Double) {
        let (folder, source, migrated) = try stores(kind, rows: rows, stage: stage)
        defer { withExtendedLifetime(folder) {} }
        let database = try Database(path: migrated)
        let sourceSchema = try SchemaSnapshot(database: try Database(path: source, options: .init(readOnly: true)))
        var check = PreservationCheck(database: database, keys: kind.keys, changes: [:], source: sourceSchema, migrated: try SchemaSnapshot(database: database))
        if prepared {
            let before = try Data(contentsOf: URL(fileURLWithPath: source))
            let keys = SourceKeys(reference: source, schema: sourceSchema, keys: kind.keys, folder: folder.path)
            let table = try #require(sourceSchema.tables.first)
            let key = SourceKeys.key(of: table, keys: kind.keys)
            #expect(keys.wait()["t"]?.unique == true || key.isEmpty)
            // Copied ahead exactly when no index of the source finds the key.
            let found = key.isEmpty || PreservationCheck.isUnique(key, in: table, of: sourceSchema) || kind.indexes.contains(" ON t (\(key.joined(separator: ", ")))")
            #expect((keys.wait()["t"]?.prebuilt != nil) == !found, "\(kind)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: source)) == before, "the reference copy is only read")
            check.sourceKeys = keys
        }
        let clock = ContinuousClock()
        let start = clock.now
        let results = try check.run(sourcePath: source)
        let elapsed = clock.now - start
        let key = kind.keys["t"] ?? (kind.withoutRowID ? ["a", "b"] : kind.integerPrimaryKey ? ["id"] : [])
        _ = try database.rows("ATTACH DATABASE ?1 AS fixturekit_source", [.text(source)])
        let expected = naive ? try naiveFigures(database, key: key, columns: ["id", "uuid", "a", "b", "v", "n"]) : []
        return (figures(results), expected, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    @Test(arguments: kinds)
    func everyStageGivesWhatANaiveComparisonGives(_ kind: Kind) throws {
        for stage in Self.stages {
            let (check, naive, _) = try Self.compare(kind, rows: 120, stage: stage.sql(kind))
            #expect(check == naive, "\(kind), \(stage.name)")
            let (prepared, _, _) = try Self.compare(kind, rows: 120, stage: stage.sql(kind), naive: false, prepared: true)
            #expect(prepared == naive, "\(kind), \(stage.name), keys prepared")
        }
    }

    /// Which way the rows are paired, for a kind and a stage.
    static func method(_ kind: Kind, stage: String) throws -> RowPairing.Method {
        let (folder, source, migrated) = try stores(kind, rows: 60, stage: stage)
        defer { withExtendedLifetime(folder) {} }
        let database = try Database(path: migrated)
        let sourceSchema = try SchemaSnapshot(database: try Database(path: source, options: .init(readOnly: true)))
        let after = try SchemaSnapshot(database: database)
        _ = try database.rows("ATTACH DATABASE ?1 AS fixturekit_source", [.text(source)])
        let key = kind.keys["t"] ?? (kind.withoutRowID ? ["a", "b"] : kind.integerPrimaryKey ? ["id"] : [])
        let total = Int(try database.scalar("SELECT count(*) FROM fixturekit_source.t")?.integer ?? 0)
        let pairing = try RowPairing(
            database: database, schema: "fixturekit_source", table: try #require(sourceSchema.tables.first), after: try #require(after.tables.first),
            sourceSchema: sourceSchema, migratedSchema: after, key: key, total: total, migratedCount: nil, sameRow: "1")
        defer { pairing.drop() }
        return pairing.method
    }

    @Test func theWayFollowsTheStage() throws {
        let unindexed = Self.kinds[0], indexed = Self.kinds[6], withoutRowID = Self.kinds[2], noKey = Self.kinds[4]
        let rebuilt = Self.stages[2].sql, reordered = Self.stages[4].sql, added = Self.stages[7].sql, duplicated = Self.stages[6].sql
        #expect(try Self.method(unindexed, stage: rebuilt(unindexed)) == .sameRowids)
        #expect(try Self.method(unindexed, stage: added(unindexed)) == .sameRowids)
        #expect(try Self.method(unindexed, stage: duplicated(unindexed)) == .keyTable)
        #expect(try Self.method(unindexed, stage: reordered(unindexed)) == .keyTable)
        #expect(try Self.method(indexed, stage: reordered(indexed)) == .sourceIndex)
        #expect(try Self.method(withoutRowID, stage: rebuilt(withoutRowID)) == .sourceIndex)
        #expect(try Self.method(noKey, stage: reordered(noKey)) == .rowid)
        // The temporary tables are gone afterwards.
        let (folder, _, migrated) = try Self.stores(unindexed, rows: 10, stage: "SELECT 1")
        defer { withExtendedLifetime(folder) {} }
        #expect(try Database(path: migrated).scalar("SELECT count(*) FROM temp.sqlite_schema") == .integer(0))
    }

    /// The class of the issue: 10,000 rows of every kind of key (50,000 under
    /// `make torture`), rebuilt in another order with a duplicated key (the
    /// slowest way), well within a few seconds; a pass per row over the other
    /// table would take minutes at 10,000 and hours at 50,000.
    @Test(.serialized, arguments: kinds)
    func noKindOfKeyIsQuadratic(_ kind: Kind) throws {
        let stage = Self.stages[4].sql(kind) + Self.stages[6].sql(kind)
        let (check, _, seconds) = try Self.compare(kind, rows: tortureSize(10_000, torture: 50_000), stage: stage, naive: false)
        #expect(seconds < 5, "\(kind): \(seconds) s")
        #expect(check.count == 7, "\(kind): \(check)")
    }

    /// A table of links whose key is all its columns (tags on notes), rebuilt
    /// WITHOUT ROWID: the copy of its keys stands for its rows. The figures are
    /// the naive comparison's, and rows are named by the source's rowids when
    /// the key is personal.
    @Test func aTableOfLinksIsComparedFromItsKeysAlone() throws {
        let folder = try TemporaryFolder()
        let source = folder.url("source.sqlite"), migrated = folder.url("migrated.sqlite")
        let database = try Database(path: source, options: .init(create: true))
        try database.execute("""
            CREATE TABLE tags (note_uuid TEXT NOT NULL, tag TEXT NOT NULL);
            WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < 300)
            INSERT INTO tags SELECT printf('N%04d', (n * 7) % 300), 'tag' || (n % 5) FROM i;
            DELETE FROM tags WHERE rowid % 11 = 0;
            """)
        try database.close()
        try FileManager.default.copyItem(atPath: source, toPath: migrated)
        let target = try Database(path: migrated)
        try target.execute("""
            CREATE TABLE tags_new (note_uuid TEXT NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (note_uuid, tag)) WITHOUT ROWID;
            INSERT INTO tags_new SELECT note_uuid, tag FROM tags WHERE rowid NOT IN (5, 6);
            DROP TABLE tags;
            ALTER TABLE tags_new RENAME TO tags;
            """)
        let sourceSchema = try SchemaSnapshot(database: try Database(path: source, options: .init(readOnly: true)))
        let keys = ["tags": ["note_uuid", "tag"]]
        var check = PreservationCheck(database: target, keys: keys, changes: [:], source: sourceSchema, migrated: try SchemaSnapshot(database: target))
        check.personal = ["tags.note_uuid"]
        let results = try check.run(sourcePath: source)
        #expect(results.first?.finding == "tags: 2 of 273 rows lost (keys rowid 5; rowid 6)")
        _ = try target.rows("ATTACH DATABASE ?1 AS fixturekit_source", [.text(source)])
        let on = "s.note_uuid = +m.note_uuid AND s.tag = +m.tag"
        let naiveLost = try target.scalar("SELECT count(*) FROM fixturekit_source.tags AS s WHERE NOT EXISTS (SELECT 1 FROM main.tags AS m WHERE \(on))")
        #expect(naiveLost == .integer(2))
        #expect(results.map { ($0.column, $0.compared, $0.equal) }.map { "\($0.0 ?? "-") \($0.1) \($0.2)" } == ["- 271 271", "note_uuid 271 271", "tag 271 271"])
        let table = try #require(sourceSchema.tables.first)
        let migratedSchema = try SchemaSnapshot(database: target)
        let after = try #require(migratedSchema.tables.first)
        let pairing = try RowPairing(
            database: target, schema: "fixturekit_source", table: table, after: after, sourceSchema: sourceSchema,
            migratedSchema: migratedSchema, key: ["note_uuid", "tag"], total: 273, migratedCount: nil, sameRow: "1", compared: ["note_uuid", "tag"])
        defer { pairing.drop() }
        #expect(pairing.method == .keyTable && !pairing.from.contains("fixturekit_source.\"tags\""))

        // The same with the keys copied ahead: the figures, and the rows lost
        // named from the copy.
        let keysFolder = try TemporaryFolder()
        check.sourceKeys = SourceKeys(reference: source, schema: sourceSchema, keys: keys, folder: keysFolder.path)
        #expect(check.sourceKeys?.wait()["tags"]?.prebuilt != nil)
        try target.execute("DETACH DATABASE fixturekit_source")
        #expect(try check.run(sourcePath: source) == results)
        #expect(try target.scalar("SELECT count(*) FROM pragma_database_list WHERE name = 'fixturekit_keys'") == .integer(0), "detached afterwards")
    }

    /// A key copied ahead is unique exactly where the sort of the source's
    /// values says it is: under the column's collation, NULLs as one value. A
    /// keys store that cannot be made leaves the answers to the sort.
    @Test func keysCopiedAheadAreUniqueWhereTheSortSaysSo() throws {
        let folder = try TemporaryFolder()
        let source = folder.url("source.sqlite")
        let database = try Database(path: source, options: .init(create: true))
        try database.execute("""
            CREATE TABLE distinct_keys (k TEXT, v TEXT);
            INSERT INTO distinct_keys VALUES ('a', 1), ('A', 2), ('b', 3), (NULL, 4);
            CREATE TABLE case_only (k TEXT COLLATE NOCASE, v TEXT);
            INSERT INTO case_only VALUES ('a', 1), ('A', 2);
            CREATE TABLE two_nulls (k TEXT, j INTEGER, v TEXT);
            INSERT INTO two_nulls VALUES (NULL, 1, 1), (NULL, 1, 2), ('x', 1, 3);
            CREATE TABLE trailing (k TEXT COLLATE RTRIM, v TEXT);
            INSERT INTO trailing VALUES ('a', 1), ('a  ', 2);
            CREATE TABLE numbers (k INTEGER, v TEXT);
            INSERT INTO numbers VALUES (1, 1), ('1', 2), (1.5, 3);
            """)
        let schema = try SchemaSnapshot(database: database)
        let keys = ["distinct_keys": ["k"], "case_only": ["k"], "two_nulls": ["k", "j"], "trailing": ["k"], "numbers": ["k"]]
        var expected: [String: Bool] = [:]
        for (table, key) in keys { expected[table] = try PreservationCheck.isUnique(key, of: table, schema: "main", in: database) }
        #expect(expected == ["distinct_keys": true, "case_only": false, "two_nulls": false, "trailing": false, "numbers": false])
        try database.close()

        let keysFolder = try TemporaryFolder()
        let copied = SourceKeys(reference: source, schema: schema, keys: keys, folder: keysFolder.path).wait()
        #expect(copied.mapValues(\.unique) == expected)
        #expect(copied.values.allSatisfy { $0.prebuilt != nil })
        let sortedOnly = SourceKeys(reference: source, schema: schema, keys: keys, folder: keysFolder.url("missing")).wait()
        #expect(sortedOnly.mapValues(\.unique) == expected)
        #expect(sortedOnly.values.allSatisfy { $0.prebuilt == nil })
    }

    /// Keys are copied ahead only where the copy leaves room for twice the
    /// fixture: on a disk too small, the answers come from the sort alone.
    @Test(.enabled(if: InfrastructureFailureTests.canMountTmpfs, "needs root, to mount a small tmpfs"))
    func keysAreCopiedAheadOnlyWhereTheyLeaveRoom() throws {
        let folder = try TemporaryFolder()
        let source = folder.url("source.sqlite")
        let database = try Database(path: source, options: .init(create: true))
        try database.execute("""
            CREATE TABLE t (uuid TEXT NOT NULL, v BLOB);
            WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < 5000)
            INSERT INTO t SELECT printf('%032d', n), randomblob(100) FROM i;
            """)
        let schema = try SchemaSnapshot(database: database)
        try database.close()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: source)[.size] as? Int)
        #expect(size > 512 << 10 && size < 4 << 20, "\(size) bytes")
        for (disk, copied) in [("1m", false), ("16m", true)] {
            let small = try InfrastructureFailureTests.SmallDisk(size: disk)
            let answers = SourceKeys(reference: source, schema: schema, keys: ["t": ["uuid"]], folder: small.path).wait()
            #expect(answers["t"]?.unique == true, "\(disk)")
            #expect((answers["t"]?.prebuilt != nil) == copied, "\(disk)")
        }
    }
}
