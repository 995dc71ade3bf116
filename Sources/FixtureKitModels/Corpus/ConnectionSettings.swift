import FixtureKitSystem
import FixtureKitSQLite

/// `"connection"` of `fixturekit.json`, for every stage and overridable per
/// stage: the SQLite settings of the connection a stage's SQL runs on, and the
/// environment of a program stage. A setting left out is taken from the
/// corpus-wide `"connection"`, then from ``defaults``.
///
/// They are set before the stage's transaction opens (SQLite ignores `PRAGMA
/// foreign_keys` inside one), and every report states those each path ran with.
public struct ConnectionSettings: Codable, Hashable, Sendable {
    /// `PRAGMA foreign_keys`.
    public var foreignKeys: Bool?
    /// `PRAGMA legacy_alter_table` (Android turns it on since API level 30).
    public var legacyAlterTable: Bool?
    /// `PRAGMA recursive_triggers`.
    public var recursiveTriggers: Bool?
    /// `SQLITE_DBCONFIG_DEFENSIVE`.
    public var defensive: Bool?
    /// `PRAGMA trusted_schema`.
    public var trustedSchema: Bool?
    /// `SQLITE_DBCONFIG_DQS_DML`: double-quoted strings in DML.
    public var dqsDML: Bool?
    /// `SQLITE_DBCONFIG_DQS_DDL`: double-quoted strings in DDL.
    public var dqsDDL: Bool?
    /// The environment a program stage runs with, on top of fixturekit's own:
    /// `TZ` and `LC_ALL` are pinned (``defaults``) unless declared. SQL and
    /// Swift stages run in fixturekit's process, whose `TZ` is the corpus-wide one.
    public var environment: [String: String]?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case foreignKeys = "foreign_keys", legacyAlterTable = "legacy_alter_table", recursiveTriggers = "recursive_triggers"
        case defensive, trustedSchema = "trusted_schema", dqsDML = "dqs_dml", dqsDDL = "dqs_ddl", environment
    }

    public init(
        foreignKeys: Bool? = nil, legacyAlterTable: Bool? = nil, recursiveTriggers: Bool? = nil, defensive: Bool? = nil,
        trustedSchema: Bool? = nil, dqsDML: Bool? = nil, dqsDDL: Bool? = nil, environment: [String: String]? = nil
    ) {
        (self.foreignKeys, self.legacyAlterTable, self.recursiveTriggers, self.defensive) = (foreignKeys, legacyAlterTable, recursiveTriggers, defensive)
        (self.trustedSchema, self.dqsDML, self.dqsDDL, self.environment) = (trustedSchema, dqsDML, dqsDDL, environment)
    }

    /// What a stage runs with when nothing is declared: SQLite's documented
    /// defaults, set explicitly so that a libsqlite3 built otherwise (`SQLITE_DQS=0`,
    /// `SQLITE_TRUSTED_SCHEMA=0`) cannot change a verdict, and foreign keys OFF,
    /// as Core Data, GRDB's `DatabaseMigrator`, Room and Diesel run migrations
    /// (the matrix checks `foreign_key_check` after every path, as GRDB checks
    /// after each migration); `TZ` UTC and `LC_ALL` C.UTF-8 for programs, so that
    /// the machine's zone and language change nothing.
    public static let defaults = ConnectionSettings(
        foreignKeys: false, legacyAlterTable: false, recursiveTriggers: false, defensive: false,
        trustedSchema: true, dqsDML: true, dqsDDL: true, environment: ["TZ": "UTC", "LC_ALL": "C.UTF-8"])

    /// These settings, each one left out taken from `base`; environments merge by variable.
    public func over(_ base: ConnectionSettings) -> ConnectionSettings {
        var merged = self
        for flag in ConnectionFlag.allCases where merged[flag] == nil { merged[flag] = base[flag] }
        if let inherited = base.environment {
            merged.environment = inherited.merging(environment ?? [:]) { _, declared in declared }
        }
        return merged
    }

    /// The setting of `flag`.
    package subscript(flag: ConnectionFlag) -> Bool? {
        get {
            switch flag {
            case .foreignKeys: foreignKeys
            case .legacyAlterTable: legacyAlterTable
            case .recursiveTriggers: recursiveTriggers
            case .defensive: defensive
            case .trustedSchema: trustedSchema
            case .dqsDML: dqsDML
            case .dqsDDL: dqsDDL
            }
        }
        set {
            switch flag {
            case .foreignKeys: foreignKeys = newValue
            case .legacyAlterTable: legacyAlterTable = newValue
            case .recursiveTriggers: recursiveTriggers = newValue
            case .defensive: defensive = newValue
            case .trustedSchema: trustedSchema = newValue
            case .dqsDML: dqsDML = newValue
            case .dqsDDL: dqsDDL = newValue
            }
        }
    }

    /// The SQLite settings only, without the environment.
    public var sqlite: ConnectionSettings {
        var settings = self
        settings.environment = nil
        return settings
    }

    /// `foreign_keys OFF, legacy_alter_table OFF, ...`: the SQLite settings that are set, in SQLite's words.
    public var sqliteSummary: String {
        ConnectionFlag.allCases.compactMap { flag in self[flag].map { "\(flag.rawValue) \($0 ? "ON" : "OFF")" } }.joined(separator: ", ")
    }

    /// `LC_ALL=C.UTF-8, TZ=UTC`: the environment, sorted by name.
    public var environmentSummary: String {
        (environment ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
    }

    /// Sets each SQLite setting declared on `database`, which must be outside a
    /// transaction (SQLite ignores `PRAGMA foreign_keys` inside one).
    /// - Returns: the settings the connection holds afterwards, as SQLite reports them.
    @discardableResult
    public func apply(to database: Database) throws(SQLiteError) -> ConnectionSettings {
        var held = ConnectionSettings()
        for flag in ConnectionFlag.allCases {
            if let on = self[flag] {
                held[flag] = try database.set(flag, on)
            } else {
                held[flag] = try database.setting(flag)
            }
        }
        return held
    }

    /// The keys a `"connection"` object takes: any other is refused.
    static let keys = Set(CodingKeys.allCases.map(\.rawValue))

    /// The variables fixturekit gives a program stage itself.
    static let reservedVariables: Set<String> = ["FIXTUREKIT_STORE", "FIXTUREKIT_FROM", "FIXTUREKIT_TO"]

    /// Why `environment` cannot be given to a program: a name that is empty,
    /// holds `=` or NUL, or is one of fixturekit's own; a value that holds NUL.
    func environmentProblem() -> String? {
        for (name, value) in (environment ?? [:]).sorted(by: { $0.key < $1.key }) {
            if name.isEmpty || name.contains("=") || name.contains("\0") { return "\"\(name)\" is not a variable name" }
            if Self.reservedVariables.contains(name) { return "\(name) is fixturekit's own: it gives the program the store's path and the versions" }
            if value.contains("\0") { return "\(name) holds a NUL byte" }
        }
        return nil
    }
}
