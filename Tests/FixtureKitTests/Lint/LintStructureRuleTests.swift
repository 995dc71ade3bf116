import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// The rules about how a stage is written: what SQLite ignores, what a rebuild
/// must do, what the shipped history allows. Each hazard and its safe form.
@Suite struct LintStructureRuleTests {
    static let folders = """
        CREATE TABLE folders (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT);
        CREATE TABLE notes (id INTEGER PRIMARY KEY, folder_id INTEGER REFERENCES folders(id), title TEXT);
        """
    /// 1.0.0 deleted its last folders: its sequence (9) is above its largest id (3).
    static let rows = [
        "1.0.0": "INSERT INTO folders VALUES (1, 'a'), (2, 'b'), (3, 'c'), (9, 'z'); DELETE FROM folders WHERE id = 9; INSERT INTO notes VALUES (1, 1, 'x'), (2, 1, 'y'), (3, 2, 'z')",
        "1.1.0": "INSERT INTO folders VALUES (1, 'a'); INSERT INTO notes VALUES (1, 1, 'x')",
    ]
    static let rebuild = """
        CREATE TABLE folders_new (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL DEFAULT '');
        INSERT INTO folders_new SELECT id, name FROM folders;
        DROP TABLE folders;
        ALTER TABLE folders_new RENAME TO folders;
        """

    // MARK: - P001

    @Test func aForeignKeysPragmaInsideTheStagesTransaction() throws {
        let corpus = try LintCorpus(schema: Self.folders, rows: Self.rows, stage: "PRAGMA foreign_keys = ON;\nPRAGMA legacy_alter_table = ON;\n")
        let findings = try corpus.findings(.ignoredPragma)
        #expect(findings.map(\.text) == [
            "P001 migrations/b.sql:1: PRAGMA foreign_keys = ON does nothing here: foreign_keys stays 0, where it would be 1 (SQLite ignores it inside a transaction) (fixtures: 1.0.0, 1.1.0)",
        ])
        #expect(findings.first?.severity == .warning)
    }

    @Test func aForeignKeysPragmaOutsideATransactionFindsNothing() throws {
        // A file that holds its own BEGIN and COMMIT runs as written: its PRAGMA comes before any transaction.
        let corpus = try LintCorpus(schema: Self.folders, rows: Self.rows, stage: "PRAGMA foreign_keys = ON;\nBEGIN;\nSELECT 1;\nCOMMIT;\n")
        #expect(try corpus.lint().findings.isEmpty)
    }

    // MARK: - S001, FK001

    @Test func aRebuildThatLosesTheSequenceAndSkipsTheForeignKeyCheck() throws {
        let corpus = try LintCorpus(schema: Self.folders, rows: Self.rows, stage: Self.rebuild)
        let texts = try corpus.lint().findings.map(\.text)
        #expect(texts == [
            "FK001 migrations/b.sql:2: the rebuild of folders, which takes part in foreign keys, is not followed by PRAGMA foreign_key_check (fixtures: 1.0.0 0 rows, 1.1.0 0 rows)",
            "S001 migrations/b.sql:4: sqlite_sequence of folders goes back: new rows may take ids that rows had before (copy its sqlite_sequence row over) in 1.0.0: from 9 to 3 (fixtures: 1.0.0 6 ids, 1.1.0 0 ids)",
        ])
    }

    @Test func aRebuildThatKeepsTheSequenceAndChecksForeignKeysFindsNothing() throws {
        let stage = Self.rebuild.replacingOccurrences(of: "DROP TABLE folders;", with: """
            UPDATE sqlite_sequence SET seq = (SELECT seq FROM sqlite_sequence WHERE name = 'folders') WHERE name = 'folders_new';
            DROP TABLE folders;
            """) + "\nPRAGMA foreign_key_check;\n"
        let corpus = try LintCorpus(schema: Self.folders, rows: Self.rows, stage: stage)
        #expect(try corpus.lint().findings.isEmpty)
    }

    // MARK: - FK002

    @Test func aDropOfAParentLeavesItsChildrenOrphans() throws {
        let corpus = try LintCorpus(schema: Self.folders, rows: Self.rows, stage: "DROP TABLE folders;\n") { $0["counts"] = ["folders": "dropped"] }
        #expect(try corpus.lint().findings.map(\.text) == [
            "FK002 migrations/b.sql:1: DROP TABLE folders leaves the rows of notes.folder_id that refer to it orphans (fixtures: 1.0.0 3 rows, 1.1.0 1 row)",
        ])
    }

    @Test func aDropOfAParentWithForeignKeysOnFails() throws {
        let corpus = try LintCorpus(schema: Self.folders, rows: Self.rows, stage: "DROP TABLE folders;\n") { object in
            object["counts"] = ["folders": "dropped"]
            object["connection"] = ["foreign_keys": true]
        }
        #expect(try corpus.lint().findings.map(\.text) == [
            "FK002 migrations/b.sql:1: DROP TABLE folders fails with foreign_keys on: rows of notes.folder_id refer to it (fixtures: 1.0.0 3 rows, 1.1.0 1 row)",
        ])
    }

    @Test func aDropOfAParentWhoseChildrenGoFirstFindsNothing() throws {
        let corpus = try LintCorpus(schema: Self.folders, rows: Self.rows, stage: "DROP TABLE notes;\nDROP TABLE folders;\n") {
            $0["counts"] = ["folders": "dropped", "notes": "dropped"]
        }
        #expect(try corpus.lint().findings.isEmpty)
    }

    // MARK: - F001

    @Test func aStageThatDoesNotCompile() throws {
        let corpus = try LintCorpus(schema: Self.folders, rows: Self.rows, stage: "SELECT 1;\nSELEC 2;\n")
        #expect(try corpus.lint().findings.map(\.text) == [
            "F001 migrations/b.sql: the stage 1.1.0 -> 2.0.0 fails: migrations/b.sql:2:1: SQLite error 1: near \"SELEC\": syntax error (fixtures: 1.0.0, 1.1.0)",
        ])
    }

    @Test func aStatementThatFailsForAnotherReason() throws {
        let corpus = try LintCorpus(schema: Self.folders, rows: Self.rows, stage: "SELECT 1;\nSELECT abs(-9223372036854775807 - 1);\n")
        #expect(try corpus.lint().findings.map(\.text) == [
            "F001 migrations/b.sql:2: fails: SQLite error 1: integer overflow (fixtures: 1.0.0, 1.1.0)",
        ])
    }
}
