import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// Every command that reads the configuration reports its faults the same way.
@Suite struct ConfigurationTests {
    @Test func aMissingRulesFileIsReportedByEveryCommandThatReadsTheConfiguration() throws {
        let corpus = try NotesCorpus()
        try corpus.writeConfig { $0["anonymize"] = "rules.json" }
        let expected = "read configuration: \(corpus.config): \"anonymize\": \(corpus.corpus)/rules.json: no such file or directory"
        let live = corpus.folder.url("live-1.0.0/App.sqlite")
        for arguments in [
            ["migrate", "--config", corpus.config],
            ["status", "--config", corpus.config],
            ["upgrade", live, "--config", corpus.config],
            ["freeze", live, "--version", "1.0.1", "--config", corpus.config],
        ] {
            let result = fixturekit(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.standardError.contains(expected), "\(arguments): \(result.standardError)")
        }
        let capture = fixturekit("capture", live, "--version", "1.0.1", "--corpus", corpus.corpus)
        #expect(capture.status == 2)
        #expect(capture.standardError.contains(expected), "\(capture.standardError)")
    }

    @Test func namesNoFixtureHasAreReported() throws {
        let corpus = try NotesCorpus()
        try corpus.writeConfig {
            $0["counts"] = ["drafts": "dropped", "folder": "changes"]
            $0["keys"] = ["notes": ["uuid"], "note": ["uuid"]]
            $0["changes"] = ["notes.legacy": "dropped", "notez.body": "derived"]
        }
        let migrate = fixturekit("migrate", "--config", corpus.config)
        #expect(migrate.status == 2)
        #expect(migrate.standardError == "fixturekit: read configuration: \(corpus.config): counts: \"folder\" names a table no fixture has (and 2 more) (hint: the fixtures' tables are drafts, folders, notes, tags)\n")
        let status = fixturekit("status", "--config", corpus.config)
        #expect(status.status == 1)
        for line in ["problem: configuration: counts: \"folder\" names a table no fixture has",
                     "problem: configuration: keys: \"note\" names a table no fixture has",
                     "problem: configuration: changes: \"notez.body\" names a table no fixture has"] {
            #expect(status.standardError.contains(line + "\n"), "\(status.standardError)")
        }
    }

    @Test func aMissingConfigurationSaysHowToMakeOne() throws {
        let folder = try TemporaryFolder()
        let store = try HeldWALStore(in: folder.path)
        let freeze = fixturekit("freeze", store.path, "--version", "1.0.0", "--corpus", folder.url("corpus"))
        #expect(freeze.status == 2)
        #expect(freeze.standardError == "fixturekit: freeze: read configuration: \(folder.url("corpus"))/fixturekit.json: no such file (hint: `fixturekit init` writes one; `fixturekit init STORE` also suggests anonymization rules)\n")
    }
}
