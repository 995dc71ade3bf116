import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// An anonymized fixture keeps what a migration's success depends on: a stage
/// that fails on the original fails on the anonymized fixture, and one that
/// passes passes, for each class of structure SQLite compares.
@Suite struct AnonymizationStructureTests {
    static let environment = ["FIXTUREKIT_ANON_KEY": "a-test-key-that-is-long-enough-0123456789"]

    /// A class of structure: a 1.0.0 schema, a stage to 2.0.0 that depends on
    /// it, rows that make the stage fail and rows that let it pass, and the rules.
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var schema: String
        var stage: String
        /// Rows (INSERT statements) with which the stage fails on the original.
        var failing: [String]
        /// Rows with which it passes: as alike as SQLite's comparison allows.
        var passing: [String]
        var rules: String
        var testDescription: String { name }
    }

    static let users = "CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT);"
    static let emailRule = #"{"tables": {"users": {"email": {"strategy": "pseudonym", "format": "email", "domain": "email"}}}}"#
    static func emails(_ values: [String?]) -> [String] {
        values.map { value in "INSERT INTO users (email) VALUES (\(value.map { "'\($0)'" } ?? "NULL"))" }
            + (1...20).map { "INSERT INTO users (email) VALUES ('person\($0)@example.org')" }
    }
    /// A stage that rebuilds `users` with `column` as its email column's definition.
    static func rebuild(_ column: String) -> String {
        """
        CREATE TABLE users_new (id INTEGER PRIMARY KEY, email \(column));
        INSERT INTO users_new SELECT id, email FROM users;
        DROP TABLE users;
        ALTER TABLE users_new RENAME TO users;
        """
    }
    static let members = (1...200).map { "INSERT INTO members (team, name) VALUES (1, 'Person Number\($0)')" }

    static let cases: [Case] = [
        Case(name: "NOCASE", schema: users, stage: "CREATE UNIQUE INDEX users_email_nocase ON users (email COLLATE NOCASE);",
             failing: emails(["Siobhan.Kelly@example.org", "siobhan.kelly@example.org"]),
             passing: emails(["Siobhan.Kelly@example.org", "siobhan.kelley@example.org"]), rules: emailRule),
        Case(name: "RTRIM", schema: users, stage: "CREATE UNIQUE INDEX users_email_rtrim ON users (email COLLATE RTRIM);",
             failing: emails(["ann@example.org", "ann@example.org  "]),
             passing: emails(["ann@example.org", " ann@example.org"]), rules: emailRule),
        Case(name: "lower(email)", schema: users, stage: "CREATE UNIQUE INDEX users_email_lower ON users (lower(email));",
             failing: emails(["Bob@Example.org", "bob@example.org"]),
             passing: emails(["bob@example.org", "bob@example.org "]), rules: emailRule),
        Case(name: "trim(email)", schema: users, stage: "CREATE UNIQUE INDEX users_email_trim ON users (trim(email));",
             failing: emails([" carl@example.org", "carl@example.org  "]),
             passing: emails(["Carl@example.org", "carl@example.org"]), rules: emailRule),
        Case(name: "two-column UNIQUE", schema: "CREATE TABLE members (id INTEGER PRIMARY KEY, team INTEGER, name TEXT);",
             stage: "CREATE UNIQUE INDEX members_team_name ON members (team, name);",
             failing: members + ["INSERT INTO members (team, name) VALUES (1, 'Person Number7')"],
             passing: members + ["INSERT INTO members (team, name) VALUES (1, 'person number7')", "INSERT INTO members (team, name) VALUES (2, 'Person Number7')"],
             rules: #"{"tables": {"members": {"name": {"strategy": "fake", "kind": "name"}}}}"#),
        Case(name: "NULL versus '' (NOT NULL)", schema: users, stage: rebuild("TEXT NOT NULL"),
             failing: emails([nil, ""]), passing: emails(["", ""]), rules: emailRule),
        Case(name: "NULL versus +Inf (NOT NULL)", schema: "CREATE TABLE users (id INTEGER PRIMARY KEY, email REAL);", stage: rebuild("REAL NOT NULL"),
             failing: ["INSERT INTO users (email) VALUES (NULL), (9e999), (1.5)"], passing: ["INSERT INTO users (email) VALUES (9e999), (-9e999), (1e308), (-0.0)"],
             rules: #"{"tables": {"users": {"email": {"strategy": "noise", "ratio": 1}}}}"#),
        Case(name: "'' versus a value (CHECK)", schema: users, stage: rebuild("TEXT CHECK (email <> '')"),
             failing: emails(["", "dora@example.org"]), passing: emails(["dora@example.org"]),
             rules: #"{"tables": {"users": {"email": {"strategy": "value", "value": "someone@example.invalid"}}}}"#),
        Case(name: "length-limited CHECK (digits)", schema: "CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT);", stage: rebuild("TEXT CHECK (length(email) <= 6)"),
             failing: ["INSERT INTO users (email) VALUES ('123456'), ('1234567'), ('000001')"], passing: ["INSERT INTO users (email) VALUES ('123456'), ('654321'), ('000001')"],
             rules: #"{"tables": {"users": {"email": {"strategy": "pseudonym", "format": "digits"}}}}"#),
        Case(name: "length-limited CHECK (email)", schema: users, stage: rebuild("TEXT CHECK (length(email) <= 64)"),
             failing: emails([String(repeating: "long.name.", count: 6) + "x@example.org"]), passing: emails([String(repeating: "long.name.", count: 5) + "x@example.org"]),
             rules: emailRule),
    ]

    /// `migrate`'s exit status on the fixture as captured, then after `anonymize`
    /// rewrote it in place; and what the second `migrate` said.
    func migrate(_ testCase: Case, rows: [String]) throws -> (original: Int32, anonymized: Int32, output: String) {
        let corpus = try StructureCorpus(testCase, rows: rows)
        let original = fixturekit("migrate", "--config", corpus.config)
        let rules = try corpus.folder.write("rules.json", testCase.rules)
        let anonymize = fixturekit(["anonymize", corpus.corpus + "/1.0.0", "--rules", rules, "--force"], environment: Self.environment)
        #expect(anonymize.status == 0, "\(anonymize.standardError)")
        let anonymized = fixturekit("migrate", "--config", corpus.config)
        return (original.status, anonymized.status, original.standardError + anonymized.standardError)
    }

    @Test(arguments: cases)
    func aStageFailsOnTheAnonymizedFixtureAsOnTheOriginal(_ testCase: Case) throws {
        let failing = try migrate(testCase, rows: testCase.failing)
        #expect(failing.original == 1 && failing.anonymized == 1, "\(failing.output)")
        let passing = try migrate(testCase, rows: testCase.passing)
        #expect(passing.original == 0 && passing.anonymized == 0, "\(passing.output)")
    }
}

/// A corpus of two versions: 1.0.0 from a schema and rows, 2.0.0 the schema
/// after the stage between them, both declared synthetic when captured.
struct StructureCorpus: CodeBuiltCorpus {
    let folder: TemporaryFolder

    init(_ testCase: AnonymizationStructureTests.Case, rows: [String]) throws {
        folder = try TemporaryFolder()
        try make("1.0.0", schema: testCase.schema) { database in
            for row in rows { try database.execute(row) }
        }
        try make("2.0.0", schema: testCase.schema + "\n" + testCase.stage)
        try folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", testCase.stage)
        try writeConfiguration([
            "store": "App.sqlite", "current": "2.0.0", "supported": ["1.0.0"],
            "stages": [["from": "1.0.0", "to": "2.0.0", "sql": "migrations/1.0.0-2.0.0.sql"]],
        ])
    }
}
