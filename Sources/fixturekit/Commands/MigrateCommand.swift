#if canImport(Glibc)
import Glibc
#endif
import FixtureKit

/// `fixturekit migrate`: runs the migration matrix and reports.
struct MigrateCommand: Command {
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
            A stage runs at most its "timeout" (default 600 s); every process it starts ends with it.
            Exit status: 0 every path passed, 1 one failed, 2 the configuration could not be read or a
            path could not run for want of the machine (the temporary folder is missing or full, a
            report file cannot be written: both are checked before the matrix runs); 130 or 143
            interrupted by SIGINT or SIGTERM (the stages running are ended, the temporary copies removed,
            no report written).
            """,
        options: [
            .option("--config", value: "FILE", help: "The corpus configuration (default: MigrationFixtures/fixturekit.json)."),
            .option("--from", value: "V", help: "Only the paths that start at version V."),
            .option("--jobs", "-j", value: "N", help: "Paths run at once (default: every core)."),
            .option("--shard", value: "I/N", help: "Run the I-th of N equal shares of the matrix."),
            .option("--junit", value: "FILE", help: "Also write a JUnit XML report."),
            .option("--html", value: "FILE", help: "Also write the matrix as one self-contained HTML page."),
            .option("--keep-failed", value: "DIR", help: "Keep each failed path's migrated copy, log and findings in DIR."),
            .json,
        ]
    )

    var config: String
    var options: MigrationRunner.Options
    var junit: String?
    var html: String?
    var json: Bool

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Self.configuration.parse(arguments)
        config = parsed.value("--config") ?? "MigrationFixtures/fixturekit.json"
        options = MigrationRunner.Options(from: parsed.value("--from"), jobs: try parsed.jobs(), keepFailed: parsed.value("--keep-failed"))
        if let shard = parsed.value("--shard") {
            let parts = shard.split(separator: "/").compactMap { Int($0) }
            guard parts.count == 2, parts[1] > 0, (1...parts[1]).contains(parts[0]) else {
                throw UsageError("'--shard' needs I/N with 1 <= I <= N, not '\(shard)'")
            }
            options.shard = (parts[0], parts[1])
        }
        junit = parsed.value("--junit")
        html = parsed.value("--html")
        json = parsed.flag("--json")
    }

    func run(_ console: Console) throws -> ExitCode {
        let corpus = try CorpusConfiguration.load(config)
        if let from = options.from, !corpus.supported.contains(from), !corpus.stages.contains(where: { $0.from == from }) {
            throw FixtureKitError(what: "migrate", path: config, why: "no path starts at \(from)", category: .usage)
        }
        // What would fail only after the matrix ran, and read as a regression, is checked first.
        try MigrationRunner.checkTemporaryFolder()
        if let junit { try MigrationRunner.checkReportFile(junit, what: "write JUnit report") }
        if let html { try MigrationRunner.checkReportFile(html, what: "write HTML report") }
        if json, fcntl(STDOUT_FILENO, F_GETFL) < 0 {
            throw FixtureKitError(what: "write JSON report", path: "stdout", why: "not open", hint: "nothing was run")
        }
        if console.handlesSignals { Interruption.install() }
        let report = MigrationRunner(configuration: corpus).run(options)
        for line in MigrationText.lines(report, config: config) { console.message(line) }
        if let interrupted = report.interrupted {
            console.error("migrate: interrupted: fixturekit received \(interrupted); \(report.paths.count) of \(report.selected ?? report.paths.count) paths ran, their temporary copies were removed, no report was written")
            return .interrupted
        }
        if let junit { try report.writeJUnit(to: junit) }
        if let html { try report.writeHTML(to: html, configuration: config) }
        if json {
            console.output(Formatting.json(report))
            if let code = console.outputError {
                throw FixtureKitError(what: "write JSON report", path: "stdout", why: FileSystemError("write", path: "stdout", errno: code).reason)
            }
        }
        if report.couldNotRunCount > 0 { return .couldNotWork }
        return report.passed ? .success : .checkFailed
    }
}
