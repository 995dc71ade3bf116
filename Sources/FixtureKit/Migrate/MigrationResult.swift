import FixtureKitSystem

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
    /// Why the run stopped before its end, when it was cancelled
    /// (``MigrationRunner/Options/cancellation``): `SIGTERM` when fixturekit
    /// received it, `cancelled` when the caller cancelled it. The paths that had
    /// not started did not run; those that were running failed, their stage interrupted.
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
