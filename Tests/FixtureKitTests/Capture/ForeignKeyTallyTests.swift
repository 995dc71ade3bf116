import Testing
@testable import FixtureKit
@testable import FixtureKitModels
@testable import FixtureKitSQLite
@testable import FixtureKitTestSupport

/// The foreign-key violations a content hash's scan counts (``ForeignKeyTally``)
/// are the anti-joins' and the pragma's, whichever table is read first, and a
/// key it cannot count exactly is left to the anti-join.
@Suite struct ForeignKeyTallyTests {
    /// Tables in the order the scan reads them (by name): a child before its
    /// parent, a child after it, a key to its own table, a `WITHOUT ROWID`
    /// child, a parent whose rowids are far apart or negative, a child holding
    /// text (which the pragma converts) and NULLs (which violate nothing).
    static let schema = """
        CREATE TABLE a_child (id INTEGER PRIMARY KEY, p INTEGER REFERENCES z_parent(id));
        CREATE TABLE b_parent (id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE c_sparse (id INTEGER PRIMARY KEY);
        CREATE TABLE d_far (id INTEGER PRIMARY KEY, s INTEGER REFERENCES c_sparse(id));
        CREATE TABLE m_child (id INTEGER PRIMARY KEY, p INTEGER REFERENCES b_parent(id), q INTEGER REFERENCES z_parent(id));
        CREATE TABLE s_self (id INTEGER PRIMARY KEY, up INTEGER REFERENCES s_self(id));
        CREATE TABLE t_text (id INTEGER PRIMARY KEY, p REFERENCES b_parent(id));
        CREATE TABLE w_keyed (k TEXT PRIMARY KEY, p INTEGER REFERENCES b_parent(id)) WITHOUT ROWID;
        CREATE TABLE z_parent (id INTEGER PRIMARY KEY);
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 700)
        INSERT INTO z_parent (id) SELECT i FROM n;
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
        INSERT INTO a_child (p) SELECT CASE WHEN i % 10 = 0 THEN NULL ELSE i END FROM n;
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
        INSERT INTO b_parent (id, name) SELECT i * 2, 'p' || i FROM n;
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500)
        INSERT INTO m_child (p, q) SELECT i, 1500 - i FROM n;
        INSERT INTO c_sparse (id) VALUES (-9223372036854775808), (-5), (1), (1099511627776), (9223372036854775807);
        INSERT INTO d_far (s) VALUES (-9223372036854775808), (-5), (-6), (1), (2), (1099511627776), (1099511627775), (9223372036854775807), (NULL);
        INSERT INTO s_self (id, up) VALUES (1, NULL), (2, 1), (3, 2), (4, 9), (5, 4), (6, 60);
        INSERT INTO t_text (p) VALUES (2), ('4'), ('x'), (3), (NULL);
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
        INSERT INTO w_keyed (k, p) SELECT 'k' || i, i FROM n;
        """

    static func store(in folder: TemporaryFolder) throws -> (Database, SchemaSnapshot) {
        let database = try Database(path: folder.url("Keys.sqlite"), options: .init(create: true))
        try database.execute(schema)
        return (database, try SchemaSnapshot(database: database))
    }

    /// What the anti-join counts for each key the tally may count.
    static func antiJoins(_ database: Database, _ schema: SchemaSnapshot, _ keys: Set<ForeignKeyTally.ID>) throws -> [ForeignKeyTally.ID: Int] {
        var counts: [ForeignKeyTally.ID: Int] = [:]
        for table in schema.tables {
            for (index, key) in table.foreignKeys.enumerated() where keys.contains(.init(table: table.name, index: index)) {
                counts[.init(table: table.name, index: index)] = try StoreContents.violations(database, of: key, in: table, schema: schema)
            }
        }
        return counts
    }

    /// Whichever way the scan reads a table's rows (by its function, or, past
    /// the connection's limit on a function's arguments, by `SELECT *`; the
    /// limit lowered here to read the tables of two columns and more so).
    @Test(arguments: [nil, 1] as [Int?])
    func theCountsAreTheAntiJoinsAndThePragmas(functionArgumentLimit: Int?) throws {
        let folder = try TemporaryFolder()
        let (database, schema) = try Self.store(in: folder)
        defer { try? database.close() }
        if let functionArgumentLimit { database.functionArgumentLimit = functionArgumentLimit }
        let tally = ForeignKeyTally(schema: schema)
        #expect(tally.candidates.count == 7)
        let hashed = try database.contentHashAndRowCounts(observing: tally.observer)
        #expect(hashed.digest == (try database.contentHash()), "the observer changed what is hashed")
        let counts = tally.counts()
        // Every key but the one holding text, which the pragma converts first.
        let text = ForeignKeyTally.ID(table: "t_text", index: 0)
        #expect(Set(counts.keys) == tally.candidates.subtracting([text]))
        #expect(counts == (try Self.antiJoins(database, schema, Set(counts.keys))))
        #expect(counts[.init(table: "a_child", index: 0)] == 270)
        #expect(counts[.init(table: "m_child", index: 0)] == 1000)
        #expect(counts[.init(table: "m_child", index: 1)] == 800)
        #expect(counts[.init(table: "d_far", index: 0)] == 3)
        #expect(counts[.init(table: "s_self", index: 0)] == 2)
        #expect(counts[.init(table: "w_keyed", index: 0)] == 150)
        // With the text key's anti-join, the pragma's total.
        let total = counts.values.reduce(0, +) + (try Self.antiJoins(database, schema, [text]).values.reduce(0, +))
        #expect(total == Int(try database.scalar("SELECT count(*) FROM pragma_foreign_key_check")?.integer ?? -1))
        #expect(total == (try StoreContents.countForeignKeyViolations(database, schema: schema)))
    }

    /// Past its capacity, a key whose values it had to keep (its parent not read
    /// yet) is left out, and so is every key of a parent whose rowids it could
    /// not keep; a key looked up as it is read keeps nothing. (Read in order:
    /// a_child keeps 900 values, b_parent 500 rowids, freed once m_child looks
    /// them up, m_child 1,500 values for z_parent, read last with 700 rowids.)
    @Test(arguments: [
        (0, [String]()),
        (600, ["d_far", "m_child", "s_self", "w_keyed"]),
        (1 << 20, ["a_child", "d_far", "m_child", "m_child.1", "s_self", "w_keyed"]),
    ])
    func aKeyPastTheCapacityIsLeftToTheAntiJoin(capacity: Int, counted: [String]) throws {
        let folder = try TemporaryFolder()
        let (database, schema) = try Self.store(in: folder)
        defer { try? database.close() }
        let tally = ForeignKeyTally(schema: schema, capacity: capacity)
        _ = try database.contentHashAndRowCounts(observing: tally.observer)
        let counts = tally.counts()
        let expected = Set(counted.map { name in
            let parts = name.split(separator: ".")
            return ForeignKeyTally.ID(table: String(parts[0]), index: parts.count > 1 ? Int(parts[1]) ?? 0 : 0)
        })
        #expect(Set(counts.keys) == expected)
        #expect(counts == (try Self.antiJoins(database, schema, Set(counts.keys))))
    }

    /// A snapshot's manifest counts every key as the pragma does: those the
    /// scan counted, the one it left to its anti-join (text values), and none
    /// twice; and a key the scan cannot count at all (to a parent's primary key
    /// by omission, counted by the pragma) besides them.
    @Test func aCapturedSnapshotCountsEveryKeyOnce() throws {
        let folder = try TemporaryFolder()
        let (database, _) = try Self.store(in: folder)
        try database.execute("""
            CREATE TABLE y_omitted (id INTEGER PRIMARY KEY, p INTEGER REFERENCES z_parent);
            INSERT INTO y_omitted (p) VALUES (1), (701), (702), (NULL);
            """)
        let expected = Int(try database.scalar("SELECT count(*) FROM pragma_foreign_key_check")?.integer ?? -1)
        try database.close()
        #expect(expected == 270 + 3 + 1000 + 800 + 2 + 2 + 150 + 2)
        let copied = try Capture.snapshot(try StoreSet.locate(folder.url("Keys.sqlite")), to: folder.url("copy.sqlite"), readingContents: true)
        let contents = try #require(copied.contents, "the contents were not read alongside the copy")
        #expect(contents.foreignKeyViolations == expected)
    }

    /// The inspection that hashes a store (a raw capture's, `checkpoint`'s, a
    /// fixture's `anonymize`) reads in one scan what the queries read.
    @Test func oneScanReadsWhatTheQueriesRead() throws {
        let folder = try TemporaryFolder()
        let (database, _) = try Self.store(in: folder)
        defer { try? database.close() }
        try database.execute("CREATE TABLE y_omitted (id INTEGER PRIMARY KEY, p INTEGER REFERENCES z_parent); INSERT INTO y_omitted (p) VALUES (1), (701), (NULL);")
        let scanned = try StoreContents(readingAndHashing: database)
        #expect(scanned == (try StoreContents(reading: database)).with(contentHash: try database.contentHash().hex))
        #expect(scanned.foreignKeyViolations == 2229 - 1)
        #expect(scanned.tables["a_child"] == 1000)
    }

    /// Tables and columns named as SQLite resolves them: quotes, spaces and case
    /// that differ between a key's declaration and its table's.
    @Test func namesAreMatchedAsSQLiteResolvesThem() throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.url("Names.sqlite"), options: .init(create: true))
        defer { try? database.close() }
        try database.execute(#"""
            CREATE TABLE "a ""Child"" table" ("K" INTEGER PRIMARY KEY, "Parent Id" INTEGER REFERENCES "PARENT ""x"""("ID"));
            CREATE TABLE "parent ""X""" ("id" INTEGER PRIMARY KEY);
            CREATE TABLE "Z;drop" ("up" INTEGER REFERENCES "a ""child"" TABLE", "P" INTEGER REFERENCES "Parent ""x"""(Id));
            INSERT INTO "parent ""X""" VALUES (1), (2), (3);
            INSERT INTO "a ""Child"" table" ("parent id") VALUES (1), (4), (NULL), (5);
            INSERT INTO "Z;drop" VALUES (NULL, 3), (NULL, 9);
            """#)
        let schema = try SchemaSnapshot(database: database)
        let tally = ForeignKeyTally(schema: schema)
        _ = try database.contentHashAndRowCounts(observing: tally.observer)
        let counts = tally.counts()
        // "Z;drop" has a key to a primary key by omission: the pragma counts its table.
        #expect(counts == [.init(table: "a \"child\" TABLE", index: 0): 2])
        let expected = Int(try database.scalar("SELECT count(*) FROM pragma_foreign_key_check")?.integer ?? -1)
        #expect(expected == 3)
        #expect(try StoreContents(readingAndHashing: database).foreignKeyViolations == expected)
    }
}
