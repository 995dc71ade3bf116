import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// `"lint"` in fixturekit.json: severities over the defaults, findings that may
/// stand with a reason, and what the configuration refuses; the shipped history
/// as a finding (H001).
@Suite struct LintSettingsTests {
    static let schema = "CREATE TABLE drafts (id INTEGER PRIMARY KEY, text TEXT);"
    static let rows = ["1.0.0": "INSERT INTO drafts VALUES (1, 'x')", "1.1.0": ""]
    /// Every rule's code, as the configuration's errors list them.
    static let codes = LintRule.all.map(\.code).joined(separator: ", ")

    @Test func anErrorFindingFailsTheLint() throws {
        let report = try LintCorpus(schema: Self.schema, rows: Self.rows, stage: "DROP TABLE drafts;\n").lint()
        #expect(report.findings.map(\.rule) == ["D001"])
        #expect(!report.passed)
        #expect(report.summary == "1 finding (1 error)")
    }

    @Test func anIgnoreWithAReasonLetsTheFindingStand() throws {
        for stage in ["migrations/b.sql", "migrations/b.sql:1"] {
            let corpus = try LintCorpus(schema: Self.schema, rows: Self.rows, stage: "DROP TABLE drafts;\n") { object in
                object["lint"] = ["ignore": [["rule": "D001", "stage": stage, "why": "drafts were never synced"]]]
            }
            let report = try corpus.lint()
            #expect(report.findings.map(\.ignored) == ["drafts were never synced"])
            #expect(report.passed)
            #expect(report.summary == "0 findings, 1 ignored")
        }
    }

    @Test func anIgnoreOfAnotherPlaceOrRuleDoesNot() throws {
        for (rule, stage) in [("D001", "migrations/a.sql"), ("D001", "migrations/b.sql:2"), ("U001", "migrations/b.sql")] {
            let corpus = try LintCorpus(schema: Self.schema, rows: Self.rows, stage: "DROP TABLE drafts;\n") { object in
                object["lint"] = ["ignore": [["rule": rule, "stage": stage, "why": "no"]]]
            }
            #expect(try !corpus.lint().passed)
        }
    }

    @Test func aSeverityOverTheDefault() throws {
        let warned = try LintCorpus(schema: Self.schema, rows: Self.rows, stage: "DROP TABLE drafts;\n") { $0["lint"] = ["rules": ["D001": "warning"]] }
        let report = try warned.lint()
        #expect(report.findings.map(\.severity) == [.warning])
        #expect(report.passed)
        let off = try LintCorpus(schema: Self.schema, rows: Self.rows, stage: "DROP TABLE drafts;\n") { $0["lint"] = ["rules": ["D001": "off"]] }
        #expect(try off.lint().findings.isEmpty)
    }

    @Test(arguments: [
        (#"{"ignore": [{"rule": "D001", "stage": "migrations/b.sql"}]}"#, #"lint.ignore[0]: "why" is required: say why the finding may stand"#),
        (#"{"ignore": [{"rule": "D001", "stage": "migrations/b.sql", "why": "  "}]}"#, #"lint.ignore[0]: "why" is required: say why the finding may stand"#),
        (#"{"ignore": [{"rule": "Z999", "stage": "x", "why": "y"}]}"#, #"lint.ignore[0]: no rule "Z999" (one of "# + LintSettingsTests.codes + ")"),
        (#"{"ignore": [{"rule": "D001", "stage": "x", "why": "y", "until": "2"}]}"#, #"lint.ignore[0]: unknown key "until" (one of rule, stage, why)"#),
        (#"{"rules": {"X1": "error"}}"#, #"lint.rules: no rule "X1" (one of "# + LintSettingsTests.codes + ")"),
        (#"{"rules": {"D001": "fatal"}}"#, nil),
        (#"{"rule": {}}"#, #"lint: unknown key "rule" (one of ignore, rules)"#),
        (#"[]"#, #""lint" must be an object"#),
    ] as [(String, String?)])
    func whatTheConfigurationRefuses(lint: String, why: String?) throws {
        let text = #"{"store": "App.sqlite", "current": "1.0.0", "lint": \#(lint)}"#
        #expect(throws: FormatError.self) { try CorpusConfiguration.parse(Array(text.utf8), path: "c/fixturekit.json") }
        do { _ = try CorpusConfiguration.parse(Array(text.utf8), path: "c/fixturekit.json") } catch {
            if let why { #expect(error.description == "read configuration: c/fixturekit.json: \(why)") }
        }
    }

    @Test func theSchemaTakesALintSection() throws {
        let folder = try TemporaryFolder()
        let text = #"{"store": "App.sqlite", "current": "1.0.0", "lint": {"rules": {"FK001": "error"}, "ignore": [{"rule": "D001", "stage": "migrations/b.sql", "why": "never synced"}]}}"#
        let path = try folder.write("fixturekit.json", text)
        let configuration = try CorpusConfiguration.parse(Array(text.utf8), path: path)
        #expect(configuration.lint?.rules == ["FK001": .error])
        #expect(configuration.lint?.ignore == [.init(rule: "D001", stage: "migrations/b.sql", why: "never synced")])
        expectMatchesSchema(path)
    }

    // MARK: - H001

    @Test func aShippedStageEditedSinceTheLock() throws {
        let corpus = try LintCorpus(schema: Self.schema, rows: Self.rows, stage: "SELECT 2;\n")
        _ = try CorpusLock.write(config: corpus.config)
        #expect(try corpus.lint().findings.isEmpty)
        try corpus.folder.write("MigrationFixtures/migrations/a.sql", "SELECT 1; -- edited\n")
        let findings = try corpus.lint().findings
        #expect(findings.map(\.text) == ["H001 migrations/a.sql: migrations/a.sql: changed since 1.1.0 was locked"])
        #expect(findings.first?.severity == .error)
    }
}
