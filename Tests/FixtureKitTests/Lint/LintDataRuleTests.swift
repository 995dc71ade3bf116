import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// The rules that count what a fixture holds: each hazard built in code, its
/// finding asserted with its code, its place and its count in each fixture; and
/// the safe form, which finds nothing.
@Suite struct LintDataRuleTests {
    static let users = "CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT, name TEXT);"

    /// A rebuild of users into a table of `columns`, its copy on line 3.
    static func rebuild(_ columns: String) -> String {
        "CREATE TABLE users_new (\(columns));\n\nINSERT INTO users_new SELECT id, email, name FROM users;\nDROP TABLE users;\nALTER TABLE users_new RENAME TO users;\n"
    }

    // MARK: - U001

    @Test func aUniqueIndexOverDuplicatesUnderItsCollation() throws {
        // Binary-distinct, equal under NOCASE: only the index's collation makes them duplicates.
        let corpus = try LintCorpus(
            schema: Self.users,
            rows: ["1.0.0": "INSERT INTO users VALUES (1, 'a@x', 'A'), (2, 'A@X', 'B'), (3, 'b@x', 'C'), (4, 'B@x', 'D'), (5, 'c@x', 'E')", "1.1.0": "INSERT INTO users VALUES (1, 'a@x', 'A'), (2, 'b@x', 'B')"],
            stage: "-- one index\n\nCREATE UNIQUE INDEX users_email ON users (email COLLATE NOCASE);\n")
        let findings = try corpus.findings(.uniqueDuplicates)
        #expect(findings.count == 1)
        let finding = try #require(findings.first)
        #expect(finding.place == "migrations/b.sql:3")
        #expect(finding.counts == ["1.0.0": 2, "1.1.0": 0])
        #expect(finding.severity == .error)
        #expect(finding.text == "U001 migrations/b.sql:3: UNIQUE on users(email) under COLLATE NOCASE fails: keys held by more than one row in 1.0.0: 'a@x' (2 rows); 'b@x' (2 rows) (fixtures: 1.0.0 2 keys, 1.1.0 0 keys)")
    }

    @Test func aRebuildThatCopiesDuplicatesIntoAUniqueColumn() throws {
        let corpus = try LintCorpus(
            schema: Self.users,
            rows: ["1.0.0": "INSERT INTO users VALUES (1, 'a@x', 'A'), (2, 'a@x', 'B'), (3, 'a@x', 'C')", "1.1.0": "INSERT INTO users VALUES (1, 'a@x', 'A')"],
            stage: Self.rebuild("id INTEGER PRIMARY KEY, email TEXT UNIQUE, name TEXT"))
        let finding = try #require(try corpus.findings(.uniqueDuplicates).first)
        #expect(finding.place == "migrations/b.sql:3")
        #expect(finding.counts == ["1.0.0": 1, "1.1.0": 0])
        #expect(finding.message == "UNIQUE on users_new(email) fails: keys held by more than one row in 1.0.0: 'a@x' (3 rows)")
    }

    @Test func aUniqueIndexOverDistinctKeysFindsNothing() throws {
        let corpus = try LintCorpus(
            schema: Self.users,
            rows: ["1.0.0": "INSERT INTO users VALUES (1, 'a@x', 'A'), (2, 'b@x', 'B'), (3, NULL, 'C'), (4, NULL, 'D')", "1.1.0": ""],
            stage: "CREATE UNIQUE INDEX users_email ON users (email COLLATE NOCASE);\n")
        #expect(try corpus.lint() == LintReport(findings: [], problems: []))
    }

    // MARK: - N001

    @Test func aNotNullColumnWithoutDefaultOnATableWithRows() throws {
        let corpus = try LintCorpus(
            schema: Self.users, rows: ["1.0.0": "INSERT INTO users VALUES (1, 'a@x', 'A'), (2, 'b@x', 'B'), (3, 'c@x', 'C')", "1.1.0": ""],
            stage: "ALTER TABLE users ADD COLUMN phone TEXT NOT NULL;\n")
        let finding = try #require(try corpus.findings(.notNull).first)
        #expect(finding.text == "N001 migrations/b.sql:1: ADD COLUMN ... NOT NULL without a DEFAULT fails on users, which has rows (give it a DEFAULT) (fixtures: 1.0.0 3 rows, 1.1.0 0 rows)")
    }

    @Test func aRebuildThatCopiesNullsIntoANotNullColumn() throws {
        let corpus = try LintCorpus(
            schema: Self.users,
            rows: ["1.0.0": "INSERT INTO users VALUES (1, NULL, 'A'), (2, 'b@x', 'B'), (3, NULL, 'C')", "1.1.0": "INSERT INTO users VALUES (1, 'a@x', 'A')"],
            stage: Self.rebuild("id INTEGER PRIMARY KEY, email TEXT NOT NULL, name TEXT"))
        let finding = try #require(try corpus.findings(.notNull).first)
        #expect(finding.place == "migrations/b.sql:3")
        #expect(finding.counts == ["1.0.0": 2, "1.1.0": 0])
        #expect(finding.message == "NOT NULL on users_new.email fails: rows would hold NULL")
    }

    @Test func aNotNullColumnWithADefaultFindsNothing() throws {
        let corpus = try LintCorpus(
            schema: Self.users, rows: ["1.0.0": "INSERT INTO users VALUES (1, 'a@x', 'A')", "1.1.0": ""],
            stage: "ALTER TABLE users ADD COLUMN phone TEXT NOT NULL DEFAULT '';\n")
        #expect(try corpus.lint().findings.isEmpty)
    }

    // MARK: - D001

    static let notes = """
        CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT, body TEXT);
        CREATE TABLE drafts (id INTEGER PRIMARY KEY, text TEXT);
        """
    static let noteRows = [
        "1.0.0": "INSERT INTO notes VALUES (1, 't', 'b'), (2, 't', NULL), (3, 't', 'b'); INSERT INTO drafts VALUES (1, 'x'), (2, 'y')",
        "1.1.0": "INSERT INTO notes VALUES (1, 't', NULL)",
    ]

    @Test func aDropOfATableThatHoldsRows() throws {
        let corpus = try LintCorpus(schema: Self.notes, rows: Self.noteRows, stage: "DROP TABLE drafts;\n")
        let finding = try #require(try corpus.findings(.undeclaredDrop).first)
        #expect(finding.text == "D001 migrations/b.sql:1: DROP TABLE drafts drops rows a fixture holds, and neither \"counts\" nor \"changes\" declares \"drafts\" dropped (fixtures: 1.0.0 2 rows, 1.1.0 0 rows)")
    }

    /// A column the stage read is not counted before the drop (no rule asks for
    /// it), but the rows still are: a read alone is no copy.
    @Test func aDropAfterAReadOfEveryColumnStillCountsItsRows() throws {
        let corpus = try LintCorpus(schema: Self.notes, rows: Self.noteRows, stage: "SELECT id, text FROM drafts;\nDROP TABLE drafts;\n")
        let finding = try #require(try corpus.findings(.undeclaredDrop).first)
        #expect(finding.place == "migrations/b.sql:2")
        #expect(finding.counts == ["1.0.0": 2, "1.1.0": 0])
    }

    /// The values are counted before any ALTER TABLE whose text says DROP, however spelled.
    @Test(arguments: [
        "ALTER TABLE notes DROP COLUMN body;", "alter table notes drop body;", "ALTER TABLE notes /* no rename */ DrOp COLUMN \"body\";",
    ])
    func aDropOfAColumnThatHoldsValues(_ drop: String) throws {
        let corpus = try LintCorpus(schema: Self.notes, rows: Self.noteRows, stage: "SELECT 1;\n\(drop)\n")
        let finding = try #require(try corpus.findings(.undeclaredDrop).first)
        #expect(finding.place == "migrations/b.sql:2")
        #expect(finding.counts == ["1.0.0": 2, "1.1.0": 0])
        #expect(finding.message == "DROP COLUMN notes.body drops values a fixture holds, and \"changes\" does not declare \"notes.body\": \"dropped\"")
    }

    @Test func aDeclaredDropFindsNothing() throws {
        let corpus = try LintCorpus(schema: Self.notes, rows: Self.noteRows, stage: "DROP TABLE drafts;\nALTER TABLE notes DROP COLUMN body;\n") { object in
            object["counts"] = ["drafts": "dropped"]
            object["changes"] = ["notes.body": "dropped"]
        }
        #expect(try corpus.lint().findings.isEmpty)
    }

    /// Only an ALTER TABLE whose text holds DROP is counted before it runs: the
    /// rename that ends every rebuild is not, unless a name holds the word.
    @Test func onlyAStatementThatSaysDropCanDropAColumn() {
        for sql in ["ALTER TABLE notes DROP COLUMN body", "alter table notes drop body", "ALTER TABLE notes RENAME TO dropped_notes"] {
            #expect(LintWatcher.mayDropColumn(sql), "\(sql)")
        }
        for sql in ["ALTER TABLE notes_new RENAME TO notes", "ALTER TABLE notes ADD COLUMN pinned INTEGER", "ALTER TABLE notes RENAME COLUMN body TO text"] {
            #expect(!LintWatcher.mayDropColumn(sql), "\(sql)")
        }
    }

    @Test func aRenamedColumnIsNotADrop() throws {
        let corpus = try LintCorpus(schema: Self.notes, rows: Self.noteRows, stage: "ALTER TABLE notes RENAME COLUMN body TO text;\n")
        #expect(try corpus.lint().findings.isEmpty)
    }

    // MARK: - R001

    @Test func aRebuildThatForgetsAColumn() throws {
        let corpus = try LintCorpus(schema: Self.notes, rows: Self.noteRows, stage: """
            CREATE TABLE notes_new (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '', body TEXT);
            INSERT INTO notes_new (id, title)
              SELECT id, title FROM notes;
            DROP TABLE notes;
            ALTER TABLE notes_new RENAME TO notes;
            """)
        let findings = try corpus.lint().findings
        #expect(findings.map(\.text) == ["R001 migrations/b.sql:2: the rebuild of notes never reads notes.body, which the new table keeps: its values are lost (fixtures: 1.0.0 2 rows, 1.1.0 0 rows)"])
    }

    /// The columns read before the drop are matched as SQLite matches names (in
    /// any case) and the rest counted under hostile names: the forgotten one's count
    /// is exact. (The message names the table as the watcher keys it, lower-cased.)
    @Test func aRebuildThatForgetsAColumnUnderHostileNames() throws {
        let corpus = try LintCorpus(
            schema: "CREATE TABLE \"No\"\"tes\" (Id INTEGER PRIMARY KEY, \"Ti tle\" TEXT, \"bo\"\"dy\" TEXT);",
            rows: ["1.0.0": "INSERT INTO \"No\"\"tes\" VALUES (1, 't', 'b'), (2, 't', NULL), (3, 't', 'b')", "1.1.0": ""],
            stage: """
            CREATE TABLE n (id INTEGER PRIMARY KEY, "ti tle" TEXT, "bo""dy" TEXT);
            INSERT INTO n (id, "ti tle") SELECT ID, "TI TLE" FROM "no""TES";
            DROP TABLE "No""tes";
            ALTER TABLE n RENAME TO "No""tes";
            """)
        let findings = try corpus.lint().findings
        #expect(findings.map(\.text) == [#"R001 migrations/b.sql:2: the rebuild of no"tes never reads no"tes.bo"dy, which the new table keeps: its values are lost (fixtures: 1.0.0 2 rows, 1.1.0 0 rows)"#])
    }

    @Test func aRebuildThatCopiesEveryColumnFindsNothing() throws {
        let corpus = try LintCorpus(schema: Self.notes, rows: Self.noteRows, stage: """
            CREATE TABLE notes_new (id INTEGER PRIMARY KEY, title TEXT NOT NULL DEFAULT '', body TEXT);
            INSERT INTO notes_new SELECT * FROM notes;
            DROP TABLE notes;
            ALTER TABLE notes_new RENAME TO notes;
            """)
        #expect(try corpus.lint().findings.isEmpty)
    }
}
