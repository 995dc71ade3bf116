import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// App versions that share a schema version: a patch release that did not touch
/// the store is normal, when no stage lies between it and the release before.
@Suite struct SchemaVersionTests {
    static let schema4 = NotesCorpus.schema3.replacingOccurrences(of: "PRAGMA user_version = 3;", with: "CREATE TABLE archive (id INTEGER PRIMARY KEY);\nPRAGMA user_version = 4;")
    static let stage3to4 = "CREATE TABLE archive (id INTEGER PRIMARY KEY);\nPRAGMA user_version = 4;\n"

    /// The Notes corpus with 3.0.1, a patch release of 3.0.0's schema and
    /// user_version; its store holds `folder` as its one folder's name.
    static func withPatchRelease(folder: String = "Inbox") throws -> NotesCorpus {
        let notes = try NotesCorpus()
        try notes.make("3.0.1", schema: NotesCorpus.schema3) { try $0.execute("INSERT INTO folders VALUES (1, '\(folder)')") }
        return notes
    }

    @Test func aPatchReleaseIsTheCurrentVersion() throws {
        let notes = try Self.withPatchRelease()
        try notes.writeConfig { object in
            object["current"] = "3.0.1"
            object["supported"] = ["1.0.0", "2.0.0", "3.0.0"]
            object["userVersions"] = ["1.0.0": 1, "2.0.0": 2, "3.0.0": 3, "3.0.1": 3]
            // The checks are of notes, which 3.0.0's fresh store has none of.
            object["checks"] = [["name": "one folder at least", "sql": "SELECT count(*) > 0 FROM folders", "expect": 1]]
        }
        // No stage from 3.0.0, none to 3.0.1: 3.0.0 already is 3.0.1's schema.
        let report = try MigrationRunner.runMatrix(config: notes.config)
        #expect(report.paths.map(\.id) == ["1.0.0 -> 2.0.0 -> 3.0.0", "2.0.0 -> 3.0.0", "3.0.0 -> 3.0.1", "1.0.0 -> 2.0.0"])
        for path in report.paths { #expect(path.passed, "\(path.id): \(String(describing: path.firstFailure))") }
        #expect(report.paths.first { $0.source == "3.0.0" }?.checks.contains { $0.name == "schema matches 3.0.1" && $0.passed } == true)
        // status: the same model identity and schema, and no stage between them: no problem.
        let status = fixturekit("status", "--config", notes.config)
        #expect(status.status == 0, "\(status.standardError)")
        // upgrade: a store at user_version 3 is at the current version.
        let store = try NotesCorpus.liveStore(in: notes.folder.url("live"), mode: .rollback, userVersion: 3)
        let upgrade = fixturekit("upgrade", store, "--config", notes.config)
        #expect(upgrade.standardError.contains("upgrade: \(store): already at 3.0.1: nothing to do"), "\(upgrade.standardError)")
    }

    @Test func aSharedUserVersionWithAStageBetweenIsStillRefused() throws {
        let notes = try Self.withPatchRelease()
        try notes.writeConfig { object in
            object["current"] = "3.0.1"
            object["supported"] = ["2.0.0", "3.0.0"]
            object["userVersions"] = ["2.0.0": 2, "3.0.0": 3, "3.0.1": 3]
            object["stages"] = [
                ["from": "2.0.0", "to": "3.0.0", "exec": ["migrations/2.0.0-3.0.0.sh"]],
                ["from": "3.0.0", "to": "3.0.1", "sql": "migrations/1.0.0-2.0.0.sql"],
            ]
        }
        let result = fixturekit("migrate", "--config", notes.config)
        #expect(result.status == 2)
        #expect(result.standardError == "fixturekit: read configuration: \(notes.config): userVersions gives 3.0.0 and 3.0.1 the same user_version 3, but the stage 3.0.0 -> 3.0.1 lies between them: a store's version could not be told\n")
        // And status still names the same identity when a stage lies between.
        try notes.writeConfig { object in
            object["current"] = "3.0.1"
            object["supported"] = ["2.0.0", "3.0.0"]
            object["stages"] = [
                ["from": "2.0.0", "to": "3.0.0", "exec": ["migrations/2.0.0-3.0.0.sh"]],
                ["from": "3.0.0", "to": "3.0.1", "sql": "migrations/1.0.0-2.0.0.sql"],
            ]
        }
        #expect(fixturekit("status", "--config", notes.config).standardError.contains("problem: 3.0.0 and 3.0.1 have the same model identity (user_version 3) and the same schema: someone forgot to bump user_version, or captured them from one build\n"))
    }

    /// 3.0.0 and 3.0.1 both migrate to 4.0.0 through the stage written for 3.0.0.
    static func toVersion4(_ notes: NotesCorpus) throws {
        try notes.make("4.0.0", schema: schema4) { try $0.execute("INSERT INTO folders VALUES (1, 'Inbox')") }
        try notes.folder.write("MigrationFixtures/migrations/3.0.0-4.0.0.sql", stage3to4)
        try notes.writeConfig { object in
            object["current"] = "4.0.0"
            object["supported"] = ["2.0.0", "3.0.0", "3.0.1"]
            object["stages"] = [
                ["from": "2.0.0", "to": "3.0.0", "exec": ["migrations/2.0.0-3.0.0.sh"]],
                ["from": "3.0.0", "to": "4.0.0", "sql": "migrations/3.0.0-4.0.0.sql"],
            ]
            object["counts"] = ["drafts": "dropped", "folders": "changes"]
            object["checks"] = [["name": "one folder at least", "sql": "SELECT count(*) > 0 FROM folders", "expect": 1]]
        }
    }

    @Test func aPatchReleaseOfTheSameContentRunsOnceAndIsReported() throws {
        let notes = try Self.withPatchRelease()
        try Self.toVersion4(notes)
        #expect(try ContentHash.of(notes.corpus + "/3.0.1") == (try ContentHash.of(notes.corpus + "/3.0.0")))
        let result = fixturekit("migrate", "--config", notes.config)
        #expect(result.status == 0, "\(result.standardError)")
        let report = try MigrationRunner.runMatrix(config: notes.config)
        #expect(report.paths.map(\.id) == ["2.0.0 -> 3.0.0 -> 4.0.0", "3.0.0 -> 4.0.0", "2.0.0 -> 3.0.0"])
        #expect(report.paths[1].alsoFor == ["3.0.1"])
        #expect(result.standardError.contains("PASS  3.0.0 -> 4.0.0 (also 3.0.1)"), "\(result.standardError)")
    }

    @Test func aPatchReleaseOfOtherContentRunsOnItsOwnThroughTheSameStage() throws {
        let notes = try Self.withPatchRelease(folder: "Boîte de réception")
        try Self.toVersion4(notes)
        let report = try MigrationRunner.runMatrix(config: notes.config)
        #expect(report.paths.map(\.id) == ["2.0.0 -> 3.0.0 -> 4.0.0", "3.0.0 -> 4.0.0", "3.0.1 -> 4.0.0", "2.0.0 -> 3.0.0"])
        let patch = try #require(report.paths.first { $0.source == "3.0.1" })
        #expect(patch.passed, "\(String(describing: patch.firstFailure))")
        #expect(patch.checks.contains { $0.name == "stage 3.0.0 -> 4.0.0" && $0.passed })
        #expect(patch.alsoFor == nil)
    }

    @Test func withoutEvidenceNoVersionIsTakenForAnother() throws {
        // 2.0.0 and 3.0.0 have different schemas and user_versions: a missing
        // stage is a gap, not a patch release.
        let notes = try NotesCorpus()
        try notes.writeConfig { $0["stages"] = [["from": "1.0.0", "to": "2.0.0", "sql": "migrations/1.0.0-2.0.0.sql"]] }
        let report = try MigrationRunner.runMatrix(config: notes.config)
        #expect(report.paths.first { $0.source == "2.0.0" }?.firstFailure?.message == "no stage from 2.0.0 (the chain to 3.0.0 stops there)")
    }
}
