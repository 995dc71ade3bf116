import FixtureKit

/// `fixturekit lint`: the plan's hazards, counted on every fixture.
struct LintCommand: Command {
    static let configuration = CommandConfiguration(
        name: "lint",
        abstract: "Run every stage on a copy of each fixture it applies to and report its hazards, counted per fixture.",
        discussion: """
            Each supported version's fixture is verified, copied into a temporary folder and taken
            through its chain of stages while SQLite's own instruments watch each statement (the
            authorizer, the schema pragmas, sqlite_sequence, the errors SQLite gives): a new UNIQUE
            where a fixture holds duplicates, NOT NULL where it holds NULLs, a PRAGMA SQLite ignores,
            a DROP of data that is not declared, a rebuild that forgets a column or skips
            foreign_key_check, and more (docs/commands/lint.md lists every rule). One line per finding:
            RULE FILE:LINE: message (fixtures: 1.0.0 3 rows, 1.2.0 0 rows). "lint" in fixturekit.json
            sets a rule's severity ("rules": {"FK001": "error"}) and lets a finding stand
            ("ignore": [{"rule", "stage", "why"}]). --sarif writes the findings as SARIF 2.1.0; on
            GitHub Actions (GITHUB_ACTIONS=true) each finding is also printed as an annotation
            (::error file=...,line=...::). Exit status: 0 no error-level finding stands, 1 one
            does or a fixture could not be used, 2 the configuration could not be read.
            """,
        options: [Shared.config.erased, sarif.erased, Shared.json.erased]
    )
    static let sarif = Option<String?>("--sarif", value: "FILE", help: "Also write the findings as SARIF 2.1.0, for code-scanning pages.", completion: .file)

    var config: String
    var sarif: String?
    var json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        config = try parsed.get(Shared.config)
        sarif = try parsed.get(Self.sarif)
        json = parsed.get(Shared.json)
    }

    func run(_ console: Console) throws -> ExitCode {
        let runner = try MigrationRunner.prepareMatrix(config: config)
        try MigrationRunner.checkTemporaryFolder()
        if let sarif { try MigrationRunner.checkReportFile(sarif, format: .json) }
        if json { try console.requireStandardOutput(for: "write JSON report") }
        let cancellation = console.handlesSignals ? Interruption.install() : nil
        let report = runner.lint(cancellation: cancellation)
        if let reason = cancellation?.reason {
            console.error("lint: interrupted: fixturekit received \(reason.name); no report was written")
            return .interrupted(by: reason)
        }
        for problem in report.problems { console.error("lint: \(problem)") }
        for finding in report.findings {
            if let why = finding.ignored {
                console.info("\(finding.text) [ignored: \(why)]")
            } else {
                console.message(finding.text)
            }
        }
        console.info("lint: \(report.summary)")
        // On GitHub Actions, each finding is also an annotation on its stage's line.
        if console.environment["GITHUB_ACTIONS"] == "true" {
            for line in report.githubAnnotations() { console.message(line) }
        }
        if let sarif { try report.writeSARIF(to: sarif) }
        if json { try console.outputReport(Formatting.json(report), what: "write JSON report") }
        return report.passed ? .success : .checkFailed
    }
}
