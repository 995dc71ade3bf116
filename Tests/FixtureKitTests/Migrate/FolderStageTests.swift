import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport
@testable import FixtureKitTool

/// A stage that is a folder of migrations, as Diesel, sqlx, refinery and Flyway
/// keep them: run in their tool's order, each file in its own transaction,
/// recorded in the app's bookkeeping table, and a failure named FILE:LINE:COLUMN.
@Suite struct FolderStageTests {
    static let diesel = "__diesel_schema_migrations"
    static let dieselTable = "\nCREATE TABLE \(diesel) (version VARCHAR(50) PRIMARY KEY NOT NULL, run_on TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP);"
    static let schema2 = """
        CREATE TABLE folders (id INTEGER PRIMARY KEY, name TEXT NOT NULL, color TEXT);
        CREATE TABLE notes (id INTEGER PRIMARY KEY, folder_id INTEGER REFERENCES folders(id), title TEXT, pinned INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);

        """ + noteTags
    /// The third migration; line 7 is `brokenLine` in the broken one.
    static let noteTags = """
        -- Tags on notes: a note has many tags,
        -- a tag many notes.
        CREATE TABLE note_tags (
            note_id INTEGER NOT NULL REFERENCES notes(id),
            tag_id INTEGER NOT NULL REFERENCES tags(id),
            added_at INTEGER NOT NULL,
            UNIQUE (note_id, tag_id)
        );
        CREATE INDEX note_tags_by_tag ON note_tags (tag_id);
        """
    static let brokenLine = "    UNIQUE note_id, tag_id)"
    /// The five migrations of 2.0.0, Diesel's way; the fourth holds its own transaction.
    static let migrations: [(String, String)] = [
        ("2024-01-01-000000_pin_notes", "ALTER TABLE notes ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;\n"),
        ("2024-01-02-000000_create_tags", "CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);\n"),
        ("2024-01-03-000000_create_note_tags", noteTags),
        ("2024-01-04-000000_color_folders", "PRAGMA foreign_keys = OFF;\nBEGIN;\n\(FoldersCorpus.rebuild)\nCOMMIT;\nPRAGMA foreign_keys = ON;\n"),
        ("2024-01-05-000000_seed_tags", "INSERT INTO tags (name) VALUES ('home'), ('work');\n"),
    ]

    /// The corpus, with the five migrations in `migrations/server/` (the third as `third`).
    func dieselCorpus(third: String = noteTags, transaction: String? = nil) throws -> FoldersCorpus {
        let corpus = try FoldersCorpus(extraSchema: Self.dieselTable, schema2: Self.schema2) { database in
            try database.execute("INSERT INTO \(Self.diesel) (version) VALUES ('00000000000000')")
        }
        try corpus.write("migrations/server/README.md", "Diesel's migrations: diesel migration run")
        for (name, sql) in Self.migrations {
            try corpus.write("migrations/server/\(name)/up.sql", name.contains("note_tags") ? third : sql)
            try corpus.write("migrations/server/\(name)/down.sql", "SELECT 'not run';")
        }
        var stage: [String: Any] = ["folder": "migrations/server", "record": ["table": Self.diesel, "column": "version", "value": "version"]]
        if let transaction { stage["transaction"] = transaction }
        try corpus.writeConfig(stage: stage) { object in
            // Dropping the parent `folders` in a transaction would fail: the fourth turns them off first.
            object["connection"] = ["foreign_keys": true]
            object["counts"] = ["tags": "changes"]
            object["checks"] = [[
                "name": "every migration recorded", "sql": "SELECT group_concat(version, ' ') FROM (SELECT version FROM \(Self.diesel) ORDER BY version)",
                "expect": "00000000000000 20240101000000 20240102000000 20240103000000 20240104000000 20240105000000",
            ]]
        }
        return corpus
    }

    @Test func aDieselFolderRunsEachMigrationInItsOwnTransactionAndRecordsIt() throws {
        let corpus = try dieselCorpus()
        let path = try corpus.migrate()
        #expect(path.passed, "\(path.checks.filter { !$0.passed })")
        #expect(path.check("every migration recorded")?.passed == true)
        #expect(path.check("stage 1.0.0 -> 2.0.0")?.warnings == nil)
        // Run by hand, the log says which file held its own transaction.
        let runner = try MigrationRunner.prepareMatrix(config: corpus.config)
        let kept = corpus.folder.url("kept")
        try corpus.write("migrations/server/2024-01-05-000000_seed_tags/up.sql", "INSERT INTO tags (name) VALUES ('home'), ('home');\n")
        let failed = runner.run(try #require(runner.configuration.migrationPaths().first), keepFailed: kept)
        #expect(!failed.passed)
        let log = try String(contentsOfFile: kept + "/1.0.0_to_2.0.0/statements.log", encoding: .utf8)
        #expect(log.contains("-- migrations/server/2024-01-04-000000_color_folders/up.sql holds its own BEGIN and COMMIT: run as written, outside a transaction of fixturekit's\nPRAGMA foreign_keys = OFF;\nBEGIN;"))
        #expect(log.contains("INSERT INTO \"\(Self.diesel)\" (\"version\") VALUES ('20240104000000')"))
    }

    @Test func theSameFolderInOneTransactionSaysWhyItsBeginCannotRun() throws {
        let corpus = try dieselCorpus(transaction: "whole stage")
        let stage = try #require(try corpus.migrate().check("stage 1.0.0 -> 2.0.0"))
        #expect(stage.message == #"migrations/server/2024-01-04-000000_color_folders/up.sql:2: BEGIN cannot run here: the stage runs in one transaction ("transaction": "whole stage"), and SQLite does not nest transactions; with "each file", a file that holds its own BEGIN and COMMIT runs as written"#)
        #expect(stage.statement == "BEGIN;")
    }

    @Test func aSyntaxErrorIsNamedFileLineAndColumnWithTheStatementAsWritten() throws {
        var lines = Self.noteTags.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[6] = Self.brokenLine
        let corpus = try dieselCorpus(third: lines.joined(separator: "\n"))
        let file = "migrations/server/2024-01-03-000000_create_note_tags/up.sql"
        let stage = try #require(try corpus.migrate().check("stage 1.0.0 -> 2.0.0"))
        #expect(stage.message == "\(file):7:12: SQLite error 1: near \"note_id\": syntax error")
        #expect(stage.statement == lines[2...6].joined(separator: "\n"))
        // On the terminal, the statement's lines as written: no `\n`.
        let run = fixturekit("migrate", "--config", corpus.config, "--quiet")
        #expect(run.status == 1)
        #expect(run.standardError.split(separator: "\n").dropFirst().prefix(7).joined(separator: "\n") == """
                  stage 1.0.0 -> 2.0.0: \(file):7:12: SQLite error 1: near "note_id": syntax error
                  statement: CREATE TABLE note_tags (
                                 note_id INTEGER NOT NULL REFERENCES notes(id),
                                 tag_id INTEGER NOT NULL REFERENCES tags(id),
                                 added_at INTEGER NOT NULL,
                                 UNIQUE note_id, tag_id)
                  connection: \(ConnectionSettings.sqlStageDefaults.replacingOccurrences(of: "foreign_keys OFF", with: "foreign_keys ON"))
            """)
        #expect(!run.standardError.contains("\\n"))
        // The files before it were committed, as the app's tool leaves them.
        #expect(!run.standardError.contains("2024-01-04"))
    }

    /// A corpus whose stage is a folder of `names`, each file recording its name in `applied`.
    func orderCorpus(_ names: [String]) throws -> FoldersCorpus {
        let corpus = try FoldersCorpus(extraSchema: "\nCREATE TABLE applied (name TEXT);")
        for name in names { try corpus.write("migrations/next/\(name)", "INSERT INTO applied VALUES ('\(name)');\n") }
        try corpus.write("migrations/next/\(names[0])", "ALTER TABLE folders ADD COLUMN color TEXT;\nINSERT INTO applied VALUES ('\(names[0])');\n")
        return corpus
    }

    @Test(arguments: [
        // sqlx and GRDB-style numbered files: 10 after 9, whatever the zeros.
        (["0001_first.sql", "2_second.sql", "9_ninth.sql", "10_tenth.sql", "0011_eleventh.up.sql", "0011_eleventh.down.sql"], ["0001_first.sql", "2_second.sql", "9_ninth.sql", "10_tenth.sql", "0011_eleventh.up.sql"]),
        // Flyway and refinery: V10 after V9, V1.10 after V1.9.
        (["V1__first.sql", "V1.9__a.sql", "V1_10__b.sql", "V9__ninth.sql", "V10__tenth.sql"], ["V1__first.sql", "V1.9__a.sql", "V1_10__b.sql", "V9__ninth.sql", "V10__tenth.sql"]),
    ])
    func numberedAndFlywayFoldersRunInTheirToolsOrder(files: [String], expected: [String]) throws {
        let corpus = try orderCorpus(files)
        try corpus.writeConfig(stage: ["folder": "migrations/next"]) { object in
            object["counts"] = ["applied": "changes"]
            object["checks"] = [["name": "order", "sql": "SELECT group_concat(name, ' ') FROM applied", "expect": expected.joined(separator: " ")]]
        }
        let path = try corpus.migrate()
        #expect(path.check("order")?.message == nil)
        #expect(path.passed)
    }

    @Test func aMigrationTheBookkeepingTableHoldsIsNotRunAgain() throws {
        let corpus = try FoldersCorpus(extraSchema: "\nCREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);") { database in
            try database.execute("INSERT INTO grdb_migrations VALUES ('001_v1')")
        }
        // Run again, the first would fail: its table is not there.
        try corpus.write("migrations/app/001_v1.sql", "INSERT INTO no_such_table VALUES (1);\n")
        try corpus.write("migrations/app/002_v2.sql", "ALTER TABLE folders ADD COLUMN color TEXT;\n")
        try corpus.writeConfig(stage: ["folder": "migrations/app", "record": ["table": "grdb_migrations", "column": "identifier", "value": "name"]]) { object in
            object["checks"] = [["name": "recorded", "sql": "SELECT identifier FROM grdb_migrations ORDER BY 1", "expect": [["001_v1"], ["002_v2"]]]]
        }
        let path = try corpus.migrate()
        #expect(path.passed, "\(path.checks.filter { !$0.passed })")

        // A table the store does not have is the stage's failure, in words.
        try corpus.writeConfig(stage: ["folder": "migrations/app", "record": ["table": "schema_migrations", "column": "version", "value": "version"]])
        #expect(try corpus.migrate().check("stage 1.0.0 -> 2.0.0")?.message
            == "record: SQLite error 1: no such table: schema_migrations (the app's migration tool creates its table before the first migration; so must the fixture)")
    }

    @Test func throughLeavesTheLaterMigrationsToTheLaterStage() throws {
        // One folder for the whole history, as Diesel keeps it; each version recorded what it ran.
        let applied = "\nCREATE TABLE applied (name TEXT PRIMARY KEY);"
        let corpus = try FoldersCorpus(extraSchema: applied, fill2: { try $0.execute("INSERT INTO applied VALUES ('1_color')") })
        try corpus.make("3.0.0", schema: FoldersCorpus.schema2 + applied + "\nCREATE TABLE archive (id INTEGER PRIMARY KEY);") { database in
            try database.execute("INSERT INTO applied VALUES ('1_color'), ('2_archive')")
        }
        try corpus.write("migrations/all/1_color.sql", "ALTER TABLE folders ADD COLUMN color TEXT;\n")
        try corpus.write("migrations/all/2_archive.sql", "CREATE TABLE archive (id INTEGER PRIMARY KEY);\n")
        let record = ["table": "applied", "column": "name", "value": "name"]
        try corpus.writeConfig(stage: [:]) { object in
            object["current"] = "3.0.0"
            object["supported"] = ["1.0.0", "2.0.0"]
            object["stages"] = [
                ["from": "1.0.0", "to": "2.0.0", "folder": "migrations/all", "through": "1_color", "record": record],
                ["from": "2.0.0", "to": "3.0.0", "folder": "migrations/all", "record": record],
            ]
        }
        let report = try MigrationRunner.runMatrix(config: corpus.config)
        #expect(report.paths.count == 3)
        for path in report.paths { #expect(path.passed, "\(path.id): \(path.checks.filter { !$0.passed })") }

        // Without `through`, the first stage runs the second's migration too: 2.0.0's schema says so.
        try corpus.writeConfig(stage: [:]) { object in
            object["current"] = "3.0.0"
            object["supported"] = ["1.0.0", "2.0.0"]
            object["stages"] = [
                ["from": "1.0.0", "to": "2.0.0", "folder": "migrations/all", "record": record],
                ["from": "2.0.0", "to": "3.0.0", "folder": "migrations/all", "record": record],
            ]
        }
        let hop = try #require(try MigrationRunner.runMatrix(config: corpus.config).paths.first { $0.kind == .hop && $0.source == "1.0.0" })
        #expect(hop.check("schema matches 2.0.0")?.passed == false)
    }
}
