import Foundation
import FixtureKitSystem
import FixtureKitSQLite

/// `fixturekit.json`: the corpus' store name, its versions, the migration plan,
/// the checks that must hold after it, and the anonymization rules.
///
/// Paths in it are relative to its own folder, which is the corpus. Unknown keys
/// are refused, so that a misspelt key (`"suported"`) cannot silently disable a check.
public struct CorpusConfiguration: Codable, Equatable, Sendable {
    package static let fileName = "fixturekit.json"

    /// One migration stage: an SQL file, a folder of them, a program run without
    /// a shell, or a Swift closure (see CorpusConfiguration+Stages.swift).
    public struct Stage: Codable, Hashable, Sendable {
        public var from: String
        public var to: String
        /// An SQL file, relative to the corpus.
        public var sql: String?
        /// A folder of migrations in a migration tool's convention (Diesel, sqlx, Flyway, ...), relative to the corpus.
        public var folder: String?
        /// The last migration of ``folder`` the stage runs (its name); the later ones belong to later stages.
        public var through: String?
        /// An argv array; the first element relative to the corpus when it holds a `/`.
        public var exec: [String]?
        /// The name of a Swift stage: a closure given to ``MigrationRunner`` by the app's tests.
        public var swift: String?
        /// How long the stage may run, in seconds, before it is ended and fails;
        /// `nil` for the default of the command (see ``StageRunner``).
        public var timeout: Double?
        /// How an SQL stage's files are wrapped in transactions; ``StageTransaction/eachFile`` when `nil`.
        public var transaction: StageTransaction?
        /// The app's bookkeeping table each migration of a folder is recorded in.
        public var record: StageRecord?
        /// The connection settings of this stage, over the corpus-wide ones.
        public var connection: ConnectionSettings?

        public init(
            from: String, to: String, sql: String? = nil, folder: String? = nil, through: String? = nil, exec: [String]? = nil, swift: String? = nil,
            timeout: Double? = nil, transaction: StageTransaction? = nil, record: StageRecord? = nil, connection: ConnectionSettings? = nil
        ) {
            (self.from, self.to, self.sql, self.folder, self.through, self.exec, self.swift) = (from, to, sql, folder, through, exec, swift)
            (self.timeout, self.transaction, self.record, self.connection) = (timeout, transaction, record, connection)
        }
    }

    /// What happens to a table's row count across the migration.
    public enum CountRule: String, Codable, Equatable, Sendable {
        /// Every row is still there (the default for tables present in both versions).
        case preserved
        /// The table goes away.
        case dropped
        /// The count may change: the stages add or remove rows on purpose.
        case changes
    }

    /// An invariant: a query and the result it must give.
    public struct Check: Codable, Equatable, Sendable {
        public var name: String
        public var sql: String
        /// A scalar (the first column of the first row), an array of rows, or
        /// `"empty"`: no row may come back. Exactly one of it and ``expectSQL``.
        public var expect: JSONValue?
        /// A query whose rows the check's must equal, row for row (the source
        /// fixture is attached as `source`): see ``ConfiguredChecks``.
        public var expectSQL: String?
        /// Only the paths from these versions run it; every path when absent.
        public var from: [String]?
    }

    /// The store's file name in every fixture: `App.sqlite`.
    public var store: String
    /// The version the current build ships; its fixture is the reference schema.
    public var current: String
    /// The older versions still in the wild: each must migrate to `current`
    /// (none for a first version: the key may be absent).
    public var supported: [String]
    /// The migration stages (none for a first version: the key may be absent).
    public var stages: [Stage]
    public var counts: [String: CountRule]?
    public var checks: [Check]?
    /// The anonymization rules file, relative to the corpus, or `false`: the
    /// corpus' stores hold synthetic data only. Without it, `capture` refuses.
    public var anonymize: AnonymizeSetting?
    /// Business keys per table, for matching rows across a migration: `{"notes": ["uuid"]}`.
    public var keys: [String: [String]]?
    /// Declared column changes: `{"notes.created_at": "derived", "notes.legacy": "dropped"}`.
    /// A column may also be moved: `{"contacts.phone": {"movedTo": "phones.number", "key": "phones.contact_id"}}`.
    public var changes: [String: ChangeDeclaration]?
    /// Renamed tables and columns: `{"tags": "labels", "contacts.fullname": "contacts.name"}`.
    public var renames: [String: String]?
    /// `user_version` of each version, for `upgrade`.
    public var userVersions: [String: Int]?
    /// An SQL query returning a store's version label, for `upgrade`.
    public var versionQuery: String?
    /// The connection settings of every stage (see ``ConnectionSettings``).
    public var connection: ConnectionSettings?
    /// Whether a stage's statement that does nothing where it stands (a PRAGMA
    /// SQLite ignores there) fails the stage rather than warns.
    public var strictStages: Bool?
    /// The probes `migrate --probes` and `probe` run, and how (CorpusConfiguration+Probes.swift).
    public var probes: ProbeSettings?
    /// The lint's settings: severities by rule, and the findings that may stand (CorpusConfiguration+Lint.swift).
    public var lint: LintSettings?
    /// The oldest SQLite the app runs on (`"3.32.0"`): lint's V001 finds what a stage needs that is newer.
    public var minimumSQLite: String?
    /// The platforms the app runs on (`["iOS 15.0", "Android 30"]`): the oldest SQLite they bundle is V001's floor too (PlatformSQLite.swift).
    public var platforms: [String]?

    static let knownKeys: Set<String> = [
        "store", "current", "supported", "stages", "counts", "checks", "anonymize", "keys", "changes",
        "renames", "userVersions", "versionQuery", "$schema", "connection", "strictStages",
        "probes",
        "lint", "minimumSQLite",
        "platforms",
    ]

    /// The largest `timeout` a stage may have: 30 days, in seconds.
    static let maxTimeout: Double = 30 * 24 * 3600

    /// The folder the configuration is in: paths in it are relative to it.
    public var folder: String = "."

    enum CodingKeys: String, CodingKey {
        case store, current, supported, stages, counts, checks, anonymize, keys, changes, renames, userVersions, versionQuery
        case connection, strictStages
        case probes
        case lint, minimumSQLite
        case platforms
    }

    /// The keys of each entry of `stages` (and of `checks`, ``checkEntryKeys``): any other is refused too.
    static let stageKeys: Set<String> = ["from", "to", "sql", "folder", "through", "exec", "swift", "timeout", "transaction", "record", "connection"]

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        store = try container.decode(String.self, forKey: .store)
        current = try container.decode(String.self, forKey: .current)
        supported = try container.decodeIfPresent([String].self, forKey: .supported) ?? []
        stages = try container.decodeIfPresent([Stage].self, forKey: .stages) ?? []
        counts = try container.decodeIfPresent([String: CountRule].self, forKey: .counts)
        checks = try container.decodeIfPresent([Check].self, forKey: .checks)
        anonymize = try container.decodeIfPresent(AnonymizeSetting.self, forKey: .anonymize)
        keys = try container.decodeIfPresent([String: [String]].self, forKey: .keys)
        changes = try container.decodeIfPresent([String: ChangeDeclaration].self, forKey: .changes)
        renames = try container.decodeIfPresent([String: String].self, forKey: .renames)
        userVersions = try container.decodeIfPresent([String: Int].self, forKey: .userVersions)
        versionQuery = try container.decodeIfPresent(String.self, forKey: .versionQuery)
        connection = try container.decodeIfPresent(ConnectionSettings.self, forKey: .connection)
        strictStages = try container.decodeIfPresent(Bool.self, forKey: .strictStages)
        probes = try container.decodeIfPresent(ProbeSettings.self, forKey: .probes)
        lint = try container.decodeIfPresent(LintSettings.self, forKey: .lint)
        minimumSQLite = try container.decodeIfPresent(String.self, forKey: .minimumSQLite)
        platforms = try container.decodeIfPresent([String].self, forKey: .platforms)
    }

    /// Reads and parses `fixturekit.json`, without reading the files it names
    /// (``load(_:)`` also reads its anonymization rules).
    /// - Throws: ``FormatError`` (exit 2) naming what is wrong; its
    ///   ``FormatError/cause`` is the ``FileSystemError`` when the file cannot be read.
    package static func read(_ path: String) throws(FormatError) -> CorpusConfiguration {
        let bytes: [UInt8]
        do { bytes = try POSIX.readFile(path, limit: 16 << 20) } catch {
            let missing = error.code == .noSuchFileOrDirectory
            throw FormatError(.configuration, file: path, expected: missing ? "no such file" : error.reason, remedy: missing ? .initCorpus : nil, cause: error)
        }
        return try parse(bytes, path: path)
    }

    /// Parses a configuration's bytes; `path` names it in errors and sets ``folder``.
    /// - Throws: ``FormatError`` (exit 2): the JSON fault with its line and column,
    ///   or the key or value that is not what the configuration allows.
    package static func parse(_ bytes: [UInt8], path: String) throws(FormatError) -> CorpusConfiguration {
        func fail(_ why: String) -> FormatError { FormatError(.configuration, file: path, expected: why) }
        // Strict JSON, each fault with its line and column: comments and trailing commas are refused.
        do { try JSONSyntax.check(bytes) } catch {
            throw FormatError(.configuration, file: path, line: error.line, column: error.column, expected: error.message)
        }
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: Data(bytes)) } catch {
            // JSONSyntax refuses, with its place, everything Foundation is known to refuse.
            throw fail("not valid JSON: \((error as NSError).userInfo[NSDebugDescriptionErrorKey] ?? error.localizedDescription)")
        }
        guard let dictionary = object as? [String: Any] else { throw fail("not a JSON object") }
        if let unknown = dictionary.keys.filter({ !knownKeys.contains($0) }).sorted().first {
            throw fail("unknown key \"\(unknown)\"")
        }
        for (index, entry) in ((dictionary["stages"] as? [Any]) ?? []).enumerated() {
            guard let entry = entry as? [String: Any] else { throw fail("stages[\(index)] must be an object") }
            if let unknown = entry.keys.filter({ !stageKeys.contains($0) }).sorted().first {
                throw fail("stages[\(index)]: unknown key \"\(unknown)\" (one of \(stageKeys.sorted().joined(separator: ", ")))")
            }
        }
        // The entries of `checks`, and the moves of `changes` (CorpusConfiguration+Declarations.swift);
        // the `connection` and `record` objects (CorpusConfiguration+Stages.swift).
        try checkDeclarationKeys(dictionary, fail)
        try checkStageKeys(dictionary, fail)
        try checkProbeKeys(dictionary, fail)
        try checkLint(dictionary, fail)
        try checkPlatforms(dictionary, fail)
        var configuration: CorpusConfiguration
        do {
            configuration = try JSONDecoderFactory.decoder().decode(CorpusConfiguration.self, from: Data(bytes))
        } catch {
            throw fail(JSONDecoderFactory.describe(error))
        }
        configuration.folder = AtomicFile.parentFolder(of: path)
        try configuration.validate(fail)
        return configuration
    }

    private func validate(_ fail: (String) -> FormatError) throws(FormatError) {
        guard store.isSafeFileName else { throw fail("\"store\" must be a file name, not \"\(store)\"") }
        for label in [current] + supported + stages.flatMap({ [$0.from, $0.to] }) where Version(label) == nil {
            throw fail("\"\(label)\" is not a version label")
        }
        for (index, stage) in stages.enumerated() {
            try validate(stage, index, fail)
            if let timeout = stage.timeout, !(timeout > 0 && timeout <= Self.maxTimeout) {
                throw fail("stages[\(index)] has timeout \(timeout): it must be a number of seconds above 0, at most \(Int(Self.maxTimeout))")
            }
            guard let from = Version(stage.from), let to = Version(stage.to), from < to else {
                throw fail("stages[\(index)] goes from \(stage.from) to \(stage.to), which is not forward")
            }
        }
        if let duplicate = Dictionary(grouping: supported, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
            throw fail("\"supported\" lists \(duplicate) twice")
        }
        if supported.contains(current) { throw fail("\"supported\" lists the current version \(current)") }
        for label in (userVersions ?? [:]).keys.sorted() where Version(label) == nil {
            throw fail("userVersions: \"\(label)\" is not a version label")
        }
        // Versions may share a user_version when no stage lies between them (patch
        // releases that did not touch the store); otherwise a store's version could not be told.
        let byNumber = Dictionary(grouping: (userVersions ?? [:]).keys.compactMap(Version.init).sorted(), by: { userVersions?[$0.label] ?? 0 })
        for (number, group) in byNumber.sorted(by: { $0.key < $1.key }) where group.count > 1 {
            guard let low = group.first?.label, let high = group.last?.label, stageLiesBetween(low, high) else { continue }
            let stage = stages.first { stage in Version(stage.to).map { group[0] < $0 && !(group[group.count - 1] < $0) } ?? false }
            throw fail("userVersions gives \(group.map(\.label).joined(separator: " and ")) the same user_version \(number), but the stage \(stage.map { "\($0.from) -> \($0.to)" } ?? "") lies between them: a store's version could not be told")
        }
        for (table, columns) in (keys ?? [:]).sorted(by: { $0.key < $1.key }) where columns.isEmpty {
            throw fail("keys[\"\(table)\"] is empty: name the columns of the business key")
        }
        try validateDeclarations(fail)
        try validateConnection(fail)
        try validateProbes(fail)
    }

    /// A path of the configuration, resolved against its folder.
    package func resolve(_ relative: String) -> String {
        relative.hasPrefix("/") ? relative : folder.appendingPath(relative)
    }

    /// `"anonymize"` of `fixturekit.json`: a rules file, or `false`.
    public enum AnonymizeSetting: Codable, Equatable, Sendable {
        /// The rules file, relative to the corpus: `capture` applies it.
        case rules(String)
        /// `false`: the corpus' stores hold synthetic data only, and are frozen as they are.
        case disabled

        public var rulesFile: String? { if case .rules(let file) = self { file } else { nil } }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let file = try? container.decode(String.self) {
                self = .rules(file)
            } else if let flag = try? container.decode(Bool.self), flag == false {
                self = .disabled
            } else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "must be a rules file or false")
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .rules(let file): try container.encode(file)
            case .disabled: try container.encode(false)
            }
        }
    }

    /// The declared changes, by `table.column` or `table` (by `identifierKey`); a table
    /// whose count is declared `dropped` is a dropped table too.
    package var declaredChanges: [String: DeclaredChange] {
        var declared = Dictionary((changes ?? [:]).compactMap { key, value in value.declared.map { (key.identifierKey, $0) } }, uniquingKeysWith: { first, _ in first })
        for (table, rule) in counts ?? [:] where rule == .dropped && declared[table.identifierKey] == nil {
            declared[table.identifierKey] = .dropped
        }
        return declared
    }

    /// The supported versions in version order.
    public var supportedVersions: [String] {
        supported.compactMap(Version.init).sorted().map(\.label)
    }
}
