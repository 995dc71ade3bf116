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
    static func configured(_ checks: [CorpusConfiguration.Check], on database: Database) -> [CheckResult] {
        checks.map { check in
            do throws(SQLiteError) {
                let rows = try database.rows(check.sql)
                if let mismatch = ExpectedResult.mismatch(rows, expect: check.expect) {
                    return CheckResult(name: check.name, passed: false, message: mismatch, statement: check.sql)
                }
                return CheckResult(name: check.name, passed: true)
            } catch {
                return CheckResult(name: check.name, passed: false, message: error.description, statement: check.sql)
            }
        }
    }
}
