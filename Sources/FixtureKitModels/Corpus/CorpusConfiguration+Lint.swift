import Foundation

extension CorpusConfiguration {
    /// `"lint"` in `fixturekit.json`: each rule's severity over its default, and
    /// the findings that may stand, each with the reason why.
    public struct LintSettings: Codable, Equatable, Sendable {
        /// A finding that may stand: its rule, its stage file (`migrations/0007.sql`,
        /// or `migrations/0007.sql:12` for one statement), and why.
        public struct Ignore: Codable, Equatable, Sendable {
            public var rule: String
            public var stage: String
            /// Why the finding may stand: required, so the next reader knows.
            public var why: String

            public init(rule: String, stage: String, why: String) {
                (self.rule, self.stage, self.why) = (rule, stage, why)
            }
        }

        /// Severities by rule code: `{"FK001": "error"}`.
        public var rules: [String: LintSeverity]?
        public var ignore: [Ignore]?

        public init(rules: [String: LintSeverity]? = nil, ignore: [Ignore]? = nil) {
            (self.rules, self.ignore) = (rules, ignore)
        }

        /// The severity of `rule` in this corpus.
        public func severity(of rule: LintRule) -> LintSeverity {
            rules?[rule.code] ?? rule.defaultSeverity
        }

        /// The ignore that covers a finding of `rule` at `file` (and `line`), when one does.
        public func ignore(_ rule: String, file: String?, line: Int?) -> Ignore? {
            guard let file else { return nil }
            return ignore?.first { entry in
                entry.rule == rule && (entry.stage == file || line.map { "\(file):\($0)" } == entry.stage)
            }
        }
    }

    /// The keys of `lint` and of its `ignore` entries: any other is refused.
    static let lintKeys: Set<String> = ["rules", "ignore"]
    static let lintIgnoreKeys: Set<String> = ["rule", "stage", "why"]

    /// Refuses what `lint` may not hold: an unknown key or rule code, an ignore without a `why`.
    static func checkLint(_ dictionary: [String: Any], _ fail: (String) -> FormatError) throws(FormatError) {
        if let minimum = dictionary["minimumSQLite"] {
            guard let text = minimum as? String, Version(text) != nil, text.split(separator: ".").count == 3, !text.contains("-"), !text.contains("+") else {
                throw fail("\"minimumSQLite\" must be an SQLite version, \"3.32.0\"")
            }
        }
        guard let value = dictionary["lint"] else { return }
        guard let lint = value as? [String: Any] else { throw fail("\"lint\" must be an object") }
        if let unknown = lint.keys.filter({ !lintKeys.contains($0) }).sorted().first {
            throw fail("lint: unknown key \"\(unknown)\" (one of \(lintKeys.sorted().joined(separator: ", ")))")
        }
        if let rules = lint["rules"] as? [String: Any], let unknown = rules.keys.filter({ LintRule.named($0) == nil }).sorted().first {
            throw fail("lint.rules: no rule \"\(unknown)\" (one of \(LintRule.all.map(\.code).joined(separator: ", ")))")
        }
        for (index, entry) in ((lint["ignore"] as? [Any]) ?? []).enumerated() {
            guard let entry = entry as? [String: Any] else { throw fail("lint.ignore[\(index)] must be an object") }
            if let unknown = entry.keys.filter({ !lintIgnoreKeys.contains($0) }).sorted().first {
                throw fail("lint.ignore[\(index)]: unknown key \"\(unknown)\" (one of \(lintIgnoreKeys.sorted().joined(separator: ", ")))")
            }
            let why = (entry["why"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            if why.isEmpty { throw fail("lint.ignore[\(index)]: \"why\" is required: say why the finding may stand") }
            if let rule = entry["rule"] as? String, LintRule.named(rule) == nil {
                throw fail("lint.ignore[\(index)]: no rule \"\(rule)\" (one of \(LintRule.all.map(\.code).joined(separator: ", ")))")
            }
        }
    }
}
