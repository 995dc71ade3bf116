import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// `foreign_key_check` failures name the table, the rowid, the parent table and
/// the foreign key, at most 5 per table with the count, in every report.
@Suite struct ForeignKeyReportTests {
    /// A stage that points 7 notes at a folder and a tag link at a tag that do not exist.
    static let stage = """
        UPDATE notes SET folder_id = 99 WHERE id IN (3, 5, 8, 13, 21, 34, 40);
        CREATE TABLE links (note_id INTEGER NOT NULL REFERENCES notes(id), tag_id INTEGER NOT NULL REFERENCES tags(id), PRIMARY KEY (note_id, tag_id)) WITHOUT ROWID;
        INSERT INTO links VALUES (1, 1), (2, 77);
        INSERT INTO tags (id, name) VALUES (1, 'home');
        """

    static let expectedMessage = """
        8 rows violate a foreign key
        links: 1 row: a row without rowid: foreign key 0 (tag_id) -> tags(id)
        notes: 7 rows, the first 5: rowid 3: foreign key 0 (folder_id) -> folders(id); rowid 5: foreign key 0 (folder_id) -> folders(id); \
        rowid 8: foreign key 0 (folder_id) -> folders(id); rowid 13: foreign key 0 (folder_id) -> folders(id); rowid 21: foreign key 0 (folder_id) -> folders(id)
        """

    func corpus() throws -> NotesCorpus {
        let notes = try NotesCorpus()
        try notes.folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", NotesCorpus.stage1to2 + "\n" + Self.stage + "\n")
        // The links table is not in 2.0.0's schema: only the foreign keys are looked at here.
        return notes
    }

    @Test func theFindingsNameRowsParentsAndKeys() throws {
        let notes = try corpus()
        let report = try MigrationRunner.runMatrix(config: notes.config, options: .init(from: "1.0.0"))
        let hop = try #require(report.paths.first { $0.kind == .hop })
        let check = try #require(hop.check("foreign_key_check"))
        #expect(!check.passed)
        #expect(check.message == Self.expectedMessage)
        let violations = try #require(check.foreignKeyViolations)
        #expect(violations.map(\.table) == ["links", "notes"])
        #expect(violations.map(\.count) == [1, 7])
        #expect(violations[1].rows.map(\.rowid) == [3, 5, 8, 13, 21])
        #expect(violations[1].rows[0] == .init(rowid: 3, parent: "folders", foreignKey: 0, columns: ["folder_id"], parentColumns: ["id"]))
        #expect(violations[0].rows == [.init(rowid: nil, parent: "tags", foreignKey: 0, columns: ["tag_id"], parentColumns: ["id"])])
    }

    @Test func everyReportCarriesThem() throws {
        let notes = try corpus()
        let junit = notes.folder.url("junit.xml"), html = notes.folder.url("report.html")
        let result = fixturekit("migrate", "--config", notes.config, "--from", "1.0.0", "--json", "--junit", junit, "--html", html)
        #expect(result.status == 1, "\(result.standardError)")
        // Text.
        #expect(result.standardError.contains("rowid 13: foreign key 0 (folder_id) -> folders(id)"), "\(result.standardError)")
        #expect(!result.standardError.contains("rowid 34"))
        // JSON: the message and the rows, each field by name.
        let json = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        let paths = try #require(json?["paths"] as? [[String: Any]])
        let hop = try #require(paths.first { ($0["kind"] as? String) == "hop" })
        let check = try #require((hop["checks"] as? [[String: Any]])?.first { ($0["name"] as? String) == "foreign_key_check" })
        #expect(check["message"] as? String == Self.expectedMessage)
        let violations = try #require(check["foreignKeyViolations"] as? [[String: Any]])
        #expect(violations[1]["table"] as? String == "notes")
        #expect(violations[1]["count"] as? Int == 7)
        #expect((violations[0]["rows"] as? [[String: Any]])?.first?["rowid"] == nil)
        let first = try #require((violations[1]["rows"] as? [[String: Any]])?.first)
        #expect(first["rowid"] as? Int == 3)
        #expect(first["parent"] as? String == "folders")
        #expect(first["foreignKey"] as? Int == 0)
        #expect(first["columns"] as? [String] == ["folder_id"])
        #expect(first["parentColumns"] as? [String] == ["id"])
        // JUnit and HTML.
        let xml = String(decoding: try notes.folder.read("junit.xml"), as: UTF8.self)
        #expect(xml.contains("notes: 7 rows, the first 5: rowid 3: foreign key 0 (folder_id) -&gt; folders(id)"), "\(xml)")
        let page = String(decoding: try notes.folder.read("report.html"), as: UTF8.self)
        #expect(page.contains("notes: 7 rows, the first 5: rowid 3: foreign key 0 (folder_id) -&gt; folders(id)"))
        _ = html
    }

    /// Many violations are read as they come: the count is exact, the rows named stay 5.
    @Test func manyViolationsKeepFiveRowsAndTheCount() throws {
        let database = try Database(path: ":memory:")
        try database.execute("""
            CREATE TABLE parent (id INTEGER PRIMARY KEY);
            CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id));
            WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < 20000) INSERT INTO child SELECT n, n FROM i;
            """)
        let result = try MigrationChecks.foreignKeys(database, baseline: 0)
        #expect(result.foreignKeyViolations?.first?.count == 20000)
        #expect(result.foreignKeyViolations?.first?.rows.count == 5)
        #expect(result.message?.hasPrefix("20000 rows violate a foreign key\nchild: 20000 rows, the first 5: rowid 1: foreign key 0 (parent_id) -> parent(id); ") == true)
        // Against a baseline, as `upgrade` checks a live store that had some before.
        #expect(try MigrationChecks.foreignKeys(database, baseline: 20000).passed)
        #expect(try MigrationChecks.foreignKeys(database, baseline: 19999).message?.hasPrefix("20000 rows violate a foreign key (19999 before the migration)\n") == true)
    }
}
