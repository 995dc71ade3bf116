import Foundation
import Testing
@testable import FixtureKit

/// A corpus built in code in a fresh folder: `MigrationFixtures/` with the
/// fixtures captured from stores made by SQL, and its configuration.
protocol CodeBuiltCorpus {
    var folder: TemporaryFolder { get }
}

extension CodeBuiltCorpus {
    var corpus: String { folder.url("MigrationFixtures") }
    var config: String { corpus + "/fixturekit.json" }

    /// A store of `version` built from `schema`, captured as its fixture.
    func make(_ version: String, schema: String, fill: (Database) throws -> Void = { _ in }) throws {
        let live = folder.url("live-\(version)")
        try FileManager.default.createDirectory(atPath: live, withIntermediateDirectories: true)
        let database = try Database(path: live + "/App.sqlite", options: .init(create: true))
        try database.execute(schema)
        try fill(database)
        try database.close()
        _ = try Capture.capture(store: live + "/App.sqlite", version: version, corpus: corpus, mode: .snapshot, anonymize: .synthetic)
    }

    /// Writes fixturekit.json from its JSON object.
    func writeConfiguration(_ object: [String: Any]) throws {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        let path = try folder.write("MigrationFixtures/fixturekit.json", Array(data))
        // Every configuration the parser takes, the published schema takes too.
        if (try? CorpusConfiguration.parse(Array(data), path: path)) != nil { expectMatchesSchema(path) }
    }
}

/// A small Notes corpus built in code: three versions, two stages (SQL, then a
/// program), a configuration with checks. Tests break one thing each.
struct NotesCorpus: CodeBuiltCorpus {
    let folder: TemporaryFolder

    static let schema1 = """
        CREATE TABLE notes (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, title TEXT, body TEXT);
        CREATE TABLE drafts (id INTEGER PRIMARY KEY, text TEXT);
        """
    static let schema2 = """
        CREATE TABLE notes (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, title TEXT, body TEXT, created_at TEXT, folder_id INTEGER REFERENCES folders(id));
        CREATE TABLE drafts (id INTEGER PRIMARY KEY, text TEXT);
        CREATE TABLE folders (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        PRAGMA user_version = 2;
        """
    static let schema3 = """
        CREATE TABLE folders (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE notes (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, title TEXT, body TEXT, created_at INTEGER, folder_id INTEGER REFERENCES folders(id));
        CREATE INDEX notes_by_folder ON notes(folder_id);
        PRAGMA user_version = 3;
        """
    static let stage1to2 = """
        CREATE TABLE folders (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        INSERT INTO folders (id, name) VALUES (1, 'Inbox');
        ALTER TABLE notes ADD COLUMN created_at TEXT;
        ALTER TABLE notes ADD COLUMN folder_id INTEGER REFERENCES folders(id);
        UPDATE notes SET folder_id = 1, created_at = '2024-01-0' || (id % 9 + 1) || 'T10:00:00Z';
        CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        PRAGMA user_version = 2;
        """
    static let stage2to3 = """
        #!/bin/sh
        set -eu
        echo "migrating $FIXTUREKIT_FROM to $FIXTUREKIT_TO"
        sqlite3 "$FIXTUREKIT_STORE" <<'SQL'
        BEGIN;
        CREATE TABLE notes_new (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, title TEXT, body TEXT, created_at INTEGER, folder_id INTEGER REFERENCES folders(id));
        INSERT INTO notes_new SELECT id, uuid, title, body, CAST(strftime('%s', created_at) AS INTEGER), folder_id FROM notes;
        DROP TABLE notes;
        ALTER TABLE notes_new RENAME TO notes;
        CREATE INDEX notes_by_folder ON notes(folder_id);
        DROP TABLE drafts;
        PRAGMA user_version = 3;
        COMMIT;
        SQL
        """

    init() throws {
        folder = try TemporaryFolder()
        try make("1.0.0", schema: Self.schema1) { database in
            for index in 1...40 {
                try database.execute("INSERT INTO notes (uuid, title, body) VALUES ('K\(index)', 'Note \(index)', 'Body \(index)')")
            }
            try database.execute("UPDATE notes SET title = 'Groceries' WHERE uuid = 'K1'")
            try database.execute("INSERT INTO drafts (text) VALUES ('draft one'), ('draft two')")
        }
        try make("2.0.0", schema: Self.schema2) { database in
            try database.execute("INSERT INTO folders VALUES (1, 'Inbox'), (2, 'Work')")
            for index in 1...25 {
                try database.execute("INSERT INTO notes (uuid, title, body, created_at, folder_id) VALUES ('K\(index)', 'Note \(index)', 'Body', '2024-03-0\(index % 9 + 1)T08:00:00Z', \(index % 2 + 1))")
            }
            try database.execute("UPDATE notes SET title = 'Groceries' WHERE uuid = 'K1'")
            try database.execute("INSERT INTO tags (name) VALUES ('home'), ('work')")
        }
        try make("3.0.0", schema: Self.schema3) { database in
            try database.execute("INSERT INTO folders VALUES (1, 'Inbox')")
        }
        try folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", Self.stage1to2)
        try writeProgramStage(Self.stage2to3)
        try writeConfig()
    }

    /// Replaces the 2.0.0 -> 3.0.0 program, executable.
    func writeProgramStage(_ text: String) throws {
        try folder.write("MigrationFixtures/migrations/2.0.0-3.0.0.sh", text)
        chmod(corpus + "/migrations/2.0.0-3.0.0.sh", 0o755)
    }

    /// Writes fixturekit.json, with `edit` applied to its JSON object.
    func writeConfig(_ edit: (inout [String: Any]) -> Void = { _ in }) throws {
        var object: [String: Any] = [
            "store": "App.sqlite",
            "current": "3.0.0",
            "supported": ["1.0.0", "2.0.0"],
            "stages": [
                ["from": "1.0.0", "to": "2.0.0", "sql": "migrations/1.0.0-2.0.0.sql"],
                ["from": "2.0.0", "to": "3.0.0", "exec": ["migrations/2.0.0-3.0.0.sh"]],
            ],
            "counts": ["drafts": "dropped", "folders": "changes"],
            "checks": [
                ["name": "no orphan notes", "sql": "SELECT count(*) FROM notes WHERE folder_id NOT IN (SELECT id FROM folders)", "expect": 0],
                ["name": "note K1 keeps its title", "sql": "SELECT title FROM notes WHERE uuid = 'K1'", "expect": "Groceries"],
            ],
        ]
        edit(&object)
        try writeConfiguration(object)
    }
}
