import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// A shipped stage is pinned whole: every file of its folder, and its
/// declaration (program, arguments, environment, connection) in fixturekit.json.
@Suite struct LockDeclarationTests {
    /// A corpus whose stage is `stage`, frozen and locked with `fixturekit lock`.
    func locked(_ stage: [String: Any], files: [String: String] = [:], edit: @escaping (inout [String: Any]) -> Void = { _ in }) throws -> FoldersCorpus {
        let corpus = try FoldersCorpus()
        for (name, text) in files { try corpus.write(name, text) }
        try corpus.writeConfig(stage: stage, edit)
        let lock = fixturekit("lock", corpus.corpus)
        #expect(lock.status == 0, "\(lock.standardError)")
        #expect(try lines(corpus).contains { $0.hasPrefix("declaration 2.0.0 1.0.0 ") })
        #expect(fixturekit("verify", "--quiet", corpus.corpus).status == 0)
        return corpus
    }

    func lines(_ corpus: FoldersCorpus) throws -> [String] {
        String(decoding: try corpus.folder.read("MigrationFixtures/fixturekit.lock"), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    static let inline = ["sh", "-c", "sqlite3 \"$FIXTUREKIT_STORE\" 'ALTER TABLE folders ADD COLUMN color TEXT'"]

    @Test func anInlineProgramsCodeEditedFailsVerifyAndMigrateNamingTheStage() throws {
        let corpus = try locked(["exec": Self.inline])
        // No file of the corpus holds the code: only its declaration pins it.
        #expect(try lines(corpus).contains { $0.hasPrefix("stage ") } == false)
        var edited = Self.inline
        edited[2] = "sqlite3 \"$FIXTUREKIT_STORE\" 'ALTER TABLE folders ADD COLUMN color TEXT; DELETE FROM notes'"
        try corpus.writeConfig(stage: ["exec": edited])
        let verify = fixturekit("verify", "--quiet", corpus.corpus)
        #expect(verify.status == 1)
        #expect(verify.standardError == """
            fixturekit: verify: \(corpus.corpus)/fixturekit.json: stage 1.0.0 -> 2.0.0: its declaration (what it runs and how) changed since 2.0.0 was locked
            \(corpus.corpus)/fixturekit.lock: FAILED (1 problem)

            """)
        let migrate = fixturekit("migrate", "--config", corpus.config)
        #expect(migrate.status == 1)
        #expect(migrate.standardError.contains("      stage 1.0.0 -> 2.0.0: fixturekit.json: its declaration (what it runs and how) changed since 2.0.0 was locked\n"), "\(migrate.standardError)")
        #expect(fixturekit("status", "--config", corpus.config).standardError.contains("problem: \(corpus.corpus)/fixturekit.json: stage 1.0.0 -> 2.0.0: its declaration (what it runs and how) changed since 2.0.0 was locked\n"))
    }

    @Test(arguments: [("TZ", "Asia/Tokyo"), ("LC_ALL", "de_DE.UTF-8"), ("LANG", "C")])
    func aProgramsEnvironmentChangedFailsVerify(name: String, value: String) throws {
        let corpus = try locked(["exec": Self.inline])
        try corpus.writeConfig(stage: ["exec": Self.inline, "connection": ["environment": [name: value]]])
        #expect(fixturekit("verify", "--quiet", corpus.corpus).standardError.contains("stage 1.0.0 -> 2.0.0: its declaration (what it runs and how) changed since 2.0.0 was locked"))
    }

    @Test func anSQLStagesConnectionChangedFailsVerifyItsTimeoutDoesNot() throws {
        let files = ["migrations/1.0.0-2.0.0.sql": "ALTER TABLE folders ADD COLUMN color TEXT;\n"]
        let corpus = try locked(["sql": "migrations/1.0.0-2.0.0.sql"], files: files)
        try corpus.writeConfig(stage: ["sql": "migrations/1.0.0-2.0.0.sql", "timeout": 30])
        #expect(fixturekit("verify", "--quiet", corpus.corpus).status == 0)
        try corpus.writeConfig(stage: ["sql": "migrations/1.0.0-2.0.0.sql"]) { $0["connection"] = ["foreign_keys": true] }
        let verify = fixturekit("verify", "--quiet", corpus.corpus)
        #expect(verify.status == 1)
        #expect(verify.standardError.contains("\(corpus.corpus)/fixturekit.json: stage 1.0.0 -> 2.0.0: its declaration (what it runs and how) changed since 2.0.0 was locked\n"))
    }

    @Test func everyFileOfAShippedFolderIsPinned() throws {
        let files = [
            "migrations/server/2024-01-01-000000_color/up.sql": "ALTER TABLE folders ADD COLUMN color TEXT;\n",
            "migrations/server/2024-01-02-000000_nothing/up.sql": "SELECT 1;\n",
            "migrations/server/2024-01-02-000000_nothing/down.sql": "SELECT 2;\n",
        ]
        let corpus = try locked(["folder": "migrations/server"], files: files)
        #expect(try lines(corpus).filter { $0.hasPrefix("stage ") }.map { $0.split(separator: " ").dropLast().joined(separator: " ") } == [
            "stage 2.0.0 migrations/server/2024-01-01-000000_color/up.sql",
            "stage 2.0.0 migrations/server/2024-01-02-000000_nothing/up.sql",
        ])
        // A file that is not run (down.sql) is not part of it.
        try corpus.write("migrations/server/2024-01-02-000000_nothing/down.sql", "SELECT 3;\n")
        #expect(fixturekit("verify", "--quiet", corpus.corpus).status == 0)
        // An edit, a migration added after the release, a migration removed: each named.
        try corpus.write("migrations/server/2024-01-02-000000_nothing/up.sql", "SELECT 1; -- fixed\n")
        try corpus.write("migrations/server/2024-01-03-000000_late/up.sql", "SELECT 4;\n")
        try FileManager.default.removeItem(atPath: corpus.corpus + "/migrations/server/2024-01-01-000000_color")
        let verify = fixturekit("verify", "--quiet", corpus.corpus)
        #expect(verify.status == 1)
        #expect(verify.standardError == """
            fixturekit: verify: \(corpus.corpus)/migrations/server/2024-01-01-000000_color/up.sql: locked as a stage that shipped with 2.0.0, but fixturekit.json no longer runs it
            fixturekit: verify: \(corpus.corpus)/migrations/server/2024-01-02-000000_nothing/up.sql: changed since 2.0.0 was locked
            fixturekit: verify: \(corpus.corpus)/migrations/server/2024-01-03-000000_late/up.sql: not locked: 2.0.0 shipped with it, but fixturekit.lock does not record it (`fixturekit lock` adds it, once reviewed)
            \(corpus.corpus)/fixturekit.lock: FAILED (3 problems)

            """)
        let migrate = fixturekit("migrate", "--config", corpus.config)
        #expect(migrate.standardError.contains("      stage 1.0.0 -> 2.0.0: migrations/server/2024-01-02-000000_nothing/up.sql: changed since 2.0.0 was locked\n"), "\(migrate.standardError)")
    }

    @Test func aLockWrittenBeforeDeclarationsWereLockedKeepsVerifyingUntilLockPinsThem() throws {
        let files = ["migrations/1.0.0-2.0.0.sql": "ALTER TABLE folders ADD COLUMN color TEXT;\n"]
        let corpus = try locked(["sql": "migrations/1.0.0-2.0.0.sql"], files: files)
        // The lock as an earlier fixturekit wrote it: no declaration line.
        let old = try lines(corpus).filter { !$0.hasPrefix("declaration ") }
        try corpus.write("fixturekit.lock", old.joined(separator: "\n") + "\n")
        #expect(fixturekit("verify", "--quiet", corpus.corpus).status == 0)
        // Its declaration is not checked then: an edit passes, as it did before.
        try corpus.writeConfig(stage: ["sql": "migrations/1.0.0-2.0.0.sql"]) { $0["connection"] = ["foreign_keys": true] }
        #expect(fixturekit("verify", "--quiet", corpus.corpus).status == 0)
        #expect(try corpus.migrate().passed)
        // Freezing a new version into it leaves it as it is.
        let stages: [[String: Any]] = [
            ["from": "1.0.0", "to": "2.0.0", "sql": "migrations/1.0.0-2.0.0.sql"],
            ["from": "2.0.0", "to": "3.0.0", "exec": ["true"]],
        ]
        try corpus.writeConfig(stage: [:]) { object in
            (object["current"], object["supported"], object["stages"]) = ("3.0.0", ["1.0.0", "2.0.0"], stages)
        }
        try corpus.make("3.0.0", schema: FoldersCorpus.schema2)
        #expect(try lines(corpus).contains("sums 3.0.0 " + FixtureKit.SHA256.hash(try corpus.folder.read("MigrationFixtures/3.0.0/SHA256SUMS")).hex))
        #expect(try !lines(corpus).contains { $0.hasPrefix("declaration ") })
        #expect(fixturekit("verify", "--quiet", corpus.corpus).status == 0)
        // `fixturekit lock` pins them, one line a stage.
        let before = try lines(corpus).count
        let lock = fixturekit("lock", corpus.corpus)
        #expect(lock.status == 0)
        #expect(lock.standardError.contains("\(corpus.corpus)/fixturekit.lock: added declaration 2.0.0 1.0.0 "))
        #expect(lock.standardError.contains("\(corpus.corpus)/fixturekit.lock: added declaration 3.0.0 2.0.0 "))
        #expect(try lines(corpus).count == before + 2)
        try corpus.writeConfig(stage: [:]) { object in
            (object["current"], object["supported"], object["stages"]) = ("3.0.0", ["1.0.0", "2.0.0"], stages)
            object["connection"] = ["foreign_keys": true]
        }
        #expect(fixturekit("verify", "--quiet", corpus.corpus).status == 1)
    }

    @Test func theExampleCorpusLockKeepsVerifying() throws {
        let corpus = repositoryRoot.appendingPathComponent("MigrationFixtures").path
        #expect(fixturekit("verify", "--quiet", corpus).status == 0)
    }
}
