// A client of the library: an app's test target that runs its own migration
// code over the whole matrix, with the public API only (no @testable).
import Foundation
import FixtureKit
import Testing

/// The app's migration code, as it would run on a device: it opens the store
/// itself, with the settings the stage declares, and migrates it.
private func appMigrator(_ context: SwiftStage.Context) throws {
    let database = try Database(path: context.storePath)
    defer { try? database.close() }
    try context.connection.apply(to: database)
    try database.execute("""
        BEGIN;
        ALTER TABLE contacts ADD COLUMN starred INTEGER NOT NULL DEFAULT 0;
        UPDATE contacts SET starred = 1 WHERE name LIKE 'A%';
        PRAGMA user_version = 2;
        COMMIT;
        """)
}

@Suite struct SwiftStageClientTests {
    /// A corpus of two versions, each frozen from a store its build made.
    func corpus(in folder: String) throws -> String {
        let corpus = folder + "/MigrationFixtures"
        for (version, schema) in [
            ("1.0.0", "CREATE TABLE contacts (id INTEGER PRIMARY KEY, name TEXT NOT NULL); PRAGMA user_version = 1;"),
            ("2.0.0", "CREATE TABLE contacts (id INTEGER PRIMARY KEY, name TEXT NOT NULL, starred INTEGER NOT NULL DEFAULT 0); PRAGMA user_version = 2;"),
        ] {
            let live = folder + "/build-" + version
            try FileManager.default.createDirectory(atPath: live, withIntermediateDirectories: true)
            let database = try Database(path: live + "/App.sqlite", options: .init(create: true))
            try database.execute(schema)
            if version == "1.0.0" { try database.execute("INSERT INTO contacts (name) VALUES ('Ada'), ('Grace'), ('Alan')") }
            try database.close()
            _ = try Capture.capture(store: live + "/App.sqlite", version: version, corpus: corpus, mode: .snapshot, anonymize: CaptureAnonymization(optOut: true))
        }
        let configuration = """
            {"store": "App.sqlite", "current": "2.0.0", "supported": ["1.0.0"], "anonymize": false,
             "connection": {"foreign_keys": true},
             "stages": [{"from": "1.0.0", "to": "2.0.0", "swift": "AppMigrator"}],
             "checks": [{"name": "A-names starred", "sql": "SELECT count(*) FROM contacts WHERE starred = 1", "expect": 2}]}
            """
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: corpus + "/fixturekit.json"))
        return corpus + "/fixturekit.json"
    }

    @Test func anAppsOwnMigrationCodeRunsTheMatrixWithEveryCheck() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fixturekit-client-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let config = try corpus(in: folder)
        let report = try MigrationRunner.runMatrix(config: config, swiftStages: ["AppMigrator": SwiftStage(appMigrator)])
        #expect(report.passed, "\(report.paths.flatMap(\.checks).filter { !$0.passed })")
        let path = try #require(report.paths.first)
        #expect(path.checks.map(\.name) == [
            "fixture 1.0.0 verifies", "stage 1.0.0 -> 2.0.0", "integrity_check", "foreign_key_check", "user_version",
            "schema matches 2.0.0", "row counts", "data preserved", "A-names starred",
        ])
        // The closure was given the declared settings, and the report says which.
        #expect(path.checks[1].connection?.foreignKeys == true)

        // Its failures are the matrix' failures: a migration that forgets the column.
        let forgetful = SwiftStage { context in
            let database = try Database(path: context.storePath)
            try database.execute("PRAGMA user_version = 2")
            try database.close()
        }
        let failed = try MigrationRunner.runMatrix(config: config, swiftStages: ["AppMigrator": forgetful])
        #expect(failed.paths.first?.checks.first { !$0.passed }?.name == "schema matches 2.0.0")
        // A stage that throws fails with what it threw.
        let throwing = SwiftStage { _ in throw CocoaError(.fileNoSuchFile) }
        let thrown = try MigrationRunner.runMatrix(config: config, swiftStages: ["AppMigrator": throwing])
        #expect(thrown.paths.first?.checks[1].passed == false)
        // The tool, which has no closure, says where the stage runs.
        let none = try MigrationRunner.runMatrix(config: config)
        #expect(none.paths.first?.checks[1].message == #""swift": "AppMigrator" is a Swift stage: it runs in the app's own tests, which give its code to MigrationRunner (swiftStages:); the fixturekit tool cannot run it"#)
    }
}
