import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTool
@testable import FixtureKitTestSupport

/// `fixturekit lint` and `migrate`'s lint check, through the tool: the lines,
/// the exit status, the JSON, and the lint in every report format of `migrate`.
@Suite struct LintCommandTests {
    static let schema = "CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT);"
    static let rows = ["1.0.0": "INSERT INTO notes VALUES (1, 'a'), (2, 'b')", "1.1.0": "INSERT INTO notes VALUES (1, 'a')"]
    /// A PRAGMA SQLite ignores inside the stage's transaction (P001, a warning unless told otherwise).
    static let stage = "PRAGMA foreign_keys = ON;\n"
    static let line = "P001 migrations/b.sql:1: PRAGMA foreign_keys = ON does nothing here: foreign_keys stays 0, where it would be 1 (SQLite ignores it inside a transaction) (fixtures: 1.0.0, 1.1.0)"

    static func corpus(_ lint: [String: Any]? = nil) throws -> LintCorpus {
        try LintCorpus(schema: schema, rows: rows, stage: stage, current: true) { object in
            if let lint { object["lint"] = lint }
        }
    }

    @Test func aWarningIsReportedAndPasses() throws {
        let corpus = try Self.corpus()
        let result = fixturekit("lint", "--config", corpus.config)
        #expect(result.status == 0)
        #expect(result.standardError == Self.line + "\nlint: 1 finding (1 warning)\n")
    }

    @Test func anErrorFailsWithExitStatus1AndTheJSONSaysWhy() throws {
        let corpus = try Self.corpus(["rules": ["P001": "error"]])
        let result = fixturekit("lint", "--config", corpus.config, "--json", "--quiet")
        #expect(result.status == 1)
        #expect(result.standardError == Self.line + "\n")
        let report = try JSONDecoder().decode(LintReport.self, from: Data(result.standardOutput.utf8))
        #expect(report.findings == [LintFinding(
            rule: "P001", severity: .error, file: "migrations/b.sql", line: 1,
            message: "PRAGMA foreign_keys = ON does nothing here: foreign_keys stays 0, where it would be 1 (SQLite ignores it inside a transaction)",
            fixtures: ["1.0.0", "1.1.0"], counts: nil, unit: nil, ignored: nil)])
    }

    @Test func anIgnoreWithoutAReasonIsAConfigurationError() throws {
        let corpus = try Self.corpus(["ignore": [["rule": "P001", "stage": "migrations/b.sql"]]])
        let result = fixturekit("lint", "--config", corpus.config)
        #expect(result.status == 2)
        #expect(result.standardError == "fixturekit: read configuration: \(corpus.config): lint.ignore[0]: \"why\" is required: say why the finding may stand\n")
    }

    // MARK: - migrate

    /// A rebuild of folders, which notes refer to, without `PRAGMA foreign_key_check` (FK001, a warning unless told otherwise).
    static func rebuild(_ lint: [String: Any]) throws -> LintCorpus {
        try LintCorpus(
            schema: "CREATE TABLE folders (id INTEGER PRIMARY KEY, name TEXT); CREATE TABLE notes (id INTEGER PRIMARY KEY, folder_id INTEGER REFERENCES folders(id));",
            rows: ["1.0.0": "INSERT INTO folders VALUES (1, 'a'); INSERT INTO notes VALUES (1, 1)", "1.1.0": "INSERT INTO folders VALUES (1, 'a')"],
            stage: "CREATE TABLE folders_new (id INTEGER PRIMARY KEY, name TEXT);\nINSERT INTO folders_new SELECT id, name FROM folders;\nDROP TABLE folders;\nALTER TABLE folders_new RENAME TO folders;\n",
            current: true) { $0["lint"] = lint }
    }

    static let rebuildMessage = "the rebuild of folders, which takes part in foreign keys, is not followed by PRAGMA foreign_key_check"

    @Test func migrateFailsOnAnErrorFindingAndShowsItInEveryReport() throws {
        let corpus = try Self.rebuild(["rules": ["FK001": "error"]])
        let report = try MigrationRunner.runMatrix(config: corpus.config)
        #expect(!report.passed)
        let path = try #require(report.paths.first { $0.source == "1.0.0" && $0.kind == .path })
        let check = try #require(path.checks.first { $0.kind == .lint(rule: "FK001") })
        #expect(!check.passed)
        #expect(check.findings == [CheckResult.Finding(message: Self.rebuildMessage, file: "migrations/b.sql", line: 2, counts: ["1.0.0": 0])])
        #expect(check.message == "FK001 migrations/b.sql:2: \(Self.rebuildMessage) (fixtures: 1.0.0 0 rows)")
        // Every other check passes: the lint alone fails the path.
        #expect(path.checks.filter { !$0.passed }.map(\.kind) == [.lint(rule: "FK001")])
        let json = report.rendered(.json)
        #expect(json.contains(#""rule":"FK001""#) || json.contains(#""rule": "FK001""#) || json.contains(#""rule" : "FK001""#), "\(json)")
        #expect(report.rendered(.junit).contains(#"name="1.0.0 -&gt; 1.1.0 -&gt; 2.0.0: lint FK001">"#))
        #expect(report.rendered(.html).contains("FK001 migrations/b.sql:2"))
        let tool = fixturekit("migrate", "--config", corpus.config)
        #expect(tool.status == 1)
        #expect(tool.standardError.contains("FK001 migrations/b.sql:2: \(Self.rebuildMessage)"), "\(tool.standardError)")
    }

    @Test func migratePassesWithAJustifiedIgnore() throws {
        let corpus = try Self.rebuild(["rules": ["FK001": "error"], "ignore": [["rule": "FK001", "stage": "migrations/b.sql", "why": "the next stage checks"]]])
        let report = try MigrationRunner.runMatrix(config: corpus.config)
        #expect(report.passed)
        let check = try #require(report.paths.first { $0.source == "1.0.0" }?.checks.first { $0.kind == .lint(rule: "FK001") })
        #expect(check.passed)
        #expect(check.message?.hasSuffix("[ignored: the next stage checks]") == true)
    }

    /// The count FK001 takes at the path's last stage is the one `migrate`'s
    /// foreign_key_check uses: rows the rebuild orphans fail the check, named.
    @Test func migrateChecksTheViolationsTheLintCounted() throws {
        let corpus = try LintCorpus(
            schema: "CREATE TABLE folders (id INTEGER PRIMARY KEY, name TEXT); CREATE TABLE notes (id INTEGER PRIMARY KEY, folder_id INTEGER REFERENCES folders(id));",
            rows: ["1.0.0": "INSERT INTO folders VALUES (1, 'a'), (2, 'b'); INSERT INTO notes VALUES (1, 1), (2, 2), (3, 1)", "1.1.0": "INSERT INTO folders VALUES (2, 'b')"],
            stage: "CREATE TABLE folders_new (id INTEGER PRIMARY KEY, name TEXT);\nINSERT INTO folders_new SELECT id, name FROM folders WHERE id <> 1;\nDROP TABLE folders;\nALTER TABLE folders_new RENAME TO folders;\n",
            current: true)
        let report = try MigrationRunner.runMatrix(config: corpus.config)
        let path = try #require(report.paths.first { $0.source == "1.0.0" && $0.kind == .path })
        let lint = try #require(path.checks.first { $0.kind == .lint(rule: "FK001") })
        #expect(lint.findings?.map(\.counts) == [["1.0.0": 2]])
        let check = try #require(path.checks.first { $0.kind == .foreignKeys })
        #expect(!check.passed)
        #expect(check.message == "2 rows violate a foreign key\nnotes: 2 rows: rowid 1: foreign key 0 (folder_id) -> folders(id); rowid 3: foreign key 0 (folder_id) -> folders(id)")
    }

    /// A count from an earlier stage is not taken for the store at the path's
    /// end: the last stage orphans rows after a rebuild that left none.
    @Test func migrateCountsAgainAfterAStageThatTheLintDidNotCount() throws {
        let corpus = try Self.rebuild([:])
        try corpus.folder.write("MigrationFixtures/migrations/a.sql", "CREATE TABLE folders_new (id INTEGER PRIMARY KEY, name TEXT);\nINSERT INTO folders_new SELECT id, name FROM folders;\nDROP TABLE folders;\nALTER TABLE folders_new RENAME TO folders;\n")
        try corpus.folder.write("MigrationFixtures/migrations/b.sql", "DELETE FROM folders;\n")
        let report = try MigrationRunner.runMatrix(config: corpus.config)
        let path = try #require(report.paths.first { $0.source == "1.0.0" && $0.kind == .path })
        #expect(path.checks.first { $0.kind == .lint(rule: "FK001") }?.findings?.map(\.counts) == [["1.0.0": 0]])
        let check = try #require(path.checks.first { $0.kind == .foreignKeys })
        #expect(!check.passed)
        #expect(check.message?.hasPrefix("1 row violates a foreign key") == true, "\(check.message ?? "")")
    }

    @Test func migrateWithoutLint() throws {
        let corpus = try Self.rebuild(["rules": ["FK001": "error"]])
        var options = MigrationRunner.Options()
        options.lint = false
        let report = try MigrationRunner.runMatrix(config: corpus.config, options: options)
        #expect(report.passed)
        #expect(!report.paths.flatMap(\.checks).contains { if case .lint = $0.kind { true } else { false } })
        #expect(fixturekit("migrate", "--config", corpus.config, "--no-lint").status == 0)
    }

    @Test func migrateLeavesTheStagesOwnWarningsAndFailuresToItsStageCheck() throws {
        let corpus = try Self.corpus(["rules": ["P001": "error"]])
        let report = try MigrationRunner.runMatrix(config: corpus.config)
        #expect(report.passed)
        #expect(!report.paths.flatMap(\.checks).contains { if case .lint = $0.kind { true } else { false } })
    }
}

/// `lint --sarif FILE`: a SARIF 2.1.0 log with the fields the schema requires;
/// GitHub Actions annotations under `GITHUB_ACTIONS=true`.
@Suite struct LintSARIFTests {
    static func corpus() throws -> LintCorpus {
        try LintCorpus(schema: "CREATE TABLE drafts (id INTEGER PRIMARY KEY, text TEXT);", rows: ["1.0.0": "INSERT INTO drafts VALUES (1, 'x')", "1.1.0": ""], stage: "PRAGMA foreign_keys = ON;\nDROP TABLE drafts;\n") { object in
            object["lint"] = ["ignore": [["rule": "P001", "stage": "migrations/b.sql", "why": "set per connection"]]]
        }
    }

    @Test func theSARIFLogHasEveryRequiredField() throws {
        let corpus = try Self.corpus()
        let path = corpus.folder.url("lint.sarif")
        let result = fixturekit("lint", "--config", corpus.config, "--sarif", path, "--quiet")
        #expect(result.status == 1)
        let log = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        // sarifLog: version "2.1.0" and runs are required.
        #expect(log["version"] as? String == "2.1.0")
        #expect(log["$schema"] as? String == "https://json.schemastore.org/sarif-2.1.0.json")
        let runs = try #require(log["runs"] as? [[String: Any]])
        #expect(runs.count == 1)
        // run: tool is required, tool.driver is required, driver.name is required.
        let driver = try #require((runs[0]["tool"] as? [String: Any])?["driver"] as? [String: Any])
        #expect(driver["name"] as? String == "fixturekit")
        let rules = try #require(driver["rules"] as? [[String: Any]])
        // reportingDescriptor: id is required.
        #expect(rules.compactMap { $0["id"] as? String } == LintRule.all.map(\.code))
        let results = try #require(runs[0]["results"] as? [[String: Any]])
        #expect(results.count == 2)
        for result in results {
            // result: message is required, with text; level is one of SARIF's four.
            #expect((result["message"] as? [String: Any])?["text"] is String)
            #expect(["none", "note", "warning", "error"].contains(result["level"] as? String ?? ""))
            let ruleIndex = try #require(result["ruleIndex"] as? Int)
            #expect(rules[ruleIndex]["id"] as? String == result["ruleId"] as? String)
            let location = try #require((result["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])
            #expect((location["artifactLocation"] as? [String: Any])?["uri"] as? String == "migrations/b.sql")
            #expect(((location["region"] as? [String: Any])?["startLine"] as? Int ?? 0) >= 1)
        }
        let drop = try #require(results.first { $0["ruleId"] as? String == "D001" })
        #expect(drop["level"] as? String == "error")
        #expect(drop["suppressions"] == nil)
        #expect((drop["message"] as? [String: Any])?["text"] as? String == "migrations/b.sql:2: DROP TABLE drafts drops rows a fixture holds, and neither \"counts\" nor \"changes\" declares \"drafts\" dropped (fixtures: 1.0.0 1 row, 1.1.0 0 rows)")
        let pragma = try #require(results.first { $0["ruleId"] as? String == "P001" })
        // A suppression: kind is required.
        #expect(pragma["suppressions"] as? [[String: String]] == [["kind": "external", "justification": "set per connection"]])
    }

    @Test func annotationsOnGitHubActionsOnly() throws {
        let corpus = try Self.corpus()
        let annotation = "::error file=migrations/b.sql,line=2,title=D001::migrations/b.sql:2: DROP TABLE drafts drops rows a fixture holds, and neither \"counts\" nor \"changes\" declares \"drafts\" dropped (fixtures: 1.0.0 1 row, 1.1.0 0 rows)"
        let on = fixturekit(["lint", "--config", corpus.config, "--quiet"], environment: ["GITHUB_ACTIONS": "true"])
        #expect(on.standardError.components(separatedBy: "\n").filter { $0.hasPrefix("::") } == [annotation])
        let off = fixturekit(["lint", "--config", corpus.config, "--quiet"])
        #expect(!off.standardError.contains("::error"))
    }

    @Test func anAnnotationsWordsAreEscaped() {
        #expect(LintReport.escapeData("50% done\r\nnext") == "50%25 done%0D%0Anext")
        #expect(LintReport.escapeProperty("a:b,c%") == "a%3Ab%2Cc%25")
    }
}
