import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport
@testable import FixtureKitTool

/// A PASS means what it would on the device: a stage runs on the connection it
/// declares, and every report says which.
@Suite struct StageConnectionTests {
    /// Where the stage is: one SQL file, or the only migration of a Diesel folder.
    enum Kind: CaseIterable { case sql, folder }
    /// Where foreign keys are declared ON.
    enum Declared: CaseIterable { case corpus, stage }

    /// The corpus with `FoldersCorpus.rebuild` as its stage, foreign keys as `foreignKeys` says.
    func corpus(_ kind: Kind, declared: Declared, foreignKeys: Bool?, wal: Bool) throws -> (FoldersCorpus, String) {
        let corpus = try FoldersCorpus(wal: wal)
        var stage: [String: Any]
        let file: String
        switch kind {
        case .sql:
            file = "migrations/1.0.0-2.0.0.sql"
            stage = ["sql": file]
        case .folder:
            file = "migrations/server/2024-01-31-120000_rebuild_folders/up.sql"
            stage = ["folder": "migrations/server"]
        }
        try corpus.write(file, FoldersCorpus.rebuild)
        let connection: [String: Any] = foreignKeys.map { ["foreign_keys": $0] } ?? [:]
        if declared == .stage, foreignKeys != nil { stage["connection"] = connection }
        try corpus.writeConfig(stage: stage) { object in
            if declared == .corpus, foreignKeys != nil { object["connection"] = connection }
        }
        return (corpus, file)
    }

    @Test(arguments: Kind.allCases, Declared.allCases)
    func droppingAParentUnderForeignKeysFailsAtItsStatementAndOffPasses(kind: Kind, declared: Declared) throws {
        for wal in [false, true] {
            let (on, file) = try corpus(kind, declared: declared, foreignKeys: true, wal: wal)
            let failed = try on.migrate()
            let stage = try #require(failed.check("stage 1.0.0 -> 2.0.0"))
            #expect(!stage.passed)
            #expect(stage.message == "\(file):4: SQLite error 19: FOREIGN KEY constraint failed\nnotes.folder_id -> folders(id): 12 rows refer to folders")
            #expect(stage.statement == "DROP TABLE folders;")
            #expect(stage.connection?.foreignKeys == true)
            #expect(stage.connection?.summary == ConnectionSettings.sqlStageDefaults.replacingOccurrences(of: "foreign_keys OFF", with: "foreign_keys ON"))

            // Declared OFF, and left to the default: the same stage passes, and says so.
            for foreignKeys in [false, nil] as [Bool?] {
                let (off, _) = try corpus(kind, declared: declared, foreignKeys: foreignKeys, wal: wal)
                let passed = try off.migrate()
                #expect(passed.passed, "\(passed.checks.filter { !$0.passed })")
                #expect(passed.check("stage 1.0.0 -> 2.0.0")?.connection?.summary == ConnectionSettings.sqlStageDefaults)
            }
        }
    }

    /// The settings that only make the throwaway copy faster (docs/commands/migrate.md):
    /// a stage that sees others fails on json()'s error.
    @Test func anSQLStageRunsWithTheCopysSpeedSettings() throws {
        let (corpus, file) = try corpus(.sql, declared: .corpus, foreignKeys: nil, wal: false)
        let check = """
            SELECT CASE WHEN (SELECT * FROM pragma_synchronous) = 0 AND (SELECT * FROM pragma_secure_delete) = 0
              AND (SELECT * FROM pragma_cache_size) = -32768 AND (SELECT * FROM pragma_threads) = 1 THEN 1 ELSE json('other settings') END;

            """
        try corpus.write(file, check + FoldersCorpus.rebuild)
        let report = try corpus.migrate()
        #expect(report.passed, "\(report.checks.filter { !$0.passed })")
    }

    @Test func everyReportStatesTheSettingsEachStageRanWith() throws {
        let (corpus, file) = try corpus(.sql, declared: .corpus, foreignKeys: true, wal: false)
        let junit = corpus.folder.url("report.xml")
        let html = corpus.folder.url("report.html")
        let run = fixturekit("migrate", "--config", corpus.config, "--json", "--junit", junit, "--html", html)
        #expect(run.status == 1)
        let on = ConnectionSettings.sqlStageDefaults.replacingOccurrences(of: "foreign_keys OFF", with: "foreign_keys ON")
        let lines = run.standardError.split(separator: "\n").map(String.init)
        #expect(lines.dropFirst().first == "migrate: stage 1.0.0 -> 2.0.0 ran with \(on)")
        #expect(Array(lines.dropFirst(3).prefix(4)) == [
            "      stage 1.0.0 -> 2.0.0: \(file):4: SQLite error 19: FOREIGN KEY constraint failed",
            "        notes.folder_id -> folders(id): 12 rows refer to folders",
            "      statement: DROP TABLE folders;",
            "      connection: \(on)",
        ])
        let report = try JSONDecoder().decode(MigrationReport.self, from: Data(run.standardOutput.utf8))
        #expect(report.paths[0].checks.first { $0.name.hasPrefix("stage ") }?.connection?.foreignKeys == true)
        #expect(run.standardOutput.contains(#""foreign_keys" : true"#))
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("""
                  <properties>
                    <property name="connection.foreign_keys" value="ON"/>
                    <property name="connection.legacy_alter_table" value="OFF"/>
            """))
        #expect(xml.contains(#"<property name="connection.TZ" value="UTC"/>"#))
        let page = try String(contentsOfFile: html, encoding: .utf8)
        #expect(page.contains("<li><code class=\"name\">stage 1.0.0 -&gt; 2.0.0</code>: <code>\(on)</code></li>"))
        #expect(page.contains("<p class=\"label\">Connection</p>\n<pre class=\"message\">\(on)</pre>"))
    }

    @Test(arguments: JournalMode.allCases)
    func upgradeRunsTheStageWithTheSameSettings(mode: JournalMode) throws {
        let corpus = try FoldersCorpus()
        try corpus.write("migrations/1.0.0-2.0.0.sql", FoldersCorpus.rebuild + "\nPRAGMA user_version = 2;\n")
        for foreignKeys in [true, false] {
            try corpus.writeConfig(stage: ["sql": "migrations/1.0.0-2.0.0.sql"]) { object in
                object["userVersions"] = ["1.0.0": 0, "2.0.0": 2]
                object["connection"] = ["foreign_keys": foreignKeys]
            }
            let live = corpus.folder.url("live-\(foreignKeys)")
            try FileManager.default.createDirectory(atPath: live, withIntermediateDirectories: true)
            let store = live + "/App.sqlite"
            let database = try Database(path: store, options: .init(create: true))
            if mode == .wal { try database.execute("PRAGMA journal_mode = WAL") }
            try database.execute(FoldersCorpus.schema1 + "INSERT INTO folders VALUES (1, 'Inbox'); INSERT INTO notes VALUES (1, 1, 'Note');")
            try database.close()
            let on = ConnectionSettings.sqlStageDefaults.replacingOccurrences(of: "foreign_keys OFF", with: "foreign_keys ON")
            let run = fixturekit("upgrade", store, "--config", corpus.config)
            if foreignKeys {
                #expect(run.status == 1)
                #expect(run.standardError.contains("""
                    FAIL  stage 1.0.0 -> 2.0.0
                          migrations/1.0.0-2.0.0.sql:4: SQLite error 19: FOREIGN KEY constraint failed
                          notes.folder_id -> folders(id): 1 row refers to folders
                          statement: DROP TABLE folders;
                          connection: \(on)

                    """), "\(run.standardError)")
            } else {
                #expect(run.status == 0, "\(run.standardError)")
                #expect(run.standardError.contains("PASS  stage 1.0.0 -> 2.0.0\n      connection: \(ConnectionSettings.sqlStageDefaults)\n"))
            }
        }
    }

    @Test func theToolCannotRunASwiftStageAndSaysWhere() throws {
        let corpus = try FoldersCorpus()
        try corpus.writeConfig(stage: ["swift": "AppMigrator"]) { $0["userVersions"] = ["1.0.0": 0, "2.0.0": 2] }
        let migrate = fixturekit("migrate", "--config", corpus.config)
        #expect(migrate.status == 1)
        #expect(migrate.standardError.contains(#"      stage 1.0.0 -> 2.0.0: "swift": "AppMigrator" is a Swift stage: it runs in the app's own tests, which give its code to MigrationRunner (swiftStages:); the fixturekit tool cannot run it"#))
        let live = corpus.folder.url("live")
        try FileManager.default.createDirectory(atPath: live, withIntermediateDirectories: true)
        let database = try Database(path: live + "/App.sqlite", options: .init(create: true))
        try database.execute(FoldersCorpus.schema1)
        try database.close()
        let upgrade = fixturekit("upgrade", live + "/App.sqlite", "--config", corpus.config)
        #expect(upgrade.status == 2)
        #expect(upgrade.standardError == #"fixturekit: upgrade: \#(live)/App.sqlite: stage 1.0.0 -> 2.0.0 is a Swift stage ("swift": "AppMigrator"): its code is the app's, which runs it itself; upgrade cannot"# + "\n")
    }

    // MARK: - Statements that do nothing where they stand

    /// `PRAGMA foreign_keys = ON` at line 2 of a stage that otherwise passes.
    static let pragmaInside = """
        -- turn the checks on
        PRAGMA foreign_keys = ON;
        ALTER TABLE folders ADD COLUMN color TEXT;
        """

    @Test(arguments: [nil, "each file", "whole stage"] as [String?])
    func aPragmaIgnoredInsideTheTransactionIsAWarningWithItsLine(transaction: String?) throws {
        let corpus = try FoldersCorpus()
        try corpus.write("migrations/1.0.0-2.0.0.sql", Self.pragmaInside)
        var stage: [String: Any] = ["sql": "migrations/1.0.0-2.0.0.sql"]
        if let transaction { stage["transaction"] = transaction }
        try corpus.writeConfig(stage: stage)
        let warning = "migrations/1.0.0-2.0.0.sql:2: PRAGMA foreign_keys = ON does nothing here: foreign_keys stays 0, where it would be 1 (SQLite ignores it inside a transaction)"
        let path = try corpus.migrate()
        #expect(path.passed)
        #expect(path.check("stage 1.0.0 -> 2.0.0")?.warnings == [warning])
        let junit = corpus.folder.url("report.xml")
        let html = corpus.folder.url("report.html")
        let run = fixturekit("migrate", "--config", corpus.config, "--quiet", "--junit", junit, "--html", html)
        #expect(run.status == 0)
        #expect(run.standardError == "      stage 1.0.0 -> 2.0.0: warning: \(warning)\n")
        #expect(try String(contentsOfFile: junit, encoding: .utf8).contains("      <system-out>\(warning)</system-out>\n"))
        #expect(try String(contentsOfFile: html, encoding: .utf8).contains("<h3 id=\"warnings\">Warnings</h3>\n<ul class=\"findings\">\n<li><code class=\"name\">1.0.0 -&gt; 2.0.0</code> <span>stage 1.0.0 -&gt; 2.0.0: \(warning)</span></li>"))

        // Strict: the stage fails with it.
        try corpus.writeConfig(stage: stage) { $0["strictStages"] = true }
        let strict = try corpus.migrate()
        #expect(!strict.passed)
        #expect(strict.check("stage 1.0.0 -> 2.0.0")?.message == warning)
    }

    @Test(arguments: [
        ("PRAGMA page_size = 8192;", "page_size stays 4096, where it would be 8192 (a store keeps its page size until a VACUUM, which cannot run inside a transaction)"),
        ("PRAGMA auto_vacuum = FULL;", "auto_vacuum stays 0, where it would be 1 (a store keeps it until a VACUUM, which cannot run inside a transaction)"),
        ("PRAGMA journal_mode = MEMORY;", "journal_mode stays delete, where it would be memory (SQLite keeps the journal mode inside a transaction that has written)"),
        ("PRAGMA hard_heap_limit = 1000000;", "fixturekit runs SQLite without the memory statistics that heap limits need (on a device the limit is the whole app's)"),
        ("PRAGMA Soft_Heap_Limit(1000000);", "fixturekit runs SQLite without the memory statistics that heap limits need (on a device the limit is the whole app's)"),
    ])
    func eachPragmaThatCannotTakeEffectIsFound(pragma: String, what: String) throws {
        let corpus = try FoldersCorpus()
        try corpus.write("migrations/1.0.0-2.0.0.sql", "ALTER TABLE folders ADD COLUMN color TEXT;\n\(pragma)\n")
        try corpus.writeConfig(stage: ["sql": "migrations/1.0.0-2.0.0.sql"])
        let path = try corpus.migrate()
        #expect(path.check("stage 1.0.0 -> 2.0.0")?.warnings == ["migrations/1.0.0-2.0.0.sql:2: \(pragma.dropLast()) does nothing here: \(what)"])
    }

    @Test func aPragmaThatTakesEffectIsNoFinding() throws {
        let corpus = try FoldersCorpus()
        // Legacy ALTER TABLE takes effect inside a transaction; a PRAGMA that reads is no setting.
        try corpus.write("migrations/1.0.0-2.0.0.sql", "PRAGMA legacy_alter_table = ON;\nPRAGMA foreign_keys;\nPRAGMA foreign_keys = OFF;\nALTER TABLE folders ADD COLUMN color TEXT;\n")
        try corpus.writeConfig(stage: ["sql": "migrations/1.0.0-2.0.0.sql"])
        let path = try corpus.migrate()
        #expect(path.passed)
        #expect(path.check("stage 1.0.0 -> 2.0.0")?.warnings == nil)
    }

    @Test func aFileThatHoldsItsOwnTransactionTurnsForeignKeysOffAsTheAppDoes() throws {
        // SQLite's documented twelve steps: foreign keys off outside the transaction.
        let corpus = try FoldersCorpus()
        try corpus.write("migrations/1.0.0-2.0.0.sql", "PRAGMA foreign_keys = OFF;\nBEGIN;\n\(FoldersCorpus.rebuild)\nPRAGMA foreign_key_check;\nCOMMIT;\nPRAGMA foreign_keys = ON;\n")
        try corpus.writeConfig(stage: ["sql": "migrations/1.0.0-2.0.0.sql"]) { $0["connection"] = ["foreign_keys": true] }
        let path = try corpus.migrate()
        #expect(path.passed, "\(path.checks.filter { !$0.passed })")
        #expect(path.check("stage 1.0.0 -> 2.0.0")?.warnings == nil)
    }

    // MARK: - The environment

    /// 2024-03-31 12:00:00 local time in UTC, in seconds: the same on every machine.
    static let noon: Int64 = 1_711_886_400

    @Test func aProgramGetsTheEnvironmentItsStageDeclares() throws {
        let corpus = try FoldersCorpus(extraSchema: "\nCREATE TABLE seen (tz TEXT, lc TEXT, seconds INTEGER);")
        let program = #"sqlite3 "$FIXTUREKIT_STORE" "ALTER TABLE folders ADD COLUMN color TEXT; INSERT INTO seen VALUES ('$TZ', '$LC_ALL', strftime('%s', '2024-03-31 12:00:00', 'utc'))""#
        try corpus.writeConfig(stage: ["exec": ["sh", "-c", program], "connection": ["environment": ["TZ": "Asia/Tokyo"]]]) { object in
            object["counts"] = ["seen": "changes"]
            object["checks"] = [["name": "seen", "sql": "SELECT tz, lc, seconds FROM seen", "expect": [["Asia/Tokyo", "C.UTF-8", Self.noon - 9 * 3600]]]]
        }
        let path = try corpus.migrate()
        #expect(path.passed, "\(path.checks.filter { !$0.passed })")
        #expect(path.check("stage 1.0.0 -> 2.0.0")?.connection == ConnectionSettings(environment: ["TZ": "Asia/Tokyo", "LC_ALL": "C.UTF-8"]))
    }

    @Test func theTimeZoneIsPinnedForSQLAndProgramStagesWhateverTheMachines() throws {
        let clock = "\nCREATE TABLE clock (sql INTEGER, program INTEGER);"
        let corpus = try FoldersCorpus(extraSchema: clock)
        try corpus.make("1.5.0", schema: FoldersCorpus.schema2 + clock)
        try corpus.write("migrations/1.0.0-1.5.0.sql", """
            ALTER TABLE folders ADD COLUMN color TEXT;
            INSERT INTO clock (sql) VALUES (strftime('%s', '2024-03-31 12:00:00', 'utc'));
            """)
        try corpus.writeConfig(stage: ["sql": "migrations/1.0.0-1.5.0.sql"]) { object in
            object["stages"] = [
                ["from": "1.0.0", "to": "1.5.0", "sql": "migrations/1.0.0-1.5.0.sql"],
                ["from": "1.5.0", "to": "2.0.0", "exec": ["sh", "-c", "sqlite3 \"$FIXTUREKIT_STORE\" \"UPDATE clock SET program = strftime('%s', '2024-03-31 12:00:00', 'utc')\""]],
            ]
            object["counts"] = ["clock": "changes"]
            object["checks"] = [["name": "noon is noon", "from": ["1.0.0"], "sql": "SELECT sql, program FROM clock", "expect": [[Self.noon, Self.noon]]]]
        }
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = "Europe/Berlin"
        let run = try FixtureKitTestSupport.run([toolExecutable, "migrate", "--config", corpus.config], environment: environment)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("migrate: stage 1.5.0 -> 2.0.0 ran with the program's own connection, LC_ALL=C.UTF-8, TZ=UTC\n"))
        // The machine's zone, had it not been pinned: noon in Berlin is 10:00 UTC.
        let berlin = try FixtureKitTestSupport.run(["sqlite3", ":memory:", "SELECT strftime('%s', '2024-03-31 12:00:00', 'utc')"], environment: environment)
        #expect(berlin.standardOutput == "\(Self.noon - 7200)\n")
    }
}
