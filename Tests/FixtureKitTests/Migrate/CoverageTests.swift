import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// Coverage is reported, not implied: each path names the tables and columns
/// of its target that no value of its source fixture stands for.
@Suite struct CoverageTests {
    /// The 1.0.0 -> 2.0.0 stage of the Notes corpus, then a rebuild of `notes`
    /// that forgets the `created_at` values the same stage just wrote: the
    /// schema still matches 2.0.0's, and no fixture holds a `created_at` to
    /// compare with.
    static let addAndRebuild = NotesCorpus.stage1to2 + """

        CREATE TABLE notes_new (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, title TEXT, body TEXT, created_at TEXT, folder_id INTEGER REFERENCES folders(id));
        INSERT INTO notes_new (id, uuid, title, body, folder_id) SELECT id, uuid, title, body, folder_id FROM notes;
        DROP TABLE notes;
        ALTER TABLE notes_new RENAME TO notes;

        """

    static let hopUnchecked = [
        "folders: not in 1.0.0",
        "notes.created_at: not in 1.0.0",
        "notes.folder_id: not in 1.0.0",
        "tags: not in 1.0.0",
    ]

    @Test func aColumnAddedAndRebuiltInOneHopIsUncheckedInEveryReport() throws {
        let notes = try NotesCorpus()
        try notes.folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", Self.addAndRebuild)
        let junit = notes.folder.url("migrate.xml"), page = notes.folder.url("migrate.html")
        // The lint would find the rebuild that forgets created_at (R001): the coverage alone is tested here.
        let result = fixturekit("migrate", "--config", notes.config, "--from", "1.0.0", "--json", "--junit", junit, "--html", page, "--no-lint")
        // The rebuild lost every created_at, and every check passes: only the coverage says so.
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardError.split(separator: "\n").map(String.init)
        let hop = try #require(lines.firstIndex { $0.hasPrefix("PASS  hop 1.0.0 -> 2.0.0") })
        #expect(Array(lines[(hop + 1)...(hop + 4)]) == Self.hopUnchecked.map { "      unchecked: " + $0 }, "\(result.standardError)")
        #expect(lines[hop + 5].hasPrefix("      time: "))
        // A table created and filled by the stage (folders), and one created empty (tags), are named whole.
        let report = try JSONDecoder().decode(MigrationReport.self, from: Data(result.standardOutput.utf8))
        let hopResult = try #require(report.paths.first { $0.kind == .hop })
        #expect(hopResult.unchecked?.map(\.line) == Self.hopUnchecked)
        #expect(hopResult.unchecked?.first == UncheckedValues(table: "folders", column: nil, reason: .new, why: "not in 1.0.0"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let paths = try #require(object["paths"] as? [[String: Any]])
        let json = try #require(paths.first { $0["kind"] as? String == "hop" }?["unchecked"] as? [[String: Any]])
        #expect(json[1] as NSDictionary == ["table": "notes", "column": "created_at", "reason": "new", "why": "not in 1.0.0"] as NSDictionary)
        // JUnit: lines of the suite's system-out.
        let xml = String(decoding: try notes.folder.read("migrate.xml"), as: UTF8.self)
        let out = Self.hopUnchecked.map { "hop 1.0.0 -&gt; 2.0.0: unchecked: \($0)" }.joined(separator: "&#10;")
        #expect(xml.contains("    <system-out>") && xml.contains(out + "</system-out>\n  </testsuite>\n"), "\(xml)")
        // HTML: in the path's data diff, and counted in its summary.
        let html = String(decoding: try notes.folder.read("migrate.html"), as: UTF8.self)
        #expect(html.contains("<summary>hop 1.0.0 -&gt; 2.0.0: every value preserved, 4 unchecked</summary>"), "\(html)")
        #expect(html.contains("<ul class=\"unchecked\">\n" + Self.hopUnchecked.map { "<li><code>\($0)</code></li>\n" }.joined() + "</ul>\n"))
        // --quiet keeps problems only: coverage is not one.
        let quiet = fixturekit("migrate", "--config", notes.config, "--from", "1.0.0", "--quiet", "--no-lint")
        #expect(quiet.status == 0)
        #expect(!quiet.standardError.contains("unchecked"))
    }

    @Test func whatTheSourceHoldsAValueForIsPrecise() throws {
        let corpus = try CoverageCorpus()
        let report = try MigrationRunner.runMatrix(config: corpus.config)
        let path = try #require(report.paths.first)
        #expect(path.passed, "\(String(describing: path.firstFailure))")
        #expect(path.unchecked?.map(\.line) == [
            "attachments: declared \"excluded\"",
            "drafts: no rows in 1.0.0",
            "faxes.id: not in 1.0.0",
            "faxes.contact_id: NULL in every row of 1.0.0 (as contacts.fax)",
            "faxes.number: NULL in every row of 1.0.0 (as contacts.fax)",
            "folders: not in 1.0.0",
            "labels: no rows in 1.0.0 (as tags)",
            "notes.archived_at: NULL in every row of 1.0.0",
            "notes.legacy: declared \"dropped\"",
            "notes.color: not in 1.0.0",
            "phones.id: not in 1.0.0",
        ])
        #expect(path.unchecked?.map(\.reason) == [.declared, .empty, .new, .null, .null, .new, .empty, .null, .declared, .new, .new])
        // Not listed: contacts.id, phones.number and phones.contact_id (a move
        // of values that are there), notes.late (one value, past the first
        // thousand rows), notes.title and notes.subject (renamed from notes.heading).
    }

    @Test func aPathThatCannotCompareValuesListsNothing() throws {
        let notes = try NotesCorpus()
        try notes.folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", "SELECT no_such_function();")
        let report = try MigrationRunner.runMatrix(config: notes.config, options: .init(from: "1.0.0"))
        #expect(report.paths.allSatisfy { $0.unchecked == nil })
    }
}

/// A two-version corpus whose one stage makes every case of coverage: a
/// column added, a table created and filled, a column NULL in every row of
/// the source and one NULL in all but its last, an empty table kept and one
/// renamed, a move of values and a move of NULLs, a table excluded, and a
/// column declared dropped that stays.
struct CoverageCorpus: CodeBuiltCorpus {
    let folder: TemporaryFolder

    static let schema1 = """
        CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT, heading TEXT, archived_at TEXT, late TEXT, legacy TEXT);
        CREATE TABLE contacts (id INTEGER PRIMARY KEY, phone TEXT, fax TEXT);
        CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE attachments (id INTEGER PRIMARY KEY, data BLOB);
        CREATE TABLE drafts (id INTEGER PRIMARY KEY, text TEXT);
        """
    static let schema2 = """
        CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT, subject TEXT, archived_at TEXT, late TEXT, legacy TEXT, color TEXT);
        CREATE TABLE contacts (id INTEGER PRIMARY KEY);
        CREATE TABLE phones (id INTEGER PRIMARY KEY, contact_id INTEGER, number TEXT);
        CREATE TABLE faxes (id INTEGER PRIMARY KEY, contact_id INTEGER, number TEXT);
        CREATE TABLE labels (id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE attachments (id INTEGER PRIMARY KEY, data BLOB);
        CREATE TABLE drafts (id INTEGER PRIMARY KEY, text TEXT);
        CREATE TABLE folders (id INTEGER PRIMARY KEY, name TEXT);
        """
    static let stage = """
        ALTER TABLE notes RENAME COLUMN heading TO subject;
        ALTER TABLE notes ADD COLUMN color TEXT;
        UPDATE notes SET color = 'red';
        CREATE TABLE phones (id INTEGER PRIMARY KEY, contact_id INTEGER, number TEXT);
        INSERT INTO phones (contact_id, number) SELECT id, phone FROM contacts WHERE phone IS NOT NULL;
        CREATE TABLE faxes (id INTEGER PRIMARY KEY, contact_id INTEGER, number TEXT);
        ALTER TABLE contacts DROP COLUMN phone;
        ALTER TABLE contacts DROP COLUMN fax;
        ALTER TABLE tags RENAME TO labels;
        UPDATE attachments SET data = NULL;
        CREATE TABLE folders (id INTEGER PRIMARY KEY, name TEXT);
        INSERT INTO folders (name) VALUES ('Inbox');
        """

    init() throws {
        folder = try TemporaryFolder()
        try make("1.0.0", schema: Self.schema1) { database in
            // 1,500 notes: `late` holds one value, in the last row, past the first thousand.
            try database.execute("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500)
                INSERT INTO notes (id, title, heading, late, legacy) SELECT i, 'Note ' || i, 'Heading ' || i, CASE WHEN i = 1500 THEN 'late' END, 'old' FROM n;
                INSERT INTO contacts (id, phone) VALUES (1, '555 0101'), (2, NULL), (3, '555 0103');
                INSERT INTO attachments (data) VALUES (X'00'), (X'01');
                """)
        }
        try make("2.0.0", schema: Self.schema2)
        try folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", Self.stage)
        try writeConfiguration([
            "store": "App.sqlite",
            "current": "2.0.0",
            "supported": ["1.0.0"],
            "stages": [["from": "1.0.0", "to": "2.0.0", "sql": "migrations/1.0.0-2.0.0.sql"]],
            "counts": ["phones": "changes", "faxes": "changes", "folders": "changes"],
            "changes": [
                "contacts.phone": ["movedTo": "phones.number", "key": "phones.contact_id"],
                "contacts.fax": ["movedTo": "faxes.number", "key": "faxes.contact_id"],
                "attachments": "excluded",
                "notes.legacy": "dropped",
            ],
            "renames": ["notes.heading": "notes.subject", "tags": "labels"],
        ])
    }
}
