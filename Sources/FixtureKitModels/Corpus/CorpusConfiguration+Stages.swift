import FixtureKitSystem
import FixtureKitSQLite

/// `"transaction"` of an SQL stage: how its files are wrapped in transactions.
public enum StageTransaction: String, Codable, Hashable, Sendable {
    /// Each file in a transaction of its own, as Diesel, sqlx, refinery, Flyway
    /// and GRDB's `DatabaseMigrator` run each migration (the default). A file that
    /// holds its own `BEGIN` and `COMMIT` runs as written, outside any of fixturekit's.
    case eachFile = "each file"
    /// The whole stage in one transaction, as Android's `SQLiteOpenHelper` runs a
    /// Room app's migrations from one version to the next.
    case wholeStage = "whole stage"
}

/// `"record"` of a folder stage: the app's own bookkeeping table, in which each
/// migration is recorded as the app's migration tool records it. A migration
/// the table already holds is skipped, as those tools skip it.
public struct StageRecord: Codable, Hashable, Sendable {
    /// The table: `__diesel_schema_migrations`, `grdb_migrations`, ...
    public var table: String
    /// Its column that holds the migration: `version`, `identifier`, ...
    public var column: String
    /// What is recorded: the migration's ``Value/version`` or its ``Value/name``.
    public var value: Value

    public enum Value: String, Codable, Hashable, Sendable {
        /// The migration's version as its tool reads it from the name (Diesel:
        /// the name up to its first `_`, without dashes; `0003` of `0003_notes.sql`; `1.2` of `V1_2__notes.sql`).
        case version
        /// The migration's name: the Diesel folder's, or the file's without `.sql`.
        case name
    }

    public init(table: String, column: String, value: Value) {
        (self.table, self.column, self.value) = (table, column, value)
    }

    static let keys: Set<String> = ["table", "column", "value"]
}

extension CorpusConfiguration.Stage {
    /// `"sql"`, `"folder"`, `"exec"` or `"swift"`: the key that says what the stage runs.
    var kindKeys: [String] {
        [sql.map { _ in "sql" }, folder.map { _ in "folder" }, exec.map { _ in "exec" }, swift.map { _ in "swift" }].compactMap { $0 }
    }

    /// Whether fixturekit runs the stage's SQL itself, on its own connection.
    package var runsSQL: Bool { sql != nil || folder != nil }
}

extension CorpusConfiguration {
    /// The settings `stage` runs with: its own over the corpus-wide ones, over ``ConnectionSettings/defaults``.
    public func connection(of stage: Stage) -> ConnectionSettings {
        (stage.connection ?? ConnectionSettings()).over((connection ?? ConnectionSettings()).over(.defaults))
    }

    /// The time zone of the stages that run in fixturekit's own process (SQL and Swift stages).
    package var processTimeZone: String {
        (connection ?? ConnectionSettings()).over(.defaults).environment?["TZ"] ?? "UTC"
    }

    /// `counts`, with the tables of `record` as `changes` unless declared: the
    /// stages add a row to them for each migration they record.
    package var countRules: [String: CountRule] {
        var rules = counts ?? [:]
        for table in Set(stages.compactMap(\.record?.table)) where rules[table] == nil { rules[table] = .changes }
        return rules
    }

    /// Refuses unknown keys inside `connection` objects, corpus-wide and of each
    /// stage, and inside `record`, before decoding.
    static func checkStageKeys(_ dictionary: [String: Any], _ fail: (String) -> FormatError) throws(FormatError) {
        func check(_ object: Any?, _ keys: Set<String>, _ name: String) throws(FormatError) {
            guard let object else { return }
            guard let entries = object as? [String: Any] else { throw fail("\(name) must be an object") }
            if let unknown = entries.keys.filter({ !keys.contains($0) }).sorted().first {
                throw fail("\(name): unknown key \"\(unknown)\" (one of \(keys.sorted().joined(separator: ", ")))")
            }
        }
        try check(dictionary["connection"], ConnectionSettings.keys, "connection")
        for (index, entry) in ((dictionary["stages"] as? [Any]) ?? []).enumerated() {
            guard let entry = entry as? [String: Any] else { continue }
            try check(entry["connection"], ConnectionSettings.keys, "stages[\(index)].connection")
            try check(entry["record"], StageRecord.keys, "stages[\(index)].record")
            if let transaction = entry["transaction"] as? String, StageTransaction(rawValue: transaction) == nil {
                throw fail("stages[\(index)].transaction: \"\(transaction)\" is not one of \"each file\", \"whole stage\"")
            }
            if let value = (entry["record"] as? [String: Any])?["value"] as? String, StageRecord.Value(rawValue: value) == nil {
                throw fail("stages[\(index)].record.value: \"\(value)\" is not one of \"version\", \"name\"")
            }
        }
    }

    /// Checks one stage: exactly one thing to run, and only the keys that go with it.
    func validate(_ stage: Stage, _ index: Int, _ fail: (String) -> FormatError) throws(FormatError) {
        let name = "stages[\(index)]"
        guard stage.kindKeys.count == 1, stage.exec?.isEmpty != true else {
            throw fail("\(name) needs exactly one of \"sql\", \"folder\", \"exec\" (a non-empty array) and \"swift\"")
        }
        if stage.through != nil && stage.folder == nil { throw fail("\(name): \"through\" names the last migration of a \"folder\"") }
        if stage.record != nil && stage.folder == nil { throw fail("\(name): \"record\" records the migrations of a \"folder\"") }
        if stage.transaction != nil && !stage.runsSQL { throw fail("\(name): \"transaction\" is for an SQL stage (\"sql\" or \"folder\")") }
        if let record = stage.record, record.table.isEmpty || record.column.isEmpty {
            throw fail("\(name).record needs a table and a column")
        }
        if stage.swift?.isEmpty == true { throw fail("\(name): \"swift\" names the Swift stage given to MigrationRunner") }
        guard let settings = stage.connection else { return }
        if let problem = settings.environmentProblem() { throw fail("\(name).connection.environment: \(problem)") }
        if stage.exec != nil, let flag = ConnectionFlag.allCases.first(where: { settings[$0] != nil }) {
            throw fail("\(name).connection.\(flag.rawValue): a program opens the store with its own connection, which fixturekit cannot set; give it the setting in its own code")
        }
        if stage.exec == nil, let zone = settings.environment?["TZ"], zone != processTimeZone {
            throw fail("\(name).connection.environment.TZ: an SQL or Swift stage runs in fixturekit's own process, whose time zone is the corpus-wide one (\(processTimeZone)); declare it in \"connection\"")
        }
    }

    /// Checks the corpus-wide `connection`.
    func validateConnection(_ fail: (String) -> FormatError) throws(FormatError) {
        if let problem = connection?.environmentProblem() { throw fail("connection.environment: \(problem)") }
    }
}
