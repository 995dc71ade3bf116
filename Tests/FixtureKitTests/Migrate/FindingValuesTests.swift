import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// Findings show what a person needs: the values before and after for the
/// columns the rules keep, `(personal)` for the others, at most 5 rows; a
/// dropped column says so.
@Suite struct FindingValuesTests {
    /// The finding of the 1.0.0 -> 2.0.0 hop with `extra` appended to its stage,
    /// under `rules` when given.
    static func finding(_ extra: String, rules: String? = nil) throws -> String? {
        let notes = try NotesCorpus()
        try notes.folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", NotesCorpus.stage1to2 + "\n" + extra + "\n")
        if let rules { try notes.folder.write("MigrationFixtures/anonymize.json", rules) }
        try notes.writeConfig { if rules != nil { $0["anonymize"] = "anonymize.json" } }
        let report = try MigrationRunner.runMatrix(config: notes.config, options: .init(from: "1.0.0"))
        return try #require(report.paths.first { $0.kind == .hop }).check("data preserved")?.message
    }

    static let x40 = String(repeating: "y", count: 40)

    /// Each kind of difference and each storage class, as the finding writes it.
    static let cases: [(String, String)] = [
        ("UPDATE notes SET body = NULL WHERE id = 3", "notes.body: 1 became NULL of 40 values (key 3: 'Body 3' -> NULL)"),
        ("UPDATE notes SET body = '' WHERE id = 3", "notes.body: 1 became empty of 40 values (key 3: 'Body 3' -> '')"),
        ("UPDATE notes SET body = 'Bod' WHERE id = 3", "notes.body: 1 truncated of 40 values (key 3: 'Body 3' -> 'Bod')"),
        ("UPDATE notes SET body = 'It''s' WHERE id = 3", "notes.body: 1 changed of 40 values (key 3: 'Body 3' -> 'It''s')"),
        // In a TEXT column a number is stored as text, and shown so.
        ("UPDATE notes SET body = 2.5 WHERE id = 3", "notes.body: 1 changed of 40 values (key 3: 'Body 3' -> '2.5')"),
        ("UPDATE notes SET body = X'00FF' WHERE id = 3", "notes.body: 1 changed of 40 values (key 3: 'Body 3' -> X'00FF')"),
        // A value on two lines stays on the finding's one line.
        ("UPDATE notes SET body = 'one' || char(10) || 'two' || char(9) WHERE id = 3", "notes.body: 1 changed of 40 values (key 3: 'Body 3' -> 'one\\ntwo\\t')"),
        // Long values are cut and counted.
        ("UPDATE notes SET body = printf('%.300c', 'y') WHERE id = 3", "notes.body: 1 changed of 40 values (key 3: 'Body 3' -> '\(x40)'... (300 characters))"),
        ("UPDATE notes SET body = zeroblob(64) WHERE id = 3", "notes.body: 1 changed of 40 values (key 3: 'Body 3' -> X'\(String(repeating: "00", count: 20))'... (64 bytes))"),
        // At most five rows, in key order.
        ("UPDATE notes SET body = 'x' WHERE id BETWEEN 3 AND 9",
         "notes.body: 7 changed of 40 values (key 3: 'Body 3' -> 'x'; key 4: 'Body 4' -> 'x'; key 5: 'Body 5' -> 'x'; key 6: 'Body 6' -> 'x'; key 7: 'Body 7' -> 'x')"),
    ]

    @Test(arguments: cases)
    func eachKindOfDifferenceShowsBothValues(_ extra: String, _ expected: String) throws {
        #expect(try Self.finding(extra) == expected)
    }

    /// The rules keep `title`, make `body` personal, and `uuid` the key.
    static let rules = #"{"strict": false, "tables": {"notes": {"uuid": "keep", "title": "keep", "body": {"strategy": "pseudonym", "format": "hex"}}}}"#

    @Test func aKeptColumnShowsItsValuesAndAPersonalColumnNever() throws {
        let changed = "UPDATE notes SET title = 'T' || id, body = 'B' || id WHERE id IN (2, 3); UPDATE notes SET body = NULL WHERE id = 4; UPDATE notes SET body = '' WHERE id = 5;"
        let finding = try Self.finding(changed, rules: Self.rules)
        #expect(finding == """
            notes.title: 2 changed of 40 values (key 2: 'Note 2' -> 'T2'; key 3: 'Note 3' -> 'T3')
            notes.body: 1 became NULL, 1 became empty, 2 changed of 40 values (key 2: (personal) -> (personal); key 3: (personal) -> (personal); key 4: (personal) -> NULL; key 5: (personal) -> '')
            """)
        #expect(finding?.contains("Body") == false)
        // A personal key names rows by rowid; the kept column's values stay.
        let personalKey = Self.rules.replacingOccurrences(of: #""uuid": "keep""#, with: #""uuid": {"strategy": "pseudonym", "format": "hex"}"#)
        let notes = try NotesCorpus()
        try notes.folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", NotesCorpus.stage1to2 + "\n" + changed + "\n")
        try notes.folder.write("MigrationFixtures/anonymize.json", personalKey)
        try notes.writeConfig {
            $0["anonymize"] = "anonymize.json"
            $0["keys"] = ["notes": ["uuid"]]
        }
        let report = try MigrationRunner.runMatrix(config: notes.config, options: .init(from: "1.0.0"))
        let hop = try #require(report.paths.first { $0.kind == .hop })
        #expect(hop.check("data preserved")?.message?.hasPrefix("notes.title: 2 changed of 40 values (rowid 2: 'Note 2' -> 'T2'; rowid 3: 'Note 3' -> 'T3')\n") == true)
        let title = try #require(hop.preservation.first { $0.column == "title" })
        #expect(title.exampleValues == [ValueChange(key: "rowid 2", before: "'Note 2'", after: "'T2'"), ValueChange(key: "rowid 3", before: "'Note 3'", after: "'T3'")])
        #expect(title.exampleKeys == ["rowid 2", "rowid 3"])
    }

    /// The case that asked for it: a time of day turned into a whole date in seconds.
    @Test func aTimeTurnedIntoSecondsShowsWhatItBecame() throws {
        let corpus = try EventsCorpus()
        let report = try MigrationRunner.runMatrix(config: corpus.config)
        let path = try #require(report.paths.first)
        #expect(path.check("data preserved")?.message == """
            events.event_date: 48 changed of 1500 values (key 1: '04:02:36' -> 1680408155; key 2: '04:02:37' -> 1680408156; key 3: '04:02:38' -> 1680408157; key 4: '04:02:39' -> 1680408158; key 5: '04:02:40' -> 1680408159)
            events.guest: 48 changed of 1500 values (key 1: (personal) -> (personal); key 2: (personal) -> (personal); key 3: (personal) -> (personal); key 4: (personal) -> (personal); key 5: (personal) -> (personal))
            """)
    }

    @Test func movedValuesShowWhereTheyWent() throws {
        let contacts = try ContactsCorpus()
        try contacts.writeStage(ContactsCorpus.stage.replacingOccurrences(of: "WHERE phone IS NOT NULL", with: "WHERE phone IS NOT NULL AND id > 1")
            + "\nUPDATE phones SET number = NULL WHERE contact_id = 2;\nUPDATE phones SET number = '0' WHERE contact_id = 3;\n")
        // Under rules that make only the names personal.
        try contacts.writeConfig()
        try contacts.folder.write("MigrationFixtures/rules.json", #"{"tables": {"contacts": {"fullname": {"strategy": "fake", "kind": "name"}}}}"#)
        let path = try contacts.migrate()
        #expect(path.check("data preserved")?.message == "contacts.phone -> phones.number: 1 lost, 1 became NULL, 1 changed of 6 values (key 1: '+49 30 555 01' -> no row; key 2: '+49 30 555 02' -> NULL; key 3: '+49 30 555 03' -> '0')")
    }

    @Test func aDroppedColumnAndTableSayDroppedInJSON() throws {
        let notes = try NotesCorpus()
        try notes.folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", NotesCorpus.stage1to2 + "\nALTER TABLE notes DROP COLUMN body;\nDROP TABLE drafts;\n")
        try notes.writeConfig { $0["changes"] = ["notes.body": "dropped"] }
        let result = fixturekit("migrate", "--config", notes.config, "--from", "1.0.0", "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any], "\(result.standardError)")
        let paths = try #require(object["paths"] as? [[String: Any]])
        let preservation = try #require(paths.first { $0["kind"] as? String == "hop" }?["preservation"] as? [[String: Any]])
        let body = try #require(preservation.first { $0["table"] as? String == "notes" && $0["column"] as? String == "body" })
        #expect(body["dropped"] as? Int == 40)
        #expect(body["nulled"] as? Int == 0)
        #expect(body["passed"] as? Bool == true)
        // drafts, declared dropped in counts: its 2 rows went with it.
        let drafts = try #require(preservation.first { $0["table"] as? String == "drafts" && $0["column"] == nil })
        #expect(drafts["dropped"] as? Int == 2)
        #expect(drafts["lost"] as? Int == 0)
        // A column still there has no `dropped`.
        #expect(preservation.first { $0["column"] as? String == "title" }?["dropped"] == nil)
    }

    /// `upgrade` migrates a user's own store: it shows the values of the columns
    /// the rules `keep`, and of no other.
    @Test func upgradeShowsOnlyTheValuesTheRulesKeep() throws {
        let notes = try NotesCorpus.forUpgrade()
        try notes.folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", NotesCorpus.stage1to2 + "\nUPDATE notes SET title = 'x', body = 'y' WHERE id = 2;\n")
        try notes.folder.write("MigrationFixtures/anonymize.json", #"{"strict": false, "tables": {"notes": {"title": "keep"}}}"#)
        try notes.writeConfig {
            $0["userVersions"] = NotesCorpus.userVersions
            $0["anonymize"] = "anonymize.json"
        }
        let store = try NotesCorpus.liveStore(in: notes.folder.url("live"))
        let result = fixturekit("upgrade", store, "--config", notes.config)
        #expect(result.status == 1)
        #expect(result.standardError.contains("\n      notes.title: 1 changed of 30 values (key 2: 'Note 2' -> 'x')\n      notes.body: 1 changed of 30 values (key 2: (personal) -> (personal))\n"), "\(result.standardError)")
    }
}

/// One version to the next, whose stage rebuilds `events` with an INTEGER
/// `event_date` and turns 48 of its 1,500 times of day (text) into seconds
/// since 1970 on the way, and rewrites the personal `guest` of the same rows.
struct EventsCorpus: CodeBuiltCorpus {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
        let schema = "CREATE TABLE events (id INTEGER PRIMARY KEY, event_date TEXT, guest TEXT);"
        try make("1.0.0", schema: schema) { database in
            try database.execute("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500)
                INSERT INTO events SELECT i, time(14555 + i, 'unixepoch'), 'Guest ' || i FROM n;
                """)
        }
        try make("2.0.0", schema: "CREATE TABLE events (id INTEGER PRIMARY KEY, event_date INTEGER, guest TEXT);")
        try folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", """
            CREATE TABLE events_new (id INTEGER PRIMARY KEY, event_date INTEGER, guest TEXT);
            INSERT INTO events_new SELECT id, CASE WHEN id <= 48 THEN 1680393599 + unixepoch('1970-01-01 ' || event_date) ELSE event_date END,
              CASE WHEN id <= 48 THEN 'G' || id ELSE guest END FROM events;
            DROP TABLE events;
            ALTER TABLE events_new RENAME TO events;

            """)
        try folder.write("MigrationFixtures/anonymize.json", #"{"strict": false, "tables": {"events": {"event_date": "keep", "guest": {"strategy": "fake", "kind": "name"}}}}"#)
        try writeConfiguration([
            "store": "App.sqlite", "current": "2.0.0", "supported": ["1.0.0"], "anonymize": "anonymize.json",
            "stages": [["from": "1.0.0", "to": "2.0.0", "sql": "migrations/1.0.0-2.0.0.sql"]],
        ])
    }
}
