import Foundation
import Testing
@testable import FixtureKit


/// A corpus for the lint's rules, built in code: two fixtures of one schema that
/// hold different rows (`1.0.0`, `1.1.0`), a first stage that does nothing
/// (`migrations/a.sql`, 1.0.0 -> 1.1.0) and the stage under test
/// (`migrations/b.sql`, 1.1.0 -> 2.0.0), which both fixtures run.
struct LintCorpus: CodeBuiltCorpus {
    let folder: TemporaryFolder

    /// - Parameters:
    ///   - schema: the schema of both fixtures.
    ///   - rows: the rows of each fixture, by version (SQL).
    ///   - stage: `migrations/b.sql`.
    ///   - current: also a fixture of 2.0.0, for `migrate`: the schema after `stage`, with 1.1.0's rows.
    ///   - edit: changes to fixturekit.json.
    init(schema: String, rows: [String: String], stage: String, current: Bool = false, edit: (inout [String: Any]) -> Void = { _ in }) throws {
        folder = try TemporaryFolder()
        for version in ["1.0.0", "1.1.0"] {
            try make(version, schema: schema) { try $0.execute(rows[version] ?? "") }
        }
        if current {
            try make("2.0.0", schema: schema) { database in
                try database.execute(rows["1.1.0"] ?? "")
                try database.execute(stage)
            }
        }
        try folder.write("MigrationFixtures/migrations/a.sql", "SELECT 1;\n")
        try folder.write("MigrationFixtures/migrations/b.sql", stage)
        var object: [String: Any] = [
            "store": "App.sqlite", "current": "2.0.0", "supported": ["1.0.0", "1.1.0"], "anonymize": false,
            "stages": [
                ["from": "1.0.0", "to": "1.1.0", "sql": "migrations/a.sql"],
                ["from": "1.1.0", "to": "2.0.0", "sql": "migrations/b.sql"],
            ],
        ]
        edit(&object)
        try writeConfiguration(object)
    }

    func lint() throws -> LintReport {
        try MigrationRunner.prepareMatrix(config: config).lint()
    }

    /// The findings of `rule`.
    func findings(_ rule: LintRule) throws -> [LintFinding] {
        try lint().findings.filter { $0.rule == rule.code }
    }
}
