import Foundation
import Testing
@testable import FixtureKit

/// A two-version corpus built in code whose 2.0.0 rebuilds a parent table the
/// twelve-step way (`folders`, which `notes` reference): a stage that drops
/// the parent while its children point at it. Tests write the stage and the
/// configuration they need.
struct FoldersCorpus: CodeBuiltCorpus {
    let folder: TemporaryFolder

    static let schema1 = """
        CREATE TABLE folders (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE notes (id INTEGER PRIMARY KEY, folder_id INTEGER REFERENCES folders(id), title TEXT);
        """
    static let schema2 = """
        CREATE TABLE folders (id INTEGER PRIMARY KEY, name TEXT NOT NULL, color TEXT);
        CREATE TABLE notes (id INTEGER PRIMARY KEY, folder_id INTEGER REFERENCES folders(id), title TEXT);
        """
    /// The rebuild: line 4 drops the parent table.
    static let rebuild = """
        CREATE TABLE folders_new (id INTEGER PRIMARY KEY, name TEXT NOT NULL, color TEXT);
        INSERT INTO folders_new (id, name) SELECT id, name FROM folders;
        -- the parent goes; its children stay
        DROP TABLE folders;
        ALTER TABLE folders_new RENAME TO folders;
        """

    /// - Parameters:
    ///   - wal: the fixtures' stores are in WAL mode.
    ///   - extraSchema: more of both versions' schema; `schema2` replaces 2.0.0's.
    ///   - fill: more rows of 1.0.0 (a trailing closure is it); `fill2`, of 2.0.0.
    init(
        wal: Bool = false, extraSchema: String = "", schema2: String = Self.schema2,
        fill: (Database) throws -> Void = { _ in }, fill2: (Database) throws -> Void = { _ in }
    ) throws {
        folder = try TemporaryFolder()
        let mode = wal ? "PRAGMA journal_mode = WAL;\n" : ""
        try make("1.0.0", schema: mode + Self.schema1 + extraSchema) { database in
            try database.execute("INSERT INTO folders VALUES (1, 'Inbox'), (2, 'Work')")
            for id in 1...12 { try database.execute("INSERT INTO notes VALUES (\(id), \(id % 2 + 1), 'Note \(id)')") }
            try fill(database)
        }
        try make("2.0.0", schema: mode + schema2 + extraSchema, fill: fill2)
    }

    /// Writes `text` as `name` in the corpus.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        try folder.write("MigrationFixtures/" + name, text)
    }

    /// Writes fixturekit.json: 1.0.0 to 2.0.0 by `stage` (its `from` and `to` added).
    func writeConfig(stage: [String: Any], _ edit: (inout [String: Any]) -> Void = { _ in }) throws {
        var stage = stage
        stage["from"] = "1.0.0"
        stage["to"] = "2.0.0"
        var object: [String: Any] = [
            "store": "App.sqlite", "current": "2.0.0", "supported": ["1.0.0"], "stages": [stage], "anonymize": false,
        ]
        edit(&object)
        try writeConfiguration(object)
    }

    /// The path of the matrix (1.0.0 -> 2.0.0), run in this process.
    func migrate(swiftStages: [String: SwiftStage] = [:]) throws -> PathResult {
        let report = try MigrationRunner.runMatrix(config: config, swiftStages: swiftStages)
        return try #require(report.paths.first)
    }
}

extension ConnectionSettings {
    /// What an SQL stage runs with by default, as reports state it.
    static let sqlStageDefaults = "foreign_keys OFF, legacy_alter_table OFF, recursive_triggers OFF, defensive OFF, trusted_schema ON, dqs_dml ON, dqs_ddl ON, TZ=UTC"
}
