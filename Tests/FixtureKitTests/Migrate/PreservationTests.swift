import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// Value-level preservation: stages that keep the counts but lose data fail.
@Suite struct PreservationTests {
    /// Runs the 1.0.0 -> 2.0.0 hop with `extra` appended to its SQL.
    func hop(_ extra: String, edit: (inout [String: Any]) -> Void = { _ in }) throws -> PathResult {
        let notes = try NotesCorpus()
        try notes.folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", NotesCorpus.stage1to2 + "\n" + extra + "\n")
        try notes.writeConfig(edit)
        let report = try MigrationRunner.runMatrix(config: notes.config, options: .init(from: "1.0.0"))
        return try #require(report.paths.first { $0.kind == .hop })
    }

    func finding(_ result: PathResult) -> String? { result.checks.first { $0.name == "data preserved" }?.message }

    @Test func aColumnSetToNullForSomeRowsFails() throws {
        let result = try hop("UPDATE notes SET body = NULL WHERE id <= 3;")
        #expect(!result.passed)
        #expect(finding(result) == "notes.body: 3 became NULL of 40 values (key 1: 'Body 1' -> NULL; key 2: 'Body 2' -> NULL; key 3: 'Body 3' -> NULL)")
        #expect(result.checks.first { $0.name == "row counts" }?.passed == true)
        let body = try #require(result.preservation.first { $0.column == "body" })
        #expect((body.compared, body.equal, body.nulled, body.lost) == (40, 37, 3, 0))
    }

    @Test func truncatedTextFails() throws {
        let result = try hop("UPDATE notes SET title = substr(title, 1, 3) WHERE uuid IN ('K10', 'K11');")
        #expect(finding(result) == "notes.title: 2 truncated of 40 values (key 10: 'Note 10' -> 'Not'; key 11: 'Note 11' -> 'Not')")
    }

    @Test func renumberedRowidsPassWithBusinessKeys() throws {
        let renumber = """
            CREATE TABLE notes_copy AS SELECT * FROM notes;
            DELETE FROM notes;
            INSERT INTO notes (id, uuid, title, body, created_at, folder_id) SELECT id + 1000, uuid, title, body, created_at, folder_id FROM notes_copy;
            DROP TABLE notes_copy;
            """
        let withoutKeys = try hop(renumber)
        #expect(finding(withoutKeys) == "notes: 40 of 40 rows lost (keys 1; 2; 3; 4; 5)")
        let withKeys = try hop(renumber) { $0["keys"] = ["notes": ["uuid"]] }
        #expect(finding(withKeys) == "notes.id: 40 changed of 40 values (key 'K1': 1 -> 1001; key 'K10': 10 -> 1010; key 'K11': 11 -> 1011; key 'K12': 12 -> 1012; key 'K13': 13 -> 1013)")
        let declared = try hop(renumber) {
            $0["keys"] = ["notes": ["uuid"]]
            $0["changes"] = ["notes.id": "derived"]
        }
        #expect(declared.passed, "\(String(describing: declared.firstFailure))")
    }

    @Test func textDatesBecomingIntegerSecondsLosslesslyPass() throws {
        let notes = try NotesCorpus()
        let report = try MigrationRunner.runMatrix(config: notes.config, options: .init(from: "2.0.0"))
        let path = try #require(report.paths.first)
        #expect(path.passed, "\(String(describing: path.firstFailure))")
        let dates = try #require(path.preservation.first { $0.column == "created_at" })
        #expect((dates.compared, dates.equal) == (25, 25))
        // One second off is not the same instant.
        try notes.writeProgramStage(NotesCorpus.stage2to3.replacingOccurrences(of: "CAST(strftime('%s', created_at) AS INTEGER)", with: "CAST(strftime('%s', created_at) AS INTEGER) + (id = 7)"))
        let off = try MigrationRunner.runMatrix(config: notes.config, options: .init(from: "2.0.0"))
        #expect(off.paths[0].checks.first { $0.name == "data preserved" }?.message == "notes.created_at: 1 changed of 25 values (key 7: '2024-03-08T08:00:00Z' -> 1709884801)")
    }

    @Test func aDroppedColumnWithDataFailsUnlessDeclared() throws {
        let drop = "ALTER TABLE notes DROP COLUMN body;"
        let undeclared = try hop(drop)
        #expect(finding(undeclared) == "notes.body: gone with 40 non-NULL values (declare it \"dropped\" in changes)")
        // The schema check also sees it, against 2.0.0's fixture.
        #expect(undeclared.schemaDifferences == ["notes.body: missing (2.0.0 has it)"])
        let declared = try hop(drop) { $0["changes"] = ["notes.body": "dropped"] }
        #expect(declared.checks.first { $0.name == "data preserved" }?.passed == true)
    }

    @Test func rowsLostWhileOthersAreGainedFailThoughCountsHold() throws {
        let result = try hop("""
            DELETE FROM notes WHERE uuid IN ('K5', 'K6');
            INSERT INTO notes (uuid, title, body, folder_id) VALUES ('NEW1', 'x', 'y', 1), ('NEW2', 'x', 'y', 1);
            """) { $0["keys"] = ["notes": ["uuid"]] }
        #expect(result.checks.first { $0.name == "row counts" }?.passed == true)
        #expect(finding(result) == "notes: 2 of 40 rows lost (keys 'K5'; 'K6')")
    }

    @Test func keysTheAnonymizationRulesMarkPersonalAreNeverShown() throws {
        let lose = "DELETE FROM notes WHERE uuid IN ('K5', 'K6'); UPDATE notes SET title = NULL WHERE uuid = 'K7';"
        func run(rules: String?) throws -> String? {
            let notes = try NotesCorpus()
            try notes.folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", NotesCorpus.stage1to2 + "\n" + lose + "\n")
            if let rules { try notes.folder.write("MigrationFixtures/anonymize.json", rules) }
            try notes.writeConfig {
                $0["keys"] = ["notes": ["uuid"]]
                if rules != nil { $0["anonymize"] = "anonymize.json" }
            }
            let report = try MigrationRunner.runMatrix(config: notes.config, options: .init(from: "1.0.0"))
            return finding(try #require(report.paths.first { $0.kind == .hop }))
        }
        #expect(try run(rules: nil) == "notes: 2 of 40 rows lost (keys 'K5'; 'K6')\nnotes.title: 1 became NULL of 38 values (key 'K7': 'Note 7' -> NULL)")
        let personal = #"{"strict": false, "tables": {"notes": {"uuid": {"strategy": "pseudonym", "format": "hex"}}}}"#
        #expect(try run(rules: personal) == "notes: 2 of 40 rows lost (keys rowid 5; rowid 6)\nnotes.title: 1 became NULL of 38 values (rowid 7: 'Note 7' -> NULL)")
        let kept = #"{"strict": false, "tables": {"notes": {"uuid": "keep", "body": {"strategy": "null"}}}}"#
        #expect(try run(rules: kept) == "notes: 2 of 40 rows lost (keys 'K5'; 'K6')\nnotes.title: 1 became NULL of 38 values (key 'K7': 'Note 7' -> NULL)")
        // Rules that cannot be read: the configuration is refused, by every command that reads it.
        #expect(throws: FixtureKitError.self) { try run(rules: "{") }
    }

    @Test func unorderedJSONArraysCompareAfterSorting() throws {
        let notes = try NotesCorpus()
        _ = notes
        let sorted = PreservationCheck.sortedJSON("'[3, 1, 2]'")
        let database = try Database(path: ":memory:")
        #expect(try database.scalar("SELECT \(sorted) IS \(PreservationCheck.sortedJSON("'[1, 2, 3]'"))") == .integer(1))
        // Column affinity: '42' in a TEXT column is 42 in an INTEGER one; 3.0 is 3.
        try database.execute("CREATE TABLE s (v TEXT, r REAL); CREATE TABLE m (v INTEGER, r INTEGER); INSERT INTO s VALUES ('42', 3.0); INSERT INTO m VALUES (42, 3)")
        #expect(try database.scalar("SELECT \(PreservationCheck.sameValue("s.v", "m.v")) AND \(PreservationCheck.sameValue("s.r", "m.r")) FROM s, m") == .integer(1))
        #expect(try database.scalar("SELECT \(PreservationCheck.sameValue("'2024-01-05T09:30:00Z'", "1704447000"))") == .integer(1))
        #expect(try database.scalar("SELECT \(PreservationCheck.sameValue("'abc'", "'abd'"))") == .integer(0))
    }

    /// The rowid has another name only where SQLite gives it one: an INTEGER
    /// PRIMARY KEY, but not one declared `INTEGER PRIMARY KEY DESC`, which
    /// SQLite keeps in an index like any other key and which may hold NULL in
    /// several rows. Such a key is counted, not taken as unique.
    @Test(arguments: [
        ("(id INTEGER PRIMARY KEY, v TEXT)", "id"), ("(id integer primary key asc, v TEXT)", "id"), ("(id INTEGER, v TEXT, PRIMARY KEY (id DESC))", "id"),
        ("(id INTEGER PRIMARY KEY DESC, v TEXT)", nil), ("(id INT PRIMARY KEY, v TEXT)", nil), ("(id INTEGER, v TEXT)", nil),
        ("(id INTEGER PRIMARY KEY, v TEXT) WITHOUT ROWID", nil),
    ] as [(String, String?)])
    func onlyAKeySQLiteMakesTheRowidIsUniqueByConstruction(definition: String, rowid: String?) throws {
        let folder = try TemporaryFolder()
        let source = folder.url("source.sqlite"), migrated = folder.url("migrated.sqlite")
        let database = try Database(path: source, options: .init(create: true))
        try database.execute("CREATE TABLE t \(definition); INSERT INTO t (id, v) VALUES (1, 'a'), (2, 'b'), (3, 'c');")
        // Two rows without a key, where SQLite lets them be (a rowid alias numbers them).
        _ = try? database.execute("INSERT INTO t (id, v) VALUES (NULL, 'x'), (NULL, 'y')")
        let nullKeys = Int(try database.scalar("SELECT count(*) FROM t WHERE id IS NULL")?.integer ?? 0)
        let schema = try SchemaSnapshot(database: database)
        try database.close()
        let table = try #require(schema.tables.first)
        #expect(schema.rowidColumn(of: table) == rowid)
        #expect(PreservationCheck.isUnique(["id"], in: table, of: schema) == (rowid != nil || table.withoutRowID))
        #expect(nullKeys == (rowid != nil || table.withoutRowID ? 0 : 2))

        try FileManager.default.copyItem(atPath: source, toPath: migrated)
        let target = try Database(path: migrated)
        try target.execute("ALTER TABLE t ADD COLUMN w INTEGER")
        let check = PreservationCheck(database: target, keys: ["t": ["id"]], changes: [:], source: schema, migrated: try SchemaSnapshot(database: target))
        let results = try check.run(sourcePath: source)
        if nullKeys > 1 {
            #expect(results.first?.finding == "key (\"id\") is not unique in the source: rows cannot be matched (declare \"keys\")")
        } else {
            #expect(results.allSatisfy { $0.passed }, "\(results.map { $0.finding })")
        }
        try target.close()
    }
}
