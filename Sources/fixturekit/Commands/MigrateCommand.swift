import FixtureKit

/// `fixturekit migrate`: runs the migration matrix and reports, on the library's
/// public API alone (docs/library.md), as an app's own test could.
struct MigrateCommand: Command {
    static let from = Option<String?>("--from", value: "V", help: "Only the paths that start at version V.")
    static let jobs = Option<PositiveNumber?>("--jobs", "-j", value: "N", shownDefault: "every core", help: "Paths run at once.")
    static let shard = Option<Shard?>("--shard", value: "I/N", help: "Run the I-th of N equal shares of the matrix.")
    static let junit = Option<String?>("--junit", value: "FILE", help: "Also write a JUnit XML report.", completion: .file)
    static let html = Option<String?>("--html", value: "FILE", help: "Also write the matrix as one self-contained HTML page.", completion: .file)
    static let noLint = Flag("--no-lint", help: "Do not lint the stages as they run (see fixturekit lint).")
    static let keepFailed = Option<String?>("--keep-failed", value: "DIR", help: "Keep each failed path's migrated copy, log and findings in DIR.", completion: .folder)
    static let probes = Flag("--probes", help: "Also run the probes the configuration's \"probes\" names (see 'fixturekit probe').")
    static let configuration = CommandConfiguration(
        name: "migrate",
        abstract: "Migrate every supported version's fixture to the current version and check the result.",
        discussion: """
            For every supported version, its fixture is verified, copied into a temporary folder and
            taken through the chain of stages to the current version; every stage is also run on its
            own. Each copy is then checked: integrity_check, foreign_key_check, user_version, the schema
            against the current version's fixture, row counts, every value by key, and the configuration's
            own checks, and the lint's rules on the stages as they run (a "lint RULE" check for each rule
            that found something; an error-level finding fails the path unless "lint" in fixturekit.json
            ignores it with a reason; --no-lint turns it off). The summary gives each path's time and
            where it went; --verbose prints each phase as it ends. Paths start most expensive first;
            --shard deals them out by expected cost (fixture size times stages), so the shares take
            about the same time.
            --html writes the matrix as one HTML page (no script, no network): a grid of paths against
            checks, and each failure with its statement, schema differences and data findings.
            A stage runs at most its "timeout" (default 600 s); every process it starts ends with it.
            Exit status: 0 every path passed, 1 one failed, 2 the configuration could not be read or a
            path could not run for want of the machine (the temporary folder is missing or full, a
            report file cannot be written: both are checked before the matrix runs); 130 or 143
            interrupted by SIGINT or SIGTERM (the stages running are ended, the temporary copies removed,
            no report written).
            --probes also runs, on each path that passed its stages, the probes of the configuration's
            "probes" (every probe when it names none), as 'fixturekit probe' does.
            """,
        options: [Shared.config.erased, from.erased, jobs.erased, shard.erased, junit.erased, html.erased, keepFailed.erased, probes.erased, noLint.erased, Shared.json.erased]
    )

    var config: String
    var options: MigrationRunner.Options
    var junit: String?
    var html: String?
    var json: Bool
    var probes: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        config = try parsed.get(Shared.config)
        options = MigrationRunner.Options(from: try parsed.get(Self.from), jobs: try parsed.get(Self.jobs)?.value, keepFailed: try parsed.get(Self.keepFailed))
        if let shard = try parsed.get(Self.shard) { options.shard = (shard.index, shard.count) }
        options.lint = !parsed.get(Self.noLint)
        junit = try parsed.get(Self.junit)
        html = try parsed.get(Self.html)
        json = parsed.get(Shared.json)
        probes = parsed.get(Self.probes)
    }

    func run(_ console: Console) throws -> ExitCode {
        try Self.run(config: config, options: options, reports: (junit, html, json), console: console, command: "migrate") { runner in
            probes ? runner.configuration.configuredProbes : []
        }
    }

    /// Prepares the matrix, runs it with the probes `probes` chooses, prints the
    /// text report and writes the others: `migrate` and `probe` alike.
    /// - Parameter command: the command the lines and messages name.
    static func run(
        config: String, options: MigrationRunner.Options, reports: (junit: String?, html: String?, json: Bool), console: Console, command: String,
        probes: (MigrationRunner) -> [ProbeKind]
    ) throws -> ExitCode {
        var options = options
        options.progress = console.work
        let runner = try MigrationRunner.prepareMatrix(config: config, options: options)
        options.probes = probes(runner)
        // What would fail only after the matrix ran, and read as a regression, is checked first.
        try MigrationRunner.checkTemporaryFolder()
        if let junit = reports.junit { try MigrationRunner.checkReportFile(junit, format: .junit) }
        if let html = reports.html { try MigrationRunner.checkReportFile(html, format: .html) }
        if reports.json { try console.requireStandardOutput(for: "write JSON report") }
        // SIGINT and SIGTERM stop the matrix cleanly.
        if console.handlesSignals { options.cancellation = Interruption.install() }
        if console.verbosity == .verbose {
            // Each phase of each path as it ends, under the shared --verbose.
            options.phases = MigrationProgress { [console] in console.detail("\(command): " + $0) }
        }
        let report = runner.run(options)
        for (line, isProblem) in MigrationText.lines(report, config: config, command: command) {
            if isProblem { console.message(line) } else { console.info(line) }
        }
        if let interrupted = report.interrupted {
            console.error("\(command): interrupted: fixturekit received \(interrupted); \(report.paths.count) of \(report.selected ?? report.paths.count) paths ran, their temporary copies were removed, no report was written")
            return .interrupted(by: options.cancellation?.reason)
        }
        if let junit = reports.junit { try report.write(.junit, to: junit) }
        if let html = reports.html { try report.write(.html, to: html, configuration: config) }
        if reports.json { try console.outputReport(report.rendered(.json), what: "write JSON report") }
        if report.couldNotRunCount > 0 { return .couldNotWork }
        return report.passed ? .success : .checkFailed
    }
}
