import Foundation
import Testing
@testable import FixtureKitModels
@testable import FixtureKitTestSupport

/// A stage's declaration: migration folders in their tools' order, the
/// connection settings and what they refuse, and the digest the lock pins.
@Suite struct StageDeclarationTests {
    /// A folder `migrations/` holding `names` (a name ending in `/` is a folder
    /// with an `up.sql`), each file's text its own name.
    func folder(_ names: [String]) throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        for name in names {
            if name.hasSuffix("/") {
                try folder.write("migrations/\(name)up.sql", "-- \(name)")
                try folder.write("migrations/\(name)down.sql", "-- down")
            } else {
                try folder.write("migrations/\(name)", "-- \(name)")
            }
        }
        return folder
    }

    func order(_ names: [String], through: String? = nil) throws -> (MigrationFolder.Convention, [String], [String]) {
        let folder = try folder(names)
        let read = try MigrationFolder.read("migrations", corpus: folder.path, through: through)
        return (read.convention, read.migrations.map(\.name), read.migrations.map(\.version))
    }

    @Test func eachConventionIsOrderedAsItsToolOrdersIt() throws {
        // sqlx, GRDB-style numbered files: numbers, whatever their width.
        let numbered = try order(["10_ten.sql", "9_nine.sql", "0002_two.sql", "1_one.up.sql", "1_one.down.sql", "README.md", ".hidden.sql"])
        #expect(numbered.0 == .numbered)
        #expect(numbered.1 == ["1_one", "0002_two", "9_nine", "10_ten"])
        #expect(numbered.2 == ["1", "0002", "9", "10"])
        // Flyway and refinery: the version's numbers part by part, `.` or `_` between them.
        let flyway = try order(["V10__ten.sql", "V9__nine.sql", "V1.10__c.sql", "V1.9__b.sql", "V1_2__a.sql", "V1__first.sql"])
        #expect(flyway.0 == .flyway)
        #expect(flyway.1 == ["V1__first", "V1_2__a", "V1.9__b", "V1.10__c", "V9__nine", "V10__ten"])
        #expect(flyway.2 == ["1", "1.2", "1.9", "1.10", "9", "10"])
        // Diesel: the name up to its first `_`, without dashes, as text.
        let diesel = try order(["2024-01-10-000000_b/", "2024-01-02-000000_a/", "00000000000000_diesel_initial_setup/", "README.md"])
        #expect(diesel.0 == .diesel)
        #expect(diesel.1 == ["00000000000000_diesel_initial_setup", "2024-01-02-000000_a", "2024-01-10-000000_b"])
        #expect(diesel.2 == ["00000000000000", "20240102000000", "20240110000000"])
    }

    @Test func throughEndsTheStageAtAMigration() throws {
        #expect(try order(["1_a.sql", "2_b.sql", "3_c.sql"], through: "2_b").1 == ["1_a", "2_b"])
        #expect(try order(["1_a.sql", "2_b.sql", "3_c.sql"], through: "2_b.sql").1 == ["1_a", "2_b"])
        #expect(throws: MigrationFolder.Problem(message: "migrations: \"through\" names 4_d, which is not one of its migrations")) {
            try order(["1_a.sql"], through: "4_d")
        }
    }

    @Test(arguments: [
        (["1_a.sql", "01_b.sql"], "migrations: 01_b and 1_a have the same version 01"),
        (["V1__a.sql", "V1.0__b.sql"], "migrations: V1.0__b and V1__a have the same version 1.0"),
        (["1_a.sql", "V2__b.sql"], "migrations/V2__b.sql: flyway, where 1_a.sql is numbered: one folder holds one convention"),
        (["2024-01-01-000000_a/", "1_b.sql"], "migrations/1_b.sql: a file among Diesel migration folders"),
        (["notes.sql"], "migrations/notes.sql: not a migration of a known convention (Diesel NAME/up.sql, numbered 0001_name.sql, Flyway V1__name.sql)"),
        (["V1.x__a.sql"], "migrations/V1.x__a.sql: not a migration of a known convention (Diesel NAME/up.sql, numbered 0001_name.sql, Flyway V1__name.sql)"),
    ])
    func aFolderThatCannotBeOrderedIsRefused(names: [String], message: String) throws {
        #expect(throws: MigrationFolder.Problem(message: message)) { try order(names) }
    }

    @Test func aDieselFolderWithoutUpSQLIsRefused() throws {
        let folder = try folder(["2024-01-01-000000_a/"])
        try FileManager.default.createDirectory(atPath: folder.url("migrations/2024-01-02-000000_b"), withIntermediateDirectories: true)
        #expect(throws: MigrationFolder.Problem(message: "migrations/2024-01-02-000000_b: a Diesel migration folder holds up.sql, and this one does not")) {
            try MigrationFolder.read("migrations", corpus: folder.path)
        }
    }

    // MARK: - Connection settings

    static func parse(_ stages: String, extra: String = "") -> String? {
        let text = #"{"store": "App.sqlite", "current": "2.0.0", "supported": ["1.0.0"], "stages": ["# + stages + "]" + extra + "}"
        do { _ = try CorpusConfiguration.parse(Array(text.utf8), path: "f.json"); return nil } catch { return error.description }
    }

    @Test func aStagesSettingsAreItsOwnOverTheCorpusOverTheDefaults() throws {
        let text = #"""
            {"store": "App.sqlite", "current": "2.0.0", "supported": ["1.0.0"],
             "connection": {"foreign_keys": true, "environment": {"TZ": "Europe/Berlin", "LANG": "de_DE.UTF-8"}},
             "stages": [{"from": "1.0.0", "to": "2.0.0", "exec": ["./m.sh"], "connection": {"environment": {"LANG": "fr_FR.UTF-8"}}}]}
            """#
        let configuration = try CorpusConfiguration.parse(Array(text.utf8), path: "f.json")
        let settings = configuration.connection(of: configuration.stages[0])
        #expect(settings.foreignKeys == true)
        #expect(settings.legacyAlterTable == false)
        #expect(settings.trustedSchema == true)
        #expect(settings.environment == ["TZ": "Europe/Berlin", "LANG": "fr_FR.UTF-8", "LC_ALL": "C.UTF-8"])
        #expect(configuration.processTimeZone == "Europe/Berlin")
        // A program's own connection is its own: only its environment applies.
        #expect(configuration.appliedConnection(of: configuration.stages[0]) == ConnectionSettings(environment: settings.environment))
    }

    @Test(arguments: [
        (#"{"from": "1.0.0", "to": "2.0.0", "sql": "a.sql", "connection": {"foreign_key": true}}"#, "", #"stages[0].connection: unknown key "foreign_key" (one of defensive, dqs_ddl, dqs_dml, environment, foreign_keys, legacy_alter_table, recursive_triggers, trusted_schema)"#),
        (#"{"from": "1.0.0", "to": "2.0.0", "sql": "a.sql"}"#, #", "connection": {"tz": "UTC"}"#, #"connection: unknown key "tz" (one of defensive, dqs_ddl, dqs_dml, environment, foreign_keys, legacy_alter_table, recursive_triggers, trusted_schema)"#),
        (#"{"from": "1.0.0", "to": "2.0.0", "folder": "m", "record": {"table": "t", "column": "c", "valeu": "name"}}"#, "", #"stages[0].record: unknown key "valeu" (one of column, table, value)"#),
        (#"{"from": "1.0.0", "to": "2.0.0", "sql": "a.sql", "folder": "m"}"#, "", #"stages[0] needs exactly one of "sql", "folder", "exec" (a non-empty array) and "swift""#),
        (#"{"from": "1.0.0", "to": "2.0.0", "sql": "a.sql", "through": "2_b"}"#, "", #"stages[0]: "through" names the last migration of a "folder""#),
        (#"{"from": "1.0.0", "to": "2.0.0", "sql": "a.sql", "record": {"table": "t", "column": "c", "value": "name"}}"#, "", #"stages[0]: "record" records the migrations of a "folder""#),
        (#"{"from": "1.0.0", "to": "2.0.0", "exec": ["./m.sh"], "transaction": "whole stage"}"#, "", #"stages[0]: "transaction" is for an SQL stage ("sql" or "folder")"#),
        (#"{"from": "1.0.0", "to": "2.0.0", "sql": "a.sql", "transaction": "each statement"}"#, "", #"stages[0].transaction: "each statement" is not one of "each file", "whole stage""#),
        (#"{"from": "1.0.0", "to": "2.0.0", "exec": ["./m.sh"], "connection": {"foreign_keys": true}}"#, "", "stages[0].connection.foreign_keys: a program opens the store with its own connection, which fixturekit cannot set; give it the setting in its own code"),
        (#"{"from": "1.0.0", "to": "2.0.0", "sql": "a.sql", "connection": {"environment": {"TZ": "Asia/Tokyo"}}}"#, "", #"stages[0].connection.environment.TZ: an SQL or Swift stage runs in fixturekit's own process, whose time zone is the corpus-wide one (UTC); declare it in "connection""#),
        (#"{"from": "1.0.0", "to": "2.0.0", "exec": ["./m.sh"], "connection": {"environment": {"FIXTUREKIT_STORE": "x"}}}"#, "", "stages[0].connection.environment: FIXTUREKIT_STORE is fixturekit's own: it gives the program the store's path and the versions"),
        (#"{"from": "1.0.0", "to": "2.0.0", "sql": "a.sql"}"#, #", "connection": {"environment": {"A=B": "x"}}"#, #"connection.environment: "A=B" is not a variable name"#),
        (#"{"from": "1.0.0", "to": "2.0.0", "swift": ""}"#, "", #"stages[0]: "swift" names the Swift stage given to MigrationRunner"#),
    ])
    func aDeclarationThatCannotRunAsWrittenIsRefused(stage: String, extra: String, message: String) {
        #expect(Self.parse(stage, extra: extra) == "read configuration: f.json: " + message)
    }

    @Test func theDigestChangesWithWhatTheStageRunsAndHowButNotItsTimeout() throws {
        func digest(_ stage: String, extra: String = "") throws -> String {
            let text = #"{"store": "App.sqlite", "current": "2.0.0", "supported": ["1.0.0"], "stages": ["# + stage + "]" + extra + "}"
            let configuration = try CorpusConfiguration.parse(Array(text.utf8), path: "f.json")
            return StageDeclaration(configuration.stages[0], in: configuration).digest.hex
        }
        let base = try digest(#"{"from": "1.0.0", "to": "2.0.0", "exec": ["sh", "-c", "sqlite3 \"$FIXTUREKIT_STORE\" 'UPDATE t SET a = 1'"]}"#)
        #expect(try digest(#"{"from": "1.0.0", "to": "2.0.0", "exec": ["sh", "-c", "sqlite3 \"$FIXTUREKIT_STORE\" 'UPDATE t SET a = 1'"], "timeout": 30}"#) == base)
        let others = try [
            digest(#"{"from": "1.0.0", "to": "2.0.0", "exec": ["sh", "-c", "sqlite3 \"$FIXTUREKIT_STORE\" 'UPDATE t SET a = 2'"]}"#),
            digest(#"{"from": "1.0.0", "to": "2.0.0", "exec": ["sh", "-c", "sqlite3 \"$FIXTUREKIT_STORE\" 'UPDATE t SET a = 1'"], "connection": {"environment": {"LC_ALL": "C"}}}"#),
            digest(#"{"from": "1.0.0", "to": "2.0.0", "exec": ["sh", "-c", "sqlite3 \"$FIXTUREKIT_STORE\" 'UPDATE t SET a = 1'"]}"#, extra: #", "connection": {"environment": {"TZ": "Asia/Tokyo"}}"#),
        ]
        #expect(Set(others + [base]).count == 4)
        // An SQL stage's: its SQLite settings, not a program's environment.
        let sql = try digest(#"{"from": "1.0.0", "to": "2.0.0", "sql": "a.sql"}"#)
        #expect(try digest(#"{"from": "1.0.0", "to": "2.0.0", "sql": "a.sql", "connection": {"foreign_keys": true}}"#) != sql)
        #expect(try digest(#"{"from": "1.0.0", "to": "2.0.0", "sql": "a.sql"}"#, extra: #", "connection": {"environment": {"LC_ALL": "C"}}"#) == sql)
        #expect(try digest(#"{"from": "1.0.0", "to": "2.0.0", "sql": "a.sql", "transaction": "whole stage"}"#) != sql)
        #expect(try digest(#"{"from": "1.0.0", "to": "2.0.0", "sql": "a.sql", "transaction": "each file"}"#) == sql)
    }
}
