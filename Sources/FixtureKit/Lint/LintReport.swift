import FixtureKitSystem
import FixtureKitModels

/// One hazard of a stage, found by a lint rule at a `FILE:LINE`, with what it
/// concerns in each fixture the stage ran on.
public struct LintFinding: Codable, Equatable, Sendable {
    /// The rule's code, `U001` (``LintRule``).
    public internal(set) var rule: String
    /// Its severity in this corpus (`lint.rules`, else the rule's default).
    public internal(set) var severity: LintSeverity
    /// The stage file, as the configuration names it, and the statement's line in it from 1.
    public internal(set) var file: String?
    public internal(set) var line: Int?
    /// What was found, on one line.
    public internal(set) var message: String
    /// The fixtures the place ran on, in version order.
    public internal(set) var fixtures: [String]
    /// What it concerns in each of ``fixtures``, by version (0 where the statement ran harmlessly); `nil` when the rule counts nothing.
    public internal(set) var counts: [String: Int]?
    /// What the counts count: `keys`, `rows`, `ids`.
    public internal(set) var unit: String?
    /// Why the finding may stand, when the configuration's `lint.ignore` says so: it does not fail the lint.
    public internal(set) var ignored: String?

    /// `migrations/a.sql:3`, or the file alone.
    public var place: String? {
        file.map { file in line.map { "\(file):\($0)" } ?? file }
    }

    /// `U001 migrations/a.sql:3: message (fixtures: 1.0.0 3 keys, 1.1.0 1 key, 1.2.0 0 keys)`.
    public var text: String {
        let fixtureList = fixtures.map { version in
            counts?[version].map { count in unit.map { "\(version) \(count) \(count == 1 ? String($0.dropLast()) : $0)" } ?? "\(version) \(count)" } ?? version
        }
        let tail = fixtureList.isEmpty ? "" : " (fixtures: \(fixtureList.joined(separator: ", ")))"
        return "\(rule) \(place.map { $0 + ": " } ?? "")\(message)\(tail)"
    }

    /// As a check's finding (``CheckResult/Finding``): `migrate`'s lint checks hold these.
    public var checkFinding: CheckResult.Finding {
        CheckResult.Finding(message: message, file: file, line: line, counts: counts)
    }
}

/// What `fixturekit lint` found: each finding, and the fixtures it could not use.
public struct LintReport: Codable, Equatable, Sendable {
    /// Every finding, ignored ones included, by file, line and rule.
    public internal(set) var findings: [LintFinding]
    /// The fixtures the lint could not run on, and why: `1.0.0: ...`.
    public internal(set) var problems: [String]

    /// The findings that count: not ignored, not of a rule turned off.
    public var standing: [LintFinding] { findings.filter { $0.ignored == nil } }

    /// Whether no error-level finding stands and every fixture could be used.
    public var passed: Bool { problems.isEmpty && !standing.contains { $0.severity == .error } }

    /// `3 findings (1 error, 2 warnings), 1 ignored`.
    public var summary: String {
        let standing = standing
        let bySeverity = [LintSeverity.error, .warning, .note].compactMap { severity -> String? in
            let count = standing.filter { $0.severity == severity }.count
            return count == 0 ? nil : "\(count) \(severity.rawValue)\(count == 1 ? "" : "s")"
        }
        let ignored = findings.count - standing.count
        return "\(standing.count) finding\(standing.count == 1 ? "" : "s")" + (bySeverity.isEmpty ? "" : " (\(bySeverity.joined(separator: ", ")))")
            + (ignored > 0 ? ", \(ignored) ignored" : "")
    }

    /// The lint as `migrate`'s checks: one ``CheckKind/lint(rule:)`` check for
    /// each rule that found something, failed when an error-level finding of it stands.
    public var checks: [CheckResult] {
        let rules = LintRule.all.map(\.code).filter { code in findings.contains { $0.rule == code } }
        return rules.map { code in
            let found = findings.filter { $0.rule == code }
            let failing = found.filter { $0.ignored == nil && $0.severity == .error }
            var result = CheckResult(.lint(rule: code), passed: failing.isEmpty, message: found.map { $0.text + ($0.ignored.map { " [ignored: \($0)]" } ?? "") }.joined(separator: "\n"))
            result.findings = found.map(\.checkFinding)
            return result
        }
    }
}
