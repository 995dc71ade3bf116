import Foundation
import Synchronization
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// The checks a migrated store must pass, shared by the migration matrix (on
/// temporary copies) and `upgrade` (on the live store, under its lock).
enum MigrationChecks {
    /// Problems `integrity_check` reports at most: the first few say enough.
    static let integrityProblemLimit = 20

    /// `PRAGMA integrity_check`: passes when SQLite answers `ok`.
    /// - Throws: ``SQLiteError`` when the pragma cannot run at all.
    static func integrity(_ database: Database) throws(SQLiteError) -> CheckResult {
        let name = "integrity_check"
        let lines = try database.rows("PRAGMA integrity_check(\(integrityProblemLimit))").compactMap { $0.first?.text }
        guard lines == ["ok"] else {
            return CheckResult(name: name, passed: false, message: lines.joined(separator: "\n"), statement: "PRAGMA integrity_check")
        }
        return CheckResult(name: name, passed: true)
    }

    /// `integrity_check` of the store at `path`, split so that it uses `workers`
    /// cores (the caller's thread is one, once it asks for the result), each
    /// with its own read-only connection: `PRAGMA quick_check`
    /// of the whole file (the structure of every b-tree, the freelist, pages
    /// used twice or never), and `PRAGMA integrity_check(TABLE)` of one table at
    /// a time (its b-tree, its indexes, and their entries against its rows).
    /// Together they check what `integrity_check` does; the largest tables
    /// (by `sizes`) start first.
    static func integrity(path: String, sizes: [String: Int], workers: Int) -> ParallelIntegrityCheck {
        ParallelIntegrityCheck(path: path, sizes: sizes, workers: workers)
    }

    /// `PRAGMA foreign_key_check`: passes when no more rows violate a foreign key
    /// than `baseline` (a live store may have had some before its migration: only
    /// new ones are the migration's doing).
    /// - Throws: ``SQLiteError`` when the pragma cannot run at all.
    static func foreignKeys(_ database: Database, baseline: Int = 0) throws(SQLiteError) -> CheckResult {
        let name = "foreign_key_check"
        let violations = try database.rows("PRAGMA foreign_key_check")
        guard violations.count > baseline else { return CheckResult(name: name, passed: true) }
        let lines = violations.prefix(5).map { "\($0[0]) rowid \($0[1]) -> \($0[2])" }
        var message = "\(violations.count) \(violations.count == 1 ? "row violates" : "rows violate") a foreign key"
        if baseline > 0 { message += " (\(baseline) before the migration)" }
        return CheckResult(name: name, passed: false, message: message + ": " + lines.joined(separator: "; "), statement: "PRAGMA foreign_key_check")
    }

    /// Tables whose row count changed without the configuration saying it may.
    /// - Parameters:
    ///   - source: the version the counts `before` were taken at, for messages.
    ///   - atCurrent: whether the migration ends at the current version, where a
    ///     table declared `dropped` must be gone.
    static func countProblems(rules: [String: CorpusConfiguration.CountRule], source: String, before: [String: Int], after: [String: Int], atCurrent: Bool) -> [String] {
        var problems: [String] = []
        for (table, count) in before.sorted(by: { $0.key < $1.key }) {
            let rule = rules[table] ?? .preserved
            switch (after[table], rule) {
            case (nil, .dropped), (_, .changes):
                continue
            case (nil, .preserved):
                if count > 0 { problems.append("\(table): \(count) rows in \(source), the table is gone (declare it \"dropped\" in counts)") }
            case (.some(let now), .preserved) where now != count:
                problems.append("\(table): \(count) rows in \(source), \(now) after the migration")
            case (.some, .dropped) where atCurrent:
                problems.append("\(table): declared dropped, still there")
            default:
                continue
            }
        }
        return problems
    }

    /// The row-count check as one result.
    static func counts(rules: [String: CorpusConfiguration.CountRule], source: String, before: [String: Int], after: [String: Int], atCurrent: Bool) -> CheckResult {
        let problems = countProblems(rules: rules, source: source, before: before, after: after, atCurrent: atCurrent)
        return CheckResult(name: "row counts", passed: problems.isEmpty, message: problems.isEmpty ? nil : problems.joined(separator: "\n"))
    }

    /// The configuration's own checks: each query against the result it must give.
    /// A query is read only as far as `expect` needs (its first row for a
    /// scalar, one row more than it lists for an array), so a query that
    /// returns a whole table costs no memory.
    static func configured(_ checks: [CorpusConfiguration.Check], on database: Database) -> [CheckResult] {
        checks.map { check in
            let start = ContinuousClock.now
            var result = configured(check, on: database)
            result.seconds = start.secondsSince
            return result
        }
    }

    private static func configured(_ check: CorpusConfiguration.Check, on database: Database) -> CheckResult {
        do throws(SQLiteError) {
            let statement = try database.prepare(check.sql)
            var wanted = 1
            if case .array(let rows) = check.expect { wanted = rows.count + 1 }
            var rows: [[SQLiteValue]] = []
            while rows.count < wanted, try statement.step() { rows.append(statement.row()) }
            var more = false
            if rows.count == wanted, wanted > 1 { more = try statement.step() }
            if let mismatch = ExpectedResult.mismatch(rows, expect: check.expect, more: more) {
                return CheckResult(name: check.name, passed: false, message: mismatch, statement: check.sql)
            }
            return CheckResult(name: check.name, passed: true)
        } catch {
            return CheckResult(name: check.name, passed: false, message: error.description, statement: check.sql)
        }
    }
}

/// An integrity check running on threads of its own while the caller goes on;
/// ``result()`` has the caller take the tasks no thread has started, then
/// waits. See ``MigrationChecks/integrity(path:sizes:workers:)``.
final class ParallelIntegrityCheck: Sendable {
    private let path: String
    private let done = DispatchGroup()
    /// `PRAGMA` statements, one a task, the longest first.
    private let tasks: [String]
    /// The page cache of each task's connection, in KiB: a share of
    /// ``cacheBudgetKiB``. `integrity_check` looks up every row's entry in each
    /// index, in the index's order rather than the table's: with SQLite's
    /// default 2 MiB most of those reads are system calls (a 640 MiB store:
    /// 7.4 s with 2 MiB, 5.1 s with 32 MiB). Two threads: 16 MiB each.
    private let cacheKiB: Int
    static let cacheBudgetKiB = 32768
    private let next = Atomic<Int>(0)
    /// Each task's problems (nil: not run), in task order.
    private let outcomes: Mutex<[[String]?]>
    /// Why a task could not run at all.
    private let failure = Mutex<String?>(nil)
    /// When the check started, and when its last task ended.
    private let started = ContinuousClock.now
    private let ended = Mutex<ContinuousClock.Instant?>(nil)

    /// Starts `workers - 1` threads: the caller is the last worker.
    fileprivate init(path: String, sizes: [String: Int], workers: Int) {
        self.path = path
        cacheKiB = max(2048, Self.cacheBudgetKiB / max(1, workers))
        var tables: [String] = []
        do throws(SQLiteError) {
            let database = try Database(path: path, options: .init(readOnly: true))
            tables = try database.rows("SELECT name FROM sqlite_schema WHERE type = 'table' AND rootpage > 0").compactMap { $0.first?.text }
            try database.close()
        } catch {
            failure.withLock { $0 = error.description }
        }
        // (A table whose name reads as a number gets the whole check: SQLite
        // takes the number for the pragma's limit. That checks more, not less.)
        let bySize = tables.sorted { (sizes[$0] ?? 0, $1) > (sizes[$1] ?? 0, $0) }
        tasks = bySize.map { "PRAGMA integrity_check(\(quotedLiteral($0)))" } + ["PRAGMA quick_check(\(MigrationChecks.integrityProblemLimit))"]
        outcomes = Mutex(Array(repeating: nil, count: tasks.count))
        for _ in 0..<max(0, min(workers, tasks.count) - 1) {
            done.enter()
            // At the path's own priority: the threads are as many as the cores
            // the paths leave, so they take no core from the path's thread; a
            // lower one would hand their share to whatever else runs on the
            // machine (a CI runner's other jobs), and the path would wait for them.
            Thread { [self] in
                work()
                done.leave()
            }.start()
        }
    }

    /// Runs tasks on a connection of its own until none is left.
    private func work() {
        guard next.load(ordering: .relaxed) < tasks.count else { return }
        let database: Database
        do throws(SQLiteError) {
            database = try Database(path: path, options: .init(readOnly: true))
            try database.execute("PRAGMA cache_size = -\(cacheKiB)")
        } catch {
            failure.withLock { $0 = $0 ?? error.description }
            return
        }
        defer { try? database.close() }
        while true {
            let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard index < tasks.count else { return }
            do throws(SQLiteError) {
                let lines = try database.rows(tasks[index]).compactMap { $0.first?.text }.filter { $0 != "ok" }
                outcomes.withLock { $0[index] = lines }
                let now = ContinuousClock.now
                ended.withLock { $0 = max($0 ?? now, now) }
            } catch {
                failure.withLock { $0 = $0 ?? error.description }
            }
        }
    }

    /// Works on what is left, waits for the threads, then the check's result:
    /// the problems in task order, each once, at most
    /// ``MigrationChecks/integrityProblemLimit``.
    func result() -> CheckResult {
        work()
        done.wait()
        var result = problems()
        let end = ended.withLock { $0 } ?? ContinuousClock.now
        let elapsed = end - started
        result.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return result
    }

    private func problems() -> CheckResult {
        let name = "integrity_check"
        if let failure = failure.withLock({ $0 }) {
            return CheckResult(name: name, passed: false, message: failure, statement: "PRAGMA integrity_check")
        }
        var seen: Set<String> = []
        let problems = outcomes.withLock { $0 }.flatMap { $0 ?? [] }.filter { seen.insert($0).inserted }
        guard problems.isEmpty else {
            return CheckResult(
                name: name, passed: false, message: problems.prefix(MigrationChecks.integrityProblemLimit).joined(separator: "\n"),
                statement: "PRAGMA integrity_check")
        }
        return CheckResult(name: name, passed: true)
    }
}
