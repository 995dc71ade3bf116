import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// The rules about what a schema change does to the rows and objects already
/// there: a CHECK or FOREIGN KEY that rows violate (C001), a column's affinity
/// changed (A001), the views, triggers and indexes of a rebuilt or renamed table
/// (L001, under both `legacy_alter_table` settings). Each hazard and its safe form.
@Suite struct LintSchemaRuleTests {
    static let users = LintDataRuleTests.users
    /// 1.0.0 holds two e-mail addresses without `@` and two names that an INTEGER column would not keep as written; 1.1.0 neither.
    static let rows = [
        "1.0.0": "INSERT INTO users VALUES (1, 'a@x', 'A'), (2, 'b', '012'), (3, 'c', 'C'), (4, 'd@x', '7.50'), (5, 'e@x', '12')",
        "1.1.0": "INSERT INTO users VALUES (1, 'a@x', 'A')",
    ]

    static func rebuild(_ columns: String) -> String { LintDataRuleTests.rebuild(columns) }

    // MARK: - C001

    @Test func anAddedColumnWithACheckThatRowsViolate() throws {
        let corpus = try LintCorpus(schema: Self.users, rows: Self.rows, stage: "SELECT 1;\nALTER TABLE users ADD COLUMN domain TEXT DEFAULT 'x' CHECK (email LIKE '%@%');\n")
        let findings = try corpus.lint().findings
        #expect(findings.map(\.text) == [
            "C001 migrations/b.sql:2: ADD COLUMN to users fails: rows violate its CHECK (SQLite checks it on ADD COLUMN since 3.37.0) (fixtures: 1.0.0 2 rows, 1.1.0 0 rows)",
        ])
        #expect(findings.first?.severity == .error)
    }

    @Test func aRebuildThatCopiesRowsACheckRefuses() throws {
        let corpus = try LintCorpus(schema: Self.users, rows: Self.rows, stage: Self.rebuild("id INTEGER PRIMARY KEY, email TEXT CHECK (email LIKE '%@%'), name TEXT"))
        let findings = try corpus.lint().findings
        #expect(findings.map(\.text) == [
            "C001 migrations/b.sql:3: CHECK constraint failed: email LIKE '%@%' in users_new: rows the statement writes violate it (fixtures: 1.0.0 2 rows, 1.1.0 0 rows)",
        ])
    }

    static let folders = """
        CREATE TABLE folders (id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE notes (id INTEGER PRIMARY KEY, folder_id INTEGER, title TEXT);
        """
    /// 1.0.0's notes 2 and 3 are in folders that are not there (9, 8); 1.1.0's are all in one.
    static let noteRows = [
        "1.0.0": "INSERT INTO folders VALUES (1, 'a'); INSERT INTO notes VALUES (1, 1, 'x'), (2, 9, 'y'), (3, 8, 'z'), (4, NULL, 'w')",
        "1.1.0": "INSERT INTO folders VALUES (1, 'a'); INSERT INTO notes VALUES (1, 1, 'x')",
    ]
    /// notes rebuilt with a foreign key to folders, followed by foreign_key_check (so FK001 has nothing to say).
    static let noteRebuild = """
        CREATE TABLE notes_new (id INTEGER PRIMARY KEY, folder_id INTEGER REFERENCES folders(id), title TEXT);
        INSERT INTO notes_new SELECT id, folder_id, title FROM notes;
        DROP TABLE notes;
        ALTER TABLE notes_new RENAME TO notes;
        PRAGMA foreign_key_check;
        """

    @Test func aRebuildThatAddsAForeignKeyRowsViolate() throws {
        // foreign_keys is off, as migrations run: SQLite copies the orphans without a word.
        let corpus = try LintCorpus(schema: Self.folders, rows: Self.noteRows, stage: Self.noteRebuild)
        let texts = try corpus.lint().findings.map(\.text)
        #expect(texts == [
            "C001 migrations/b.sql:2: FOREIGN KEY (folder_id) REFERENCES folders of notes is violated by rows the stage leaves in it (PRAGMA foreign_key_check) (fixtures: 1.0.0 2 rows, 1.1.0 0 rows)",
        ])
    }

    /// In `migrate`, the store's violations are counted once at the path's end,
    /// and the tables are looked at one by one only when some row violates a key.
    @Test func aRebuildThatAddsAForeignKeyRowsViolateInMigrate() throws {
        let corpus = try LintCorpus(schema: Self.folders, rows: Self.noteRows, stage: Self.noteRebuild, current: true)
        let report = try MigrationRunner.runMatrix(config: corpus.config)
        let path = try #require(report.paths.first { $0.source == "1.0.0" && $0.kind == .path })
        let check = try #require(path.checks.first { $0.kind == .lint(rule: "C001") })
        #expect(check.findings == [CheckResult.Finding(
            message: "FOREIGN KEY (folder_id) REFERENCES folders of notes is violated by rows the stage leaves in it (PRAGMA foreign_key_check)",
            file: "migrations/b.sql", line: 2, counts: ["1.0.0": 2])])
    }

    @Test func aCopyThatForeignKeysRefuse() throws {
        let corpus = try LintCorpus(schema: Self.folders, rows: Self.noteRows, stage: Self.noteRebuild) { $0["connection"] = ["foreign_keys": true] }
        let texts = try corpus.lint().findings.map(\.text)
        #expect(texts == [
            "C001 migrations/b.sql:2: FOREIGN KEY of notes_new fails with foreign_keys on: rows the statement writes refer to no row (fixtures: 1.0.0 2 rows, 1.1.0 0 rows)",
        ])
    }

    @Test func aForeignKeyAddedByADDCOLUMNThatRowsViolate() throws {
        let corpus = try LintCorpus(schema: Self.folders, rows: Self.noteRows, stage: "ALTER TABLE notes ADD COLUMN parent INTEGER DEFAULT 1 REFERENCES folders(id);\nDELETE FROM folders;\n")
        let texts = try corpus.lint().findings.map(\.text)
        #expect(texts == [
            "C001 migrations/b.sql:1: FOREIGN KEY (parent) REFERENCES folders of notes is violated by rows the stage leaves in it (PRAGMA foreign_key_check) (fixtures: 1.0.0 4 rows, 1.1.0 1 row)",
        ])
    }

    @Test func constraintsThatEveryRowMeetsFindNothing() throws {
        let users = try LintCorpus(schema: Self.users, rows: Self.rows, stage: Self.rebuild("id INTEGER PRIMARY KEY, email TEXT CHECK (length(email) > 0), name TEXT")
            + "ALTER TABLE users ADD COLUMN domain TEXT DEFAULT 'x' CHECK (domain <> '');\n")
        #expect(try users.lint().findings.isEmpty)
        // The orphans were there before the rebuild, under the same foreign key: the rebuild adds none.
        let notes = try LintCorpus(schema: Self.folders.replacingOccurrences(of: "folder_id INTEGER,", with: "folder_id INTEGER REFERENCES folders(id),"), rows: Self.noteRows, stage: Self.noteRebuild)
        #expect(try notes.lint().findings.isEmpty)
    }

    // MARK: - A001

    @Test func aRebuildThatChangesAColumnsAffinity() throws {
        // TEXT to INTEGER: '012' becomes 12 and '7.50' 7.5, which do not read back the same; '12' becomes 12, which does; 'A' and 'C' stay text.
        let corpus = try LintCorpus(schema: Self.users, rows: Self.rows, stage: Self.rebuild("id INTEGER PRIMARY KEY, email TEXT, name INTEGER"))
        let findings = try corpus.lint().findings
        #expect(findings.map(\.text) == [
            "A001 migrations/b.sql:3: the copy of users into users_new changes the affinity of users.name TEXT -> INTEGER: rows hold values that do not read back the same (fixtures: 1.0.0 2 rows, 1.1.0 0 rows)",
        ])
        #expect(findings.first?.severity == .error)
    }

    @Test func aRebuildIntoAStrictTableThatRefusesRows() throws {
        let corpus = try LintCorpus(schema: Self.users, rows: Self.rows, stage: Self.rebuild("id INTEGER PRIMARY KEY, email TEXT, name INTEGER").replacingOccurrences(of: ");\n\n", with: ") STRICT;\n\n"))
        let texts = try corpus.lint().findings.map(\.text)
        #expect(texts == [
            "A001 migrations/b.sql:3: STRICT table users_new refuses rows the statement writes: their values cannot be stored in its columns' types in 1.0.0: cannot store TEXT value in INTEGER column users_new.name (fixtures: 1.0.0 3 rows, 1.1.0 1 row)",
        ])
    }

    @Test func aRebuildIntoAStrictTableThatConvertsValues() throws {
        // A column without a type holds the texts '007' and '8': a STRICT INTEGER column stores 7 and 8, and '007' is gone.
        let corpus = try LintCorpus(
            schema: "CREATE TABLE tags (id INTEGER PRIMARY KEY, label);",
            rows: ["1.0.0": "INSERT INTO tags VALUES (1, '007'), (2, '8'), (3, NULL)", "1.1.0": "INSERT INTO tags VALUES (1, '3')"],
            stage: "CREATE TABLE tags_new (id INTEGER PRIMARY KEY, label INTEGER) STRICT;\nINSERT INTO tags_new SELECT * FROM tags;\nDROP TABLE tags;\nALTER TABLE tags_new RENAME TO tags;\n")
        let texts = try corpus.lint().findings.map(\.text)
        #expect(texts == [
            "A001 migrations/b.sql:2: the copy of tags into tags_new changes the affinity of tags.label (no type) -> INTEGER STRICT: rows hold values that do not read back the same (fixtures: 1.0.0 1 row, 1.1.0 0 rows)",
        ])
    }

    @Test func aRebuildThatKeepsEachAffinityFindsNothing() throws {
        // VARCHAR and TEXT store alike, and the copy may change values on purpose; a STRICT table whose rows fit changes none.
        let stage = """
            CREATE TABLE users_new (id INTEGER PRIMARY KEY, email VARCHAR(200), name TEXT) STRICT;
            INSERT INTO users_new SELECT id, lower(email), name FROM users;
            DROP TABLE users;
            ALTER TABLE users_new RENAME TO users;
            """
        #expect(try LintCorpus(schema: Self.users, rows: Self.rows, stage: stage.replacingOccurrences(of: "VARCHAR(200)", with: "TEXT")).lint().findings.isEmpty)
        #expect(try LintCorpus(schema: Self.users, rows: Self.rows, stage: stage.replacingOccurrences(of: ") STRICT;", with: ");")).lint().findings.isEmpty)
    }

    // MARK: - The catalogue

    @Test func theLintPageListsEveryRuleWithItsDefaultAndAnExample() throws {
        let page = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/commands/lint.md"), encoding: .utf8)
        for rule in LintRule.all {
            #expect(page.contains("| `\(rule.code)` | \(rule.defaultSeverity.rawValue) |"), "\(rule.code) in the rule table")
            #expect(page.contains("### \(rule.code): "), "\(rule.code) has a section")
            #expect(page.contains("\n\(rule.code) migrations/"), "\(rule.code) has an example finding")
        }
    }
}
