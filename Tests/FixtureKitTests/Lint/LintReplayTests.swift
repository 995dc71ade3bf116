import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// Q001 (double-quoted string literals) and X001 (a collation or function the
/// app registers: not replayable here), each hazard and its safe form.
@Suite struct LintReplayTests {
    static let schema = "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, status TEXT);"
    static let rows = ["1.0.0": "INSERT INTO users VALUES (1, 'a', NULL), (2, 'b', 'x')", "1.1.0": ""]

    // MARK: - Q001

    @Test func doubleQuotedStringsInDMLAndDDL() throws {
        let stage = """
            UPDATE users SET status = "active" WHERE status IS NULL;
            SELECT "name", status FROM users;
            CREATE INDEX users_gone ON users(name) WHERE status = "gone";
            CREATE TABLE audit (id INTEGER PRIMARY KEY, kind TEXT CHECK (kind <> "none"));
            """
        let corpus = try LintCorpus(schema: Self.schema, rows: Self.rows, stage: stage)
        let report = try corpus.lint()
        let tail = " (fixtures: 1.0.0, 1.1.0)"
        #expect(report.findings.map(\.text) == [
            #"Q001 migrations/b.sql:1: "active" names no column and is taken as a string only while double-quoted strings are on: SQLite built as it recommends (SQLITE_DQS=0) fails with no such column: active (write 'active')"# + tail,
            #"Q001 migrations/b.sql:3: "gone" names no column and is taken as a string only while double-quoted strings are on: SQLite built as it recommends (SQLITE_DQS=0) fails with no such column: gone (write 'gone')"# + tail,
            #"Q001 migrations/b.sql:4: "none" names no column and is taken as a string only while double-quoted strings are on: SQLite built as it recommends (SQLITE_DQS=0) fails with no such column: none (write 'none')"# + tail,
        ])
        #expect(report.findings.allSatisfy { $0.severity == .warning })
        #expect(report.passed)
    }

    /// Linting compiles each statement again with double-quoted strings off, and
    /// leaves them as they were: the stage does what it does without the lint.
    @Test func theStageDoesTheSameUnderTheLint() throws {
        let stage = """
            CREATE TABLE flags (id INTEGER PRIMARY KEY, kind TEXT);
            INSERT INTO flags SELECT id, "active" FROM users;
            CREATE TABLE seen AS SELECT id FROM flags WHERE kind = "active";
            """
        let corpus = try LintCorpus(schema: Self.schema, rows: Self.rows, stage: stage, current: true)
        #expect(try corpus.lint().findings.map(\.text).map { $0.prefix(18) } == ["Q001 migrations/b.", "Q001 migrations/b."])
        // migrate lints as it runs: the stage still takes "active" as a string, as it does without the lint.
        let report = try MigrationRunner.runMatrix(config: corpus.config)
        #expect(report.passed, "\(report.rendered(.json))")
        #expect(report.paths.contains { $0.checks.contains { $0.kind == .lint(rule: "Q001") } })
    }

    /// A RENAME makes SQLite parse the views again when it runs: one that holds a
    /// double-quoted string fails it with double-quoted strings off, as does a
    /// statement that reads the view.
    @Test(arguments: [("\"on\"", true), ("'on'", false)])
    func aRenameOverAViewThatHoldsOne(literal: String, found: Bool) throws {
        let schema = Self.schema + "\nCREATE VIEW active AS SELECT id FROM users WHERE status = \(literal);"
        let corpus = try LintCorpus(schema: schema, rows: Self.rows, stage: "SELECT 1;\nALTER TABLE users RENAME TO people;\nSELECT count(*) FROM active;\n")
        let report = try corpus.lint()
        let message = #""on" names no column and is taken as a string only while double-quoted strings are on: SQLite built as it recommends (SQLITE_DQS=0) fails with no such column: on (write 'on') (fixtures: 1.0.0, 1.1.0)"#
        #expect(report.findings.map(\.text) == (found ? ["Q001 migrations/b.sql:2: " + message, "Q001 migrations/b.sql:3: " + message] : []))
    }

    @Test func singleQuotedStringsAndQuotedNamesFindNothing() throws {
        let stage = """
            UPDATE users SET "status" = 'active' WHERE "status" IS NULL;
            SELECT "name", "users"."id" FROM "users";
            CREATE INDEX users_gone ON users("name") WHERE status = 'gone';
            """
        let corpus = try LintCorpus(schema: Self.schema, rows: Self.rows, stage: stage)
        #expect(try corpus.lint().findings.isEmpty)
    }

    // MARK: - X001

    /// The corpus with a third stage, `migrations/c.sql` (2.0.0 -> 3.0.0), after the one under test.
    static func chain(_ stage: String) throws -> LintCorpus {
        let corpus = try LintCorpus(schema: schema, rows: rows, stage: stage) { object in
            object["current"] = "3.0.0"
            object["stages"] = (object["stages"] as? [[String: String]] ?? []) + [["from": "2.0.0", "to": "3.0.0", "sql": "migrations/c.sql"]]
        }
        try corpus.folder.write("MigrationFixtures/migrations/c.sql", "DROP TABLE users;\n")
        return corpus
    }

    static func rest(_ needs: String) -> String {
        "X001 migrations/c.sql: not linted on this fixture: migrations/b.sql:2 needs \(needs), which the app registers (not replayable here) (fixtures: 1.0.0, 1.1.0)"
    }

    @Test func aCollationTheAppRegisters() throws {
        let corpus = try Self.chain("SELECT 1;\nCREATE INDEX users_name ON users(name COLLATE unicase);\n")
        let report = try corpus.lint()
        #expect(report.findings.map(\.text) == [
            "X001 migrations/b.sql:2: needs collation unicase, which SQLite does not have here: the app registers it on its connection, so the stage is not replayable here, and the rest of the fixture's chain is not linted (fixtures: 1.0.0, 1.1.0)",
            Self.rest("collation unicase"),
        ])
        #expect(report.findings.allSatisfy { $0.severity == .warning })
    }

    @Test func aFunctionTheAppRegisters() throws {
        let corpus = try Self.chain("SELECT 1;\nUPDATE users SET name = app_normalize(name);\n")
        #expect(try corpus.lint().findings.map(\.text) == [
            "X001 migrations/b.sql:2: needs function app_normalize, which SQLite does not have here: the app registers it on its connection, so the stage is not replayable here, and the rest of the fixture's chain is not linted (fixtures: 1.0.0, 1.1.0)",
            Self.rest("function app_normalize"),
        ])
    }

    /// A collation a query asks for, in a stage that creates nothing.
    @Test func aCollationAQueryAsksFor() throws {
        let corpus = try LintCorpus(schema: Self.schema, rows: Self.rows, stage: "SELECT 1;\nSELECT name FROM users ORDER BY name COLLATE unicase;\n")
        #expect(try corpus.lint().findings.map(\.rule) == ["X001"])
    }

    @Test func aBuiltInCollationFindsNothing() throws {
        let corpus = try Self.chain("SELECT 1;\nCREATE INDEX users_name ON users(name COLLATE NOCASE);\nSELECT lower(name) FROM users ORDER BY name COLLATE RTRIM;\n")
        let report = try corpus.lint()
        #expect(!report.findings.contains { $0.rule == "X001" }, "\(report.findings.map(\.text))")
    }

    /// `migrate` names the missing collation in the stage's failure.
    @Test func migrateNamesTheMissingCollation() throws {
        let corpus = try LintCorpus(schema: Self.schema, rows: Self.rows, stage: "SELECT 1;\nCREATE INDEX users_name ON users(name COLLATE unicase);\n")
        let report = try MigrationRunner.runMatrix(config: corpus.config)
        #expect(!report.passed)
        let check = try #require(report.paths.first { $0.source == "1.1.0" }?.checks.first { $0.kind == .stage(from: "1.1.0", to: "2.0.0") })
        #expect(check.message?.components(separatedBy: "\n").prefix(2) == [
            "migrations/b.sql:2: SQLite error 1: no such collation sequence: unicase",
            "not replayable here: SQLite has no collation unicase; the app registers it on its connection, which fixturekit cannot (or the name is misspelt)",
        ])
        #expect(!report.paths.flatMap(\.checks).contains { $0.kind == .lint(rule: "X001") })
    }
}
