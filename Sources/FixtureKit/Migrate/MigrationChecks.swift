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
        let lines = try database.rows("PRAGMA integrity_check(\(integrityProblemLimit))").compactMap { $0.first?.text }
        guard lines == ["ok"] else {
            return CheckResult(.integrity, passed: false, message: lines.joined(separator: "\n"), statement: "PRAGMA integrity_check")
        }
        return CheckResult(.integrity, passed: true)
    }

    /// `integrity_check` of the store at `path`, split so that it uses `workers`
    /// threads of its own, started at once, each with its own read-only
    /// connection (the caller's thread takes what is left once it asks for the
    /// result): `PRAGMA quick_check`
    /// of the whole file (the structure of every b-tree, the freelist, pages
    /// used twice or never), and `PRAGMA integrity_check(TABLE)` of one table at
    /// a time (its b-tree, its indexes, and their entries against its rows).
    /// Together they check what `integrity_check` does; the largest tables
    /// (by `sizes`, times one plus their indexes) start first; with one
    /// worker, only when ``ParallelIntegrityCheck/splits(_:workers:)`` says so.
    static func integrity(path: String, sizes: [String: Int], workers: Int) -> ParallelIntegrityCheck {
        ParallelIntegrityCheck(path: path, sizes: sizes, workers: workers)
    }

    /// `PRAGMA foreign_key_check`: passes when no more rows violate a foreign key
    /// than `baseline` (a live store may have had some before its migration: only
    /// new ones are the migration's doing).
    /// - Throws: ``SQLiteError`` when the pragma cannot run at all.
    static func foreignKeys(_ database: Database, baseline: Int = 0) throws(SQLiteError) -> CheckResult {
        let violations = try ForeignKeyFindings.find(database)
        guard violations.reduce(0, { $0 + $1.count }) > baseline else { return CheckResult(.foreignKeys, passed: true) }
        var result = CheckResult(.foreignKeys, passed: false, message: ForeignKeyFindings.message(violations, baseline: baseline), statement: "PRAGMA foreign_key_check")
        result.foreignKeyViolations = violations
        return result
    }

    /// Tables whose row count changed without the configuration saying it may.
    /// - Parameters:
    ///   - source: the version the counts `before` were taken at, for messages.
    ///   - atCurrent: whether the migration ends at the current version, where a
    ///     table declared `dropped` must be gone.
    ///   - renamed: the new name of each table declared renamed (by its old
    ///     name, as `identifierKey` gives it): its rows are counted under it.
    static func countProblems(rules: [String: CorpusConfiguration.CountRule], source: String, before: [String: Int], after: [String: Int], atCurrent: Bool, renamed: [String: String] = [:]) -> [String] {
        // Rules and tables by name as SQLite matches it: a rule on `users`
        // is one on `Users`, and a case-only rename keeps the table.
        let rules = Dictionary(rules.map { ($0.key.identifierKey, $0.value) }, uniquingKeysWith: { first, _ in first })
        let after = Dictionary(after.map { ($0.key.identifierKey, $0.value) }, uniquingKeysWith: { first, _ in first })
        var problems: [String] = []
        for (table, count) in before.sorted(by: { $0.key < $1.key }) {
            let rule = rules[table.identifierKey] ?? .preserved
            switch (after[table.identifierKey] ?? renamed[table.identifierKey].flatMap { after[$0.identifierKey] }, rule) {
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
    static func counts(rules: [String: CorpusConfiguration.CountRule], source: String, before: [String: Int], after: [String: Int], atCurrent: Bool, renamed: [String: String] = [:]) -> CheckResult {
        let problems = countProblems(rules: rules, source: source, before: before, after: after, atCurrent: atCurrent, renamed: renamed)
        return CheckResult(.rowCounts, passed: problems.isEmpty, message: problems.isEmpty ? nil : problems.joined(separator: "\n"))
    }
}

/// An integrity check running on threads of its own while the caller goes on
/// (a migration path diffs the data meanwhile: with two cores, the check's
/// thread starts the longest task, the largest table's check, on one, the diff
/// runs on the other, and the caller then takes the tasks left); ``result()`` has
/// the caller take the tasks no thread has started, then waits. See
/// ``MigrationChecks/integrity(path:sizes:workers:)``.
final class ParallelIntegrityCheck: Sendable {
    private let path: String
    private let done = DispatchGroup()
    /// `PRAGMA` statements, one a task: the tables' checks, the largest first,
    /// then `quick_check`. Their problems are reported in this order.
    private let tasks: [String]
    /// The order the tasks start in (indexes into ``tasks``): see ``startOrder(_:)``.
    private let schedule: [Int]
    /// The page cache of each task's connection, in KiB: a share of
    /// ``cacheBudgetKiB``. `integrity_check` looks up every row's entry in each
    /// index, in the index's order rather than the table's: with SQLite's
    /// default 2 MiB most of those reads are system calls (a 640 MiB store:
    /// 7.4 s with 2 MiB, 5.1 s with 32 MiB). The workers and the caller's
    /// thread share it: one worker and the caller, 16 MiB each.
    private let cacheKiB: Int
    static let cacheBudgetKiB = 32768
    /// The page cache of the largest table's check, in KiB: the whole
    /// ``cacheBudgetKiB``. It is the longest task, which the other workers'
    /// tasks are balanced against, so its time is the check's: the 500 MiB
    /// benchmark's `orders` (1.1 million rows, an index on a key in no order)
    /// spent about 0.9 s less in system calls with 32 MiB than with 16 MiB. Its
    /// worker returns to ``cacheKiB`` for its next task: 16 MiB more at the peak.
    private var largestCacheKiB: Int { max(cacheKiB, Self.cacheBudgetKiB) }
    private let next = Atomic<Int>(0)
    /// Each task's problems (nil: not run), in task order.
    private let outcomes: Mutex<[[String]?]>
    /// Why a task could not run at all.
    private let failure = Mutex<String?>(nil)
    /// When the check started, and when its last task ended.
    private let started = ContinuousClock.now
    private let ended = Mutex<ContinuousClock.Instant?>(nil)

    /// Starts `workers` threads (at most one a task).
    fileprivate init(path: String, sizes: [String: Int], workers: Int) {
        self.path = path
        cacheKiB = max(2048, Self.cacheBudgetKiB / (max(0, workers) + 1))
        // Each table with its number of indexes: `integrity_check(TABLE)` looks
        // up each of its rows in each of them.
        var tables: [(name: String, indexes: Int)] = []
        do throws(SQLiteError) {
            let database = try Database(path: path, options: .init(readOnly: true))
            tables = try database.rows(
                """
                SELECT name, (SELECT count(*) FROM sqlite_schema AS i WHERE i.type = 'index' AND i.tbl_name = t.name)
                FROM sqlite_schema AS t WHERE type = 'table' AND rootpage > 0
                """
            ).compactMap { row in row.first?.text.map { ($0, Int(row[1].integer ?? 0)) } }
            try database.close()
        } catch {
            failure.withLock { $0 = error.description }
        }
        let costs = Dictionary(tables.map { ($0.name, (sizes[$0.name] ?? 0) * (1 + $0.indexes)) }, uniquingKeysWith: max)
        if Self.splits(Array(costs.values), workers: workers) {
            // (A table whose name reads as a number gets the whole check: SQLite
            // takes the number for the pragma's limit. That checks more, not less.)
            let bySize = costs.keys.sorted { (costs[$0] ?? 0, $1) > (costs[$1] ?? 0, $0) }
            tasks = bySize.map { "PRAGMA integrity_check(\(quotedLiteral($0)))" } + ["PRAGMA quick_check(\(MigrationChecks.integrityProblemLimit))"]
        } else {
            tasks = ["PRAGMA integrity_check(\(MigrationChecks.integrityProblemLimit))"]
        }
        schedule = Self.startOrder(tasks.count)
        outcomes = Mutex(Array(repeating: nil, count: tasks.count))
        for _ in 0..<max(0, min(workers, tasks.count)) {
            done.enter()
            // At the path's own priority: the threads are as many as the cores
            // the paths leave but the path's own (``MigrationRunner/integrityWorkers(cores:paths:)``),
            // so they take no core from the path's thread; a lower one would hand
            // their share to whatever else runs on the machine (a CI runner's
            // other jobs), and the path would wait for them.
            Thread { [self] in
                work()
                done.leave()
            }.start()
        }
    }

    /// Whether a check whose tables cost `costs` (rows times one plus their
    /// indexes) is split into a task per table and `quick_check`, with `workers`
    /// threads beside the caller's. The split walks every b-tree twice (the
    /// tables' checks do not see a page used by two of them, nor one used by
    /// none; `quick_check` does); the walk costs about a third of the whole
    /// check (0.63 s of 1.53 s on the 479 MiB benchmark store after its stage).
    /// With two workers or more, it runs beside the largest table's check. With
    /// one, beside a caller that diffs the data first, it pays only when the
    /// tables other than the largest cost more than that walk: when the largest
    /// costs less than two thirds of the whole. That store's largest table
    /// costs 80% (the whole check took 1.5 to 2.0 s, the split 2.1 to 2.7 s);
    /// the 495 MiB one's 58% (split: 3.2 to 4.1 s, its largest table's check
    /// alone 3.5 to 4.0 s).
    static func splits(_ costs: [Int], workers: Int) -> Bool {
        guard workers < 2 else { return true }
        guard workers == 1, let largest = costs.max() else { return false }
        return largest * 3 < costs.reduce(0, +) * 2
    }

    /// The order in which `count` tasks (the tables' checks by size, then
    /// `quick_check`) start: the largest table's first, then `quick_check`,
    /// then the other tables by size. `quick_check` walks every page of the
    /// file, so it comes second in length only to the largest table's check
    /// (which also looks up each row in each of its indexes); started last, it
    /// could run alone while the other workers had nothing left to take
    /// (`quick_check` of the 500 MiB benchmark store takes about 1.6 s, the
    /// whole check 5.6 s). Longest first keeps the workers' finishing times close.
    static func startOrder(_ count: Int) -> [Int] {
        guard count > 2 else { return Array(0..<count) }
        return [0, count - 1] + Array(1..<(count - 1))
    }

    /// Runs tasks on a connection of its own until none is left.
    private func work() {
        guard next.load(ordering: .relaxed) < tasks.count else { return }
        let database: Database
        do throws(SQLiteError) {
            database = try Database(path: path, options: .init(readOnly: true))
        } catch {
            failure.withLock { $0 = $0 ?? error.description }
            return
        }
        defer { try? database.close() }
        while true {
            let turn = next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard turn < schedule.count else { return }
            let index = schedule[turn]
            do throws(SQLiteError) {
                try database.execute("PRAGMA cache_size = -\(index == 0 ? largestCacheKiB : cacheKiB)")
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
        if let failure = failure.withLock({ $0 }) {
            return CheckResult(.integrity, passed: false, message: failure, statement: "PRAGMA integrity_check")
        }
        var seen: Set<String> = []
        let problems = outcomes.withLock { $0 }.flatMap { $0 ?? [] }.filter { seen.insert($0).inserted }
        guard problems.isEmpty else {
            return CheckResult(
                .integrity, passed: false, message: problems.prefix(MigrationChecks.integrityProblemLimit).joined(separator: "\n"),
                statement: "PRAGMA integrity_check")
        }
        return CheckResult(.integrity, passed: true)
    }
}
