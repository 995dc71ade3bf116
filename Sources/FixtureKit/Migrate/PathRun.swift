import Foundation
import Synchronization
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitArchiveIO
import FixtureKitModels

/// The running record of one path.
struct PathRun {
    let path: MigrationPath
    var checks: [CheckResult] = []
    var schemaDifferences: [String] = []
    /// Every statement run and every program started, in order.
    var log: [String] = []
    var copy: MigrationCopy?
    /// What the probes compare with, once the stages passed and probes were asked for.
    var probeReference: MigrationRunner.ProbeReference?
    var preservation: [ColumnPreservation] = []
    var preservationSeconds: Double = 0
    /// What the value checks could not see (``UncheckedValues``); `nil` when they did not run.
    var unchecked: [UncheckedValues]?
    /// Says each phase as it ends (`--verbose`).
    var phases: MigrationProgress?

    init(path: MigrationPath, phases: MigrationProgress? = nil) {
        self.path = path
        self.phases = phases
    }

    /// `hop 1.0.0 -> 2.0.0`, `1.0.0 -> 2.0.0 -> 3.0.0`: the path as reports name it.
    var label: String { path.kind == .hop ? "hop " + path.id : path.id }

    mutating func pass(_ kind: CheckKind, seconds: Double? = nil) {
        append(CheckResult(kind, passed: true, seconds: seconds))
    }

    /// - Parameter error: the error that kept the check from running, when the machine did.
    mutating func fail(_ kind: CheckKind, _ message: String, statement: String? = nil, seconds: Double? = nil, error: (any Error)? = nil) {
        append(CheckResult(kind, passed: false, message: message, statement: statement, seconds: seconds, error: error))
    }

    mutating func append(_ check: CheckResult) {
        checks.append(check)
        report(check)
    }

    /// Tells ``phases`` that `check` is done.
    func report(_ check: CheckResult) {
        guard let phases else { return }
        let time = check.seconds.map { String(format: " in %.2f s", $0) } ?? ""
        phases.say("\(label): \(check.name) \(check.passed ? "passed" : "FAILED")\(time)")
    }

    /// Leaves the migrated copy and what was found in `folder/<path>/`.
    func keep(in folder: String, result: PathResult) {
        let name = path.id.replacingOccurrences(of: " -> ", with: "_to_")
        let target = folder.appendingPath(path.kind == .hop ? "hop_" + name : name)
        try? FixtureFolder.createFolders(target)
        copy?.move(to: target)
        try? AtomicFile.write(Array((log.joined(separator: "\n") + "\n").utf8), to: target.appendingPath("statements.log"))
        try? AtomicFile.write(CanonicalJSON.file(result), to: target.appendingPath("checks.json"))
        try? AtomicFile.write(Array((result.schemaDifferences.joined(separator: "\n") + "\n").utf8), to: target.appendingPath("schema-diff.txt"))
    }
}

/// Where `migrate` under the global `--verbose` sends each phase of each path as it ends: one
/// line at a time, whichever path's thread has it, in the order they come.
public final class MigrationProgress: Sendable {
    private let lines: Mutex<@Sendable (String) -> Void>

    /// - Parameter body: called with each line, never by two threads at once.
    public init(_ body: @escaping @Sendable (String) -> Void) {
        lines = Mutex(body)
    }

    func say(_ line: String) {
        lines.withLock { $0(line) }
    }
}

extension ContinuousClock.Instant {
    /// The seconds from this instant to now.
    var secondsSince: Double {
        let elapsed = ContinuousClock.now - self
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
