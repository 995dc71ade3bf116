import Foundation
import FixtureKitSystem
import FixtureKitCrypto
import FixtureKitModels
import FixtureKitSQLite

/// The anonymization rules file: which column of which table is rewritten, and how.
///
/// ```json
/// {
///   "keyEnv": "FIXTUREKIT_ANON_KEY",
///   "strict": true,
///   "tables": {
///     "users": {
///       "email": {"strategy": "pseudonym", "format": "email", "domain": "email"},
///       "id": "keep"
///     }
///   }
/// }
/// ```
/// Unknown keys are refused at every level, so that a misspelt option
/// (`"keeplast"`) cannot silently leave a column as it was.
public struct AnonymizationRules: Equatable, Sendable {
    /// What `fixturekit init` writes for a column it has no suggestion for: no
    /// rule yet, which strict mode refuses until someone decides.
    static let todoMarker = "TODO"

    /// The environment variable that holds the secret key when the file names none.
    static let defaultKeyEnvironmentVariable = "FIXTUREKIT_ANON_KEY"

    /// The environment variable holding the secret key; the key itself is never in the file.
    public var keyEnv: String
    /// Every TEXT and BLOB column of every table must have a rule (or be `keep`).
    public var strict: Bool
    /// Rules by table, then by column.
    public var tables: [String: [String: ColumnRule]]
    /// The columns marked `"TODO"` (`table.column`): no rule yet, which strict mode refuses.
    public var undecided: Set<String> = []
    /// SHA-256 of the file's bytes, recorded in manifests.
    public var sha256: String
    /// The file, as the user named it.
    public var path: String

    /// Every rule, ordered by table then column (bytewise): the order rules run in.
    public var orderedRules: [(table: String, column: String, rule: ColumnRule)] {
        tables.keys.sorted(by: Self.bytewise).flatMap { table in
            (tables[table] ?? [:]).keys.sorted(by: Self.bytewise).compactMap { column in
                tables[table]?[column].map { (table, column, $0) }
            }
        }
    }

    static func bytewise(_ lhs: String, _ rhs: String) -> Bool { lhs.utf8.lexicographicallyPrecedes(rhs.utf8) }

    /// The rule for a column, its table and column named as SQLite resolves
    /// names: without regard to ASCII case.
    func rule(table: String, column: String) -> ColumnRule? {
        if let rule = tables[table]?[column] { return rule }
        let tableKey = table.identifierKey
        for (name, columns) in tables where name.identifierKey == tableKey {
            if let rule = columns.value(forName: column) { return rule }
        }
        return nil
    }

    /// Whether the file marks the column `"TODO"`, names compared as SQLite does.
    func isUndecided(table: String, column: String) -> Bool {
        let key = "\(table).\(column)".identifierKey
        return undecided.contains { $0.identifierKey == key }
    }

    /// Reads and checks a rules file.
    /// - Throws: ``FixtureKitError`` (exit 2): `read rules: <path>: <why>`.
    public static func load(_ path: String) throws(FixtureKitError) -> AnonymizationRules {
        let bytes: [UInt8]
        do { bytes = try POSIX.readFile(path, limit: 16 << 20) } catch {
            throw FixtureKitError(what: "read rules", path: path, why: error.reason, cause: error)
        }
        return try parse(bytes, path: path)
    }

    /// Parses a rules file's bytes; `path` names it in errors.
    package static func parse(_ bytes: [UInt8], path: String) throws(FixtureKitError) -> AnonymizationRules {
        func fail(_ why: String) -> FixtureKitError { FixtureKitError(what: "read rules", path: path, why: why) }
        do { try JSONSyntax.check(bytes) } catch { throw fail(error.description) }
        let file: RulesFile
        do {
            file = try JSONDecoderFactory.decoder().decode(RulesFile.self, from: Data(bytes))
        } catch let error as RuleError {
            throw fail(error.description)
        } catch {
            throw fail(JSONDecoderFactory.describe(error))
        }
        let keyEnv = file.keyEnv ?? defaultKeyEnvironmentVariable
        guard !keyEnv.isEmpty, !keyEnv.contains("="), !keyEnv.contains("\0") else {
            throw fail("\"keyEnv\" must name an environment variable")
        }
        var rules = AnonymizationRules(
            keyEnv: keyEnv, strict: file.strict ?? false, tables: file.tables,
            sha256: (try? SHA256.hash(bytes).hex) ?? "", path: path)
        rules.undecided = file.undecided
        try rules.validate(fail)
        return rules
    }

    /// Checks what a single rule cannot: a shift-date group that is a column of
    /// the same table, one format per pseudonym domain.
    private func validate(_ fail: (String) -> FixtureKitError) throws(FixtureKitError) {
        var formats: [String: (PseudonymFormat, String)] = [:]
        for (table, column, rule) in orderedRules {
            let name = "tables.\(table).\(column)"
            if case .pseudonym(let format, let domain, _) = rule.strategy {
                let key = domain ?? "\(table).\(column)"
                if let (other, place) = formats[key], other != format {
                    throw fail("\(name): domain \"\(key)\" is \(format.rawValue) here and \(other.rawValue) in \(place): one domain, one format")
                }
                formats[key] = (format, name)
            }
            if case .shiftDate(let group, _, _, _) = rule.strategy, let group, group == column {
                throw fail("\(name): \"group\" must be another column than the one shifted")
            }
        }
    }
}

/// What a rule does to one column.
public struct ColumnRule: Equatable, Sendable, CustomStringConvertible {
    public var strategy: Strategy
    /// An SQL expression: the rule rewrites only the rows where it is true.
    public var whereClause: String?

    public var description: String { strategy.name }
}

/// The output shapes of `pseudonym`.
public enum PseudonymFormat: String, Equatable, Sendable, CaseIterable {
    case hex, uuid, email, name, digits
}

/// The lists `fake` draws from.
public enum FakeKind: String, Equatable, Sendable, CaseIterable {
    case name
    case firstName = "first-name"
    case lastName = "last-name"
    case word
    case text
}

/// How numbers are read by `shift-date`: an amount of this unit since any epoch.
public enum DateUnit: String, Equatable, Sendable, CaseIterable {
    /// Unix time, Core Data's seconds since 2001, any seconds count.
    case seconds
    case milliseconds
    /// Julian day numbers, or any days count.
    case days

    /// How many units make a day.
    var perDay: Double {
        switch self {
        case .seconds: 86_400
        case .milliseconds: 86_400_000
        case .days: 1
        }
    }
}

/// A strategy and its options.
public enum Strategy: Equatable, Sendable {
    /// Keyed HMAC-SHA-256 of the value, rendered in `format`; equal in every
    /// column of the same domain. `length` is the number of hex digits for `hex`.
    case pseudonym(format: PseudonymFormat, domain: String?, length: Int)
    /// A value from built-in lists, chosen by the keyed hash of the original.
    case fake(kind: FakeKind)
    /// Every character replaced by `character`, but the first and last ones kept.
    case mask(keepFirst: Int, keepLast: Int, character: String)
    case null
    case value(JSONValue)
    /// Dates moved by a whole number of days, one offset per value of `group`.
    case shiftDate(group: String?, maxDays: Int, unit: DateUnit, domain: String?)
    /// Numbers moved by a keyed random amount: up to `ratio` of the value, or up to `amount`.
    case noise(ratio: Double, amount: Double?)
    case keep

    /// The name used in the rules file.
    public var name: String {
        switch self {
        case .pseudonym: "pseudonym"
        case .fake: "fake"
        case .mask: "mask"
        case .null: "null"
        case .value: "value"
        case .shiftDate: "shift-date"
        case .noise: "noise"
        case .keep: "keep"
        }
    }

    static let names = ["pseudonym", "fake", "mask", "null", "value", "shift-date", "noise", "keep"]

    /// The keys each strategy accepts besides `strategy` and `where`.
    static let options: [String: Set<String>] = [
        "pseudonym": ["format", "domain", "length"],
        "fake": ["kind"],
        "mask": ["keepFirst", "keepLast", "char"],
        "null": [],
        "value": ["value"],
        "shift-date": ["group", "maxDays", "unit", "domain"],
        "noise": ["ratio", "amount"],
        "keep": [],
    ]

    /// Hex digits of a `hex` pseudonym when the rule gives no `length`.
    static let defaultHexLength = 32
    /// The widest window of a `shift-date` when the rule gives no `maxDays`.
    static let defaultMaxDays = 30
    /// The relative noise when the rule gives neither `ratio` nor `amount`.
    static let defaultNoiseRatio = 0.1
}

// MARK: - Decoding

/// A rule problem found while decoding, with the rule's place in the file.
struct RuleError: Error, CustomStringConvertible {
    var description: String
}

/// Any key, for reading objects whose keys are checked one by one.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}

/// The file as JSON: checked key by key, so that unknown keys are refused.
struct RulesFile: Decodable {
    var keyEnv: String?
    var strict: Bool?
    var tables: [String: [String: ColumnRule]]
    var undecided: Set<String> = []

    /// What `fixturekit init` writes for a column it has no suggestion for.
    static let todo = AnonymizationRules.todoMarker

    static let knownKeys: Set<String> = ["keyEnv", "strict", "tables", "$schema"]

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        if let unknown = container.allKeys.map(\.stringValue).filter({ !Self.knownKeys.contains($0) }).sorted().first {
            throw RuleError(description: "unknown key \"\(unknown)\"")
        }
        keyEnv = try container.decodeIfPresent(String.self, forKey: AnyCodingKey("keyEnv"))
        strict = try container.decodeIfPresent(Bool.self, forKey: AnyCodingKey("strict"))
        guard container.contains(AnyCodingKey("tables")) else { throw RuleError(description: "\"tables\" is missing") }
        let tablesContainer = try container.nestedContainer(keyedBy: AnyCodingKey.self, forKey: AnyCodingKey("tables"))
        var tables: [String: [String: ColumnRule]] = [:]
        // SQLite compares names without regard to ASCII case: two entries that
        // differ only so name one column, and only one of them could apply.
        var named: [String: String] = [:]
        let sortedTables = tablesContainer.allKeys.sorted { AnonymizationRules.bytewise($0.stringValue, $1.stringValue) }
        for tableKey in sortedTables {
            let columns = try tablesContainer.nestedContainer(keyedBy: AnyCodingKey.self, forKey: tableKey)
            for columnKey in columns.allKeys.sorted(by: { AnonymizationRules.bytewise($0.stringValue, $1.stringValue) }) {
                let name = "\(tableKey.stringValue).\(columnKey.stringValue)"
                let key = tableKey.stringValue.identifierKey + "\u{0}" + columnKey.stringValue.identifierKey
                if let other = named[key] {
                    throw RuleError(description: "tables.\(other) and tables.\(name) name the same column (SQLite compares names without regard to case): give it one rule")
                }
                named[key] = name
            }
        }
        for tableKey in tablesContainer.allKeys {
            let columns = try tablesContainer.nestedContainer(keyedBy: AnyCodingKey.self, forKey: tableKey)
            var rules: [String: ColumnRule] = [:]
            for columnKey in columns.allKeys {
                let place = "tables.\(tableKey.stringValue).\(columnKey.stringValue)"
                if (try? columns.decode(String.self, forKey: columnKey)) == Self.todo {
                    undecided.insert("\(tableKey.stringValue).\(columnKey.stringValue)")
                    continue
                }
                rules[columnKey.stringValue] = try ColumnRule.decode(from: columns, key: columnKey, place: place)
            }
            tables[tableKey.stringValue] = rules
        }
        self.tables = tables
    }
}

extension ColumnRule {
    /// A rule: `"keep"` (any strategy name, with its defaults), or an object.
    static func decode(from container: KeyedDecodingContainer<AnyCodingKey>, key: AnyCodingKey, place: String) throws -> ColumnRule {
        if let name = try? container.decode(String.self, forKey: key) {
            return try make(name: name, options: [:], place: place)
        }
        guard let object = try? container.decode([String: JSONValue].self, forKey: key) else {
            throw RuleError(description: "\(place) must be a strategy name or an object")
        }
        guard case .string(let name)? = object["strategy"] else {
            throw RuleError(description: "\(place): \"strategy\" is missing (one of \(Strategy.names.joined(separator: ", ")))")
        }
        return try make(name: name, options: object, place: place)
    }

    private static func make(name: String, options: [String: JSONValue], place: String) throws -> ColumnRule {
        func fail(_ why: String) -> RuleError { RuleError(description: "\(place): \(why)") }
        guard let allowed = Strategy.options[name] else {
            throw fail("unknown strategy \"\(name)\" (one of \(Strategy.names.joined(separator: ", ")))")
        }
        if let unknown = options.keys.filter({ !allowed.contains($0) && $0 != "strategy" && $0 != "where" }).sorted().first {
            throw fail("unknown key \"\(unknown)\" for strategy \(name)")
        }
        func string(_ key: String) throws -> String? {
            switch options[key] {
            case nil: return nil
            case .string(let value)?: return value
            default: throw fail("\"\(key)\" must be a string")
            }
        }
        func integer(_ key: String, default value: Int, in range: ClosedRange<Int>) throws -> Int {
            guard let option = options[key] else { return value }
            guard case .number(let number) = option, number == number.rounded(), range.contains(Int(exactly: number) ?? -1) else {
                throw fail("\"\(key)\" must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return Int(number)
        }
        func number(_ key: String) throws -> Double? {
            guard let option = options[key] else { return nil }
            guard case .number(let number) = option, number.isFinite, number > 0 else { throw fail("\"\(key)\" must be a positive number") }
            return number
        }
        func choice<Choice: RawRepresentable & CaseIterable>(_ key: String, default value: Choice) throws -> Choice where Choice.RawValue == String {
            guard let text = try string(key) else { return value }
            guard let choice = Choice(rawValue: text) else {
                throw fail("\"\(key)\" must be one of \(Choice.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(text)\"")
            }
            return choice
        }
        let strategy: Strategy
        switch name {
        case "pseudonym":
            let format: PseudonymFormat = try choice("format", default: .hex)
            if options["length"] != nil && format != .hex { throw fail("\"length\" is for the hex format only") }
            strategy = .pseudonym(format: format, domain: try string("domain"), length: try integer("length", default: Strategy.defaultHexLength, in: 8...64))
        case "fake":
            strategy = .fake(kind: try choice("kind", default: .text))
        case "mask":
            let character = try string("char") ?? "*"
            guard character.count == 1 else { throw fail("\"char\" must be one character") }
            strategy = .mask(
                keepFirst: try integer("keepFirst", default: 0, in: 0...1_000_000),
                keepLast: try integer("keepLast", default: 0, in: 0...1_000_000), character: character)
        case "null":
            strategy = .null
        case "value":
            guard let value = options["value"] else { throw fail("\"value\" is missing: the constant to write") }
            if case .array = value { throw fail("\"value\" must be a string, a number, a boolean or null") }
            if case .object = value { throw fail("\"value\" must be a string, a number, a boolean or null") }
            strategy = .value(value)
        case "shift-date":
            strategy = .shiftDate(
                group: try string("group"), maxDays: try integer("maxDays", default: Strategy.defaultMaxDays, in: 1...36_500),
                unit: try choice("unit", default: .seconds), domain: try string("domain"))
        case "noise":
            let ratio = try number("ratio")
            let amount = try number("amount")
            if ratio != nil && amount != nil { throw fail("give \"ratio\" or \"amount\", not both") }
            strategy = .noise(ratio: ratio ?? Strategy.defaultNoiseRatio, amount: amount)
        default:
            strategy = .keep
        }
        let whereClause = try string("where")
        if let whereClause, whereClause.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { throw fail("\"where\" is empty") }
        if whereClause != nil, strategy == .keep { throw fail("\"where\" means nothing for keep") }
        return ColumnRule(strategy: strategy, whereClause: whereClause)
    }
}
