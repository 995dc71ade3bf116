import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// What a strategy keeps of a column's profile (see ``ProfilePlan``): the
/// properties anonymizing must not change.
struct ProfileKept: OptionSet {
    let rawValue: Int
    init(rawValue: Int) { self.rawValue = rawValue }
    /// NULL stays NULL, and nothing else becomes NULL.
    static let nulls = ProfileKept(rawValue: 1)
    /// `''` stays `''`, and nothing else becomes `''`.
    static let empty = ProfileKept(rawValue: 2)
    /// Each value keeps its storage class.
    static let classes = ProfileKept(rawValue: 4)
    /// The shortest and longest lengths stay as they were.
    static let lengths = ProfileKept(rawValue: 8)
    /// The longest length stays in its bucket (see ``TextShape/bucketStart(of:)``),
    /// when it is longer than the format's shortest output.
    static let lengthBucket = ProfileKept(rawValue: 16)
    /// Distinct values and duplicate groups, under every comparison measured.
    static let distinct = ProfileKept(rawValue: 32)

    static let all: ProfileKept = [.nulls, .empty, .classes, .lengths, .distinct]

    /// What `rule` keeps; a column no rule rewrites keeps everything.
    init(_ rule: BoundRule?) {
        guard let rule else { self = .all; return }
        switch rule.strategy {
        case .keep: self = .all
        case .pseudonym(let format, _, _):
            self = [.nulls, .empty, .classes, .distinct]
            if format == .digits { insert(.lengths) }
            if format == .email { insert(.lengthBucket) }
        case .fake(let kind):
            self = [.nulls, .empty, .classes, .distinct]
            if kind == .text { insert(.lengths) }
        case .mask: self = [.nulls, .empty, .classes, .lengths]
        case .null: self = []
        case .value: self = [.nulls, .empty]
        case .shiftDate(let group, _, _, _):
            self = [.nulls, .empty, .classes, .lengths]
            if group == nil { insert(.distinct) }
        case .noise: self = [.nulls, .empty, .classes]
        }
    }
}

extension AnonymizationEngine {
    // MARK: - The data profile

    /// The profile measured before and after the rules, checked against what
    /// each rule keeps.
    /// - Returns: the profile, and when a property a rule keeps changed, the
    ///   error to throw: ``FixtureKitError`` (exit 1, ``FixtureKitError/Code/profileChanged``)
    ///   naming the first column or index and property that changed, and how many more did.
    static func checkProfile(_ plan: ProfilePlan, display: String) -> (Manifest.DataProfile, FixtureKitError?) {
        var profile = Manifest.DataProfile()
        var problems: [(what: String, hint: String)] = []
        var kept: [String: ProfileKept] = [:]
        for target in plan.targets {
            let name = "\(target.table).\(target.column)"
            let counted = target.before.map { plan.tallies[$0].finish() }
            guard let after = plan.tallies[target.after].finish(), counted != .some(nil), let before = counted ?? after else {
                return (profile, FixtureKitError(what: "anonymize: data profile", path: display, why: "\(name): its counts could not be read back from their temporary file"))
            }
            let keeps = ProfileKept(target.rule)
            kept[target.table.identifierKey + "\u{0}" + target.column.identifierKey] = keeps
            profile.columns[name] = Manifest.ColumnProfile(counts: after, before: before == after ? nil : before)
            problems += differences(before, after, keeps).map { ("\(name): \($0.what)", $0.hint) }
        }
        for (table, index) in plan.indexes {
            guard let after = plan.indexesAfter[index.name] else { continue }
            let before = plan.indexesBefore[index.name] ?? after
            profile.indexes[index.name] = Manifest.IndexProfile(table: table, counts: after, before: before == after ? nil : before)
            // Compared when every column it reads keeps its distinct values.
            let keeps = index.columns.allSatisfy { kept[table.identifierKey + "\u{0}" + $0.identifierKey]?.contains(.distinct) ?? true }
            if keeps, before.distinct != after.distinct || before.duplicateGroups != after.duplicateGroups {
                problems.append((
                    "\(index.label) on \(table): \(before.distinct) distinct keys and \(before.duplicateGroups) duplicate groups before, \(after.distinct) and \(after.duplicateGroups) after",
                    Self.distinctHint))
            }
        }
        guard let first = problems.first else { return (profile, nil) }
        let more = problems.count > 1 ? " (and \(problems.count - 1) more)" : ""
        return (profile, FixtureKitError(
            what: "anonymize", path: display,
            why: "the rules changed what a migration may depend on: \(first.what)\(more)",
            hint: first.hint, category: .checkFailed, code: .profileChanged))
    }

    static let distinctHint = "two values got one output, or equal values different ones: give the column a format with more values (hex, uuid, email), or keep it"

    /// What changed between two counts of a column that `kept` says must not.
    static func differences(_ before: Manifest.ProfileCounts, _ after: Manifest.ProfileCounts, _ kept: ProfileKept) -> [(what: String, hint: String)] {
        var found: [(String, String)] = []
        if kept.contains(.nulls), before.nulls != after.nulls {
            found.append(("NULLs: \(before.nulls) before, \(after.nulls) after", "the strategy makes values NULL, or NULLs values: a stage adding NOT NULL would pass or fail where it did not"))
        }
        if kept.contains(.empty), before.empty != after.empty {
            found.append(("empty values (''): \(before.empty) before, \(after.empty) after", "the strategy writes '' for values, or values for ''"))
        }
        if kept.contains(.classes) {
            let classes: [(String, KeyPath<Manifest.ProfileCounts, Int>)] = [("integer", \.integer), ("real", \.real), ("text", \.text), ("blob", \.blob)]
            if let (name, path) = classes.first(where: { before[keyPath: $0.1] != after[keyPath: $0.1] }) {
                found.append((
                    "\(name) values: \(before[keyPath: path]) before, \(after[keyPath: path]) after",
                    "the strategy writes values of another storage class: for numbers, pseudonym with format digits or fake text keep them numbers"))
            }
        }
        if kept.contains(.lengths), before.minLength != after.minLength || before.maxLength != after.maxLength {
            found.append(("lengths: \(lengths(before)) before, \(lengths(after)) after", "a CHECK on lengths would pass or fail where it did not"))
        }
        if kept.contains(.lengthBucket), let longest = before.maxLength, longest > 32, let written = after.maxLength,
           TextShape.bucketStart(of: longest) != TextShape.bucketStart(of: written) {
            found.append(("longest value: \(longest) characters before, \(written) after", "a CHECK on lengths would pass or fail where it did not"))
        }
        if kept.contains(.distinct) {
            for comparison in ProfileComparison.allCases.map(\.rawValue) {
                guard let was = before.distinct[comparison], let now = after.distinct[comparison] else { continue }
                let groups = (before.duplicateGroups[comparison] ?? 0, after.duplicateGroups[comparison] ?? 0)
                if was != now || groups.0 != groups.1 {
                    found.append(("distinct values under \(comparison): \(was) before, \(now) after (duplicate groups \(groups.0) before, \(groups.1) after)", distinctHint))
                }
            }
        }
        return found
    }

    private static func lengths(_ counts: Manifest.ProfileCounts) -> String {
        guard let shortest = counts.minLength, let longest = counts.maxLength else { return "none" }
        return "\(shortest) to \(longest)"
    }
}
