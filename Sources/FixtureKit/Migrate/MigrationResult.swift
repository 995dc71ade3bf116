import FixtureKitSystem

/// One check of one migration path, passed or not.
public struct CheckResult: Codable, Equatable, Sendable {
    /// `fixture 1.0.0 verifies`, `stage 1.0.0 -> 2.0.0`, `integrity_check`, a configured check's name.
    public var name: String
    public var passed: Bool
    /// What went wrong, in plain words; each difference on its own line.
    public var message: String?
    /// The statement that failed, when one did.
    public var statement: String?
    /// What it took: for `fixture V verifies`, verifying the fixture (shared by
    /// the paths from V) and copying it for this path; for a stage, the stage;
    /// for `integrity_check`, from its start to its last thread's end (it runs
    /// beside the other checks); for `data preserved`, the value-level diff.
    public var seconds: Double?
    /// For `foreign_key_check`: the rows that violate a foreign key, per table.
    public var foreignKeyViolations: [ForeignKeyViolations]?
    /// For a stage: the settings it ran with (``CorpusConfiguration/appliedConnection(of:)``):
    /// the SQLite settings of fixturekit's connection and the process' `TZ` for
    /// an SQL or Swift stage, the environment of a program.
    public var connection: ConnectionSettings?
    /// For a stage: its statements that did nothing where they stand (`FILE:LINE:
    /// PRAGMA foreign_keys=ON does nothing here: ...`); they fail it with `"strictStages": true`.
    public var warnings: [String]?

    package init(name: String, passed: Bool, message: String? = nil, statement: String? = nil, seconds: Double? = nil) {
        (self.name, self.passed, self.message, self.statement, self.seconds) = (name, passed, message, statement, seconds)
    }

    /// The same outcome: name, result, message and statement; the time is not
    /// part of it (two runs of one check never take the same time).
    public static func == (lhs: CheckResult, rhs: CheckResult) -> Bool {
        (lhs.name, lhs.passed, lhs.message, lhs.statement) == (rhs.name, rhs.passed, rhs.message, rhs.statement)
    }
}

/// What happened on one migration path.
public struct PathResult: Codable, Equatable, Sendable {
    public var id: String
    public var kind: MigrationPath.Kind
    public var source: String
    public var target: String
    public var passed: Bool
    public var seconds: Double
    public var checks: [CheckResult]
    /// The schema differences from the target's fixture, one per line.
    public var schemaDifferences: [String]
    /// Per table and column: rows compared, equal, lost, values changed.
    public var preservation: [ColumnPreservation]
    /// What the value-level comparison cost, apart from the rest.
    public var preservationSeconds: Double
    /// The other versions this path stands for (``MigrationPath/alsoFor``).
    public var alsoFor: [String]? = nil
    /// `true` when the path failed for want of the machine, not of the migration:
    /// its fixture could not be copied, the temporary folder filled up. Such a
    /// failure makes `migrate` exit 2, never 1.
    public var couldNotRun: Bool?
    /// The tables and columns of the target that no value of the source
    /// fixture stands for, so that the value checks could not see them;
    /// `nil` when the values were not compared.
    public var unchecked: [UncheckedValues]?
    /// The configuration's checks this path does not run: their `from` leaves
    /// out its source version.
    public var outOfRange: [String]?

    /// The first check that failed.
    public var firstFailure: CheckResult? { checks.first { !$0.passed } }
}

/// The whole matrix's results.
public struct MigrationReport: Codable, Equatable, Sendable {
    public var current: String
    /// `1/2` when the matrix was split with `--shard`.
    public var shard: String?
    public var paths: [PathResult]
    /// `SIGTERM` when fixturekit received it: the paths that had not started did not run.
    public var interrupted: String?
    /// The paths selected (those that ran, unless the run was interrupted).
    public var selected: Int?
    /// The run at a glance.
    public var summary: Summary?

    public struct Summary: Codable, Equatable, Sendable {
        public var passed: Int
        public var failed: Int
        /// Paths of the matrix this run left out: other shards' (`--shard`),
        /// and those that do not start at `--from`.
        public var skipped: Int
        /// The whole run, from its start to its last path's end.
        public var seconds: Double
    }

    /// Lines of a finding, or entries of a list, that the summary and the HTML
    /// page show before they fold the rest under their count (`--json` and
    /// JUnit hold every one).
    package static let shownLines = 20

    public var passed: Bool { paths.allSatisfy(\.passed) }
    public var failedCount: Int { paths.filter { !$0.passed }.count }
    /// The paths that failed for want of the machine (``PathResult/couldNotRun``).
    public var couldNotRunCount: Int { paths.filter { $0.couldNotRun == true }.count }
}
