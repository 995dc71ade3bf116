import FixtureKit

extension ProbeKind: ChoiceValue {}

/// `fixturekit probe`: runs each path's stages once plainly, then again under
/// the probes (docs/commands/probe.md), on the library's public API alone.
struct ProbeCommand: Command {
    static let only = Option<ProbeKind?>("--only", value: "KIND", help: "Run only this probe: order, zones, interrupted or size.")
    static let configuration = CommandConfiguration(
        name: "probe",
        abstract: "Run each migration path again under conditions one run never meets, and compare the results.",
        discussion: """
            For every path of the matrix (as migrate plans it), the source fixture is copied into a
            temporary folder and taken through the path's stages once plainly; then each probe runs the
            stages again on a fresh copy and compares the result with the plain run's by content hash:
              order        with PRAGMA reverse_unordered_selects = ON (a program stage gets
                           FIXTUREKIT_REVERSE_UNORDERED_SELECTS=1 and must set it on its own connection);
              zones        in each zone of "probes"."timeZones" (default UTC and Pacific/Auckland),
                           and program stages under each LC_ALL of "probes"."locales";
              interrupted  a folder stage stopped after each of its first files, a program killed
                           (SIGKILL) at each of its commits seen in its files (at most "maxPoints",
                           default 20), then run again from the start, "record" skipping what ran;
              size         the tables grown x2, x4, x8 with new keys, each stage's growth exponent
                           fitted (by SQLite's VM steps; wall time for programs): above 1.3 fails,
                           as does a time predicted at "probes"."size" beyond its "budget".
            A difference names the table, the column and up to 5 rows, counted per fixture. "probes"."run"
            chooses the probes (default all); --only runs one. Each probe's time is in every report.
            The migrated copies are not checked (migrate --probes checks them and probes them).
            A stage runs at most its "timeout" (default 600 s); every copy is removed.
            Exit status: 0 every probe passed, 1 one failed or a path's stages failed, 2 the configuration
            could not be read or a run could not be made for want of the machine; 130 or 143 interrupted.
            """,
        options: [
            Shared.config.erased, MigrateCommand.from.erased, only.erased, MigrateCommand.jobs.erased, MigrateCommand.shard.erased,
            MigrateCommand.junit.erased, MigrateCommand.html.erased, Shared.json.erased,
        ]
    )

    var config: String
    var options: MigrationRunner.Options
    var only: ProbeKind?
    var junit: String?
    var html: String?
    var json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        config = try parsed.get(Shared.config)
        options = MigrationRunner.Options(from: try parsed.get(MigrateCommand.from), jobs: try parsed.get(MigrateCommand.jobs)?.value)
        if let shard = try parsed.get(MigrateCommand.shard) { options.shard = (shard.index, shard.count) }
        options.checks = false
        only = try parsed.get(Self.only)
        junit = try parsed.get(MigrateCommand.junit)
        html = try parsed.get(MigrateCommand.html)
        json = parsed.get(Shared.json)
    }

    func run(_ console: Console) throws -> ExitCode {
        try MigrateCommand.run(config: config, options: options, reports: (junit, html, json), console: console, command: "probe") { runner in
            only.map { [$0] } ?? runner.configuration.configuredProbes
        }
    }
}
