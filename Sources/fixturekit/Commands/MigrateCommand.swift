import FixtureKit

/// `fixturekit migrate`: runs the migration matrix and reports.
struct MigrateCommand: Command {
    static let from = Option<String?>("--from", value: "V", help: "Only the paths that start at version V.")
    static let jobs = Option<PositiveNumber?>("--jobs", "-j", value: "N", shownDefault: "every core", help: "Paths run at once.")
    static let shard = Option<Shard?>("--shard", value: "I/N", help: "Run the I-th of N equal shares of the matrix.")
    static let junit = Option<String?>("--junit", value: "FILE", help: "Also write a JUnit XML report.", completion: .file)
    static let html = Option<String?>("--html", value: "FILE", help: "Also write the matrix as one self-contained HTML page.", completion: .file)
    static let keepFailed = Option<String?>("--keep-failed", value: "DIR", help: "Keep each failed path's migrated copy, log and findings in DIR.", completion: .folder)
    static let configuration = CommandConfiguration(
        name: "migrate",
        abstract: "Migrate every supported version's fixture to the current version and check the result.",
        discussion: """
            For every supported version, its fixture is verified, copied into a temporary folder and
            taken through the chain of stages to the current version; every stage is also run on its
            own. Each copy is then checked: integrity_check, foreign_key_check, user_version, the schema
            against the current version's fixture, row counts, and the configuration's own checks.
            --html writes the matrix as one HTML page (no script, no network): a grid of paths against
            checks, and each failure with its statement, schema differences and data findings.
            Exit status: 0 every path passed, 1 one failed, 2 the configuration could not be read.
            """,
        options: [Shared.config.erased, from.erased, jobs.erased, shard.erased, junit.erased, html.erased, keepFailed.erased, Shared.json.erased]
    )

    var config: String
    var options: MigrationRunner.Options
    var junit: String?
    var html: String?
    var json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        config = try parsed.get(Shared.config)
        options = MigrationRunner.Options(from: try parsed.get(Self.from), jobs: try parsed.get(Self.jobs)?.value, keepFailed: try parsed.get(Self.keepFailed))
        if let shard = try parsed.get(Self.shard) { options.shard = (shard.index, shard.count) }
        junit = try parsed.get(Self.junit)
        html = try parsed.get(Self.html)
        json = parsed.get(Shared.json)
    }

    func run(_ console: Console) throws -> ExitCode {
        var options = self.options
        options.progress = console.work
        let report = try MigrationRunner.runMatrix(config: config, options: options)
        let lines = MigrationText.lines(report, config: config)
        for (line, isProblem) in lines {
            if isProblem { console.message(line) } else { console.info(line) }
        }
        if let junit { try report.writeJUnit(to: junit) }
        if let html { try report.writeHTML(to: html, configuration: config) }
        if json { console.output(Formatting.json(report)) }
        return report.passed ? .success : .checkFailed
    }
}
