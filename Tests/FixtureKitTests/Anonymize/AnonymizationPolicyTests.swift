import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// Personal data is never frozen by accident, and an anonymized store looks
/// like the shipped one (a WAL store stays in WAL mode).
@Suite struct AnonymizationPolicyTests {
    static let environment = ["FIXTUREKIT_ANON_KEY": "a-test-key-that-is-long-enough-0123456789"]
    static let rules = #"{"tables": {"notes": {"title": {"strategy": "fake", "kind": "text"}}}}"#

    /// A live WAL store whose commits are all in its `-wal`.
    func liveStore(_ folder: TemporaryFolder) throws -> HeldWALStore {
        try FileManager.default.createDirectory(atPath: folder.url("live"), withIntermediateDirectories: true)
        return try HeldWALStore(in: folder.url("live"), notes: 20)
    }

    @Test func aCaptureIntoACorpusWithoutRulesIsRefused() throws {
        let folder = try TemporaryFolder()
        let store = try liveStore(folder)
        let hint = "(hint: name a rules file in \"anonymize\", or declare the store synthetic: --no-anonymize, or \"anonymize\": false for the whole corpus)"
        // A fresh folder: no fixturekit.json says anything.
        let fresh = fixturekit("capture", store.path, "--version", "1.0.0", "--corpus", folder.url("fresh"))
        #expect(fresh.status == 2)
        #expect(fresh.standardError == "fixturekit: capture: \(folder.url("fresh"))/fixturekit.json: no such file: nothing says how to anonymize the store, and it may hold personal data \(hint)\n")
        #expect(!FileManager.default.fileExists(atPath: folder.url("fresh")))
        // A configuration that names no rules.
        try folder.write("corpus/fixturekit.json", #"{"store": "App.sqlite", "current": "1.0.0", "supported": [], "stages": []}"#)
        let none = fixturekit("capture", store.path, "--version", "1.0.0", "--corpus", folder.url("corpus"))
        #expect(none.status == 2)
        #expect(none.standardError == "fixturekit: capture: \(folder.url("corpus"))/fixturekit.json: names no anonymization rules (\"anonymize\"), and the store may hold personal data \(hint)\n")
        let freeze = fixturekit("freeze", store.path, "--version", "1.0.0", "--config", folder.url("corpus/fixturekit.json"))
        // freeze says its own name, whichever step refused.
        #expect(freeze.status == 2 && freeze.standardError == none.standardError.replacingOccurrences(of: "fixturekit: capture: ", with: "fixturekit: freeze: "))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url("corpus")) == ["fixturekit.json"])
        // `true` is not a rules file.
        try folder.write("corpus/fixturekit.json", #"{"store": "App.sqlite", "current": "1.0.0", "supported": [], "stages": [], "anonymize": true}"#)
        let wrong = fixturekit("capture", store.path, "--version", "1.0.0", "--corpus", folder.url("corpus"))
        #expect(wrong.standardError == "fixturekit: capture: read configuration: \(folder.url("corpus"))/fixturekit.json: anonymize must be a rules file or false\n")
    }

    @Test func aStoreDeclaredSyntheticIsCapturedAndTheManifestSaysSo() throws {
        let folder = try TemporaryFolder()
        let store = try liveStore(folder)
        let corpus = folder.url("corpus")
        let optedOut = Manifest.Anonymization(mode: "opted-out")
        // --no-anonymize, into a folder without a configuration.
        let option = fixturekit("capture", store.path, "--version", "1.0.0", "--corpus", corpus, "--no-anonymize")
        #expect(option.status == 0)
        #expect(option.standardError.hasSuffix("\(corpus)/1.0.0: not anonymized (--no-anonymize): synthetic data, as the manifest records\n"))
        #expect(try Manifest.decode(try folder.read("corpus/1.0.0/manifest.json")).anonymization == optedOut)
        // "anonymize": false in fixturekit.json, for capture and freeze.
        try folder.write("corpus/fixturekit.json", #"{"store": "App.sqlite", "current": "1.2.0", "supported": ["1.0.0", "1.1.0"], "stages": [], "anonymize": false}"#)
        let configured = fixturekit("capture", store.path, "--version", "1.1.0", "--corpus", corpus)
        #expect(configured.status == 0)
        #expect(configured.standardError.contains("\n\(corpus)/1.1.0: not anonymized (\"anonymize\": false): synthetic data, as the manifest records\n"))
        #expect(try Manifest.decode(try folder.read("corpus/1.1.0/manifest.json")).anonymization == optedOut)
        let frozen = fixturekit(["freeze", store.path, "--version", "1.2.0", "--config", corpus + "/fixturekit.json"], environment: ["SOURCE_DATE_EPOCH": "0"])
        #expect(frozen.status == 0, "\(frozen.standardError)")
        #expect(try Manifest.decode(try folder.read("corpus/1.2.0/manifest.json")).anonymization == optedOut)

        // status shows each fixture's anonymization: rules and key check, opted out,
        // or none for a fixture whose manifest predates the rule.
        try folder.write("corpus/anonymize.json", Self.rules)
        try folder.write("corpus/fixturekit.json", #"{"store": "App.sqlite", "current": "1.2.0", "supported": ["1.0.0", "1.1.0"], "stages": [], "anonymize": "anonymize.json"}"#)
        #expect(fixturekit(["capture", store.path, "--version", "1.2.0", "--corpus", corpus, "--force"], environment: Self.environment).status == 0)
        var manifest = try Manifest.decode(try folder.read("corpus/1.0.0/manifest.json"))
        manifest.anonymization = nil
        try folder.write("corpus/1.0.0/manifest.json", manifest.rendered())
        #expect(fixturekit("sums", corpus + "/1.0.0").status == 0)
        let status = fixturekit("status", "--config", corpus + "/fixturekit.json", "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any])
        let labels = (object["versions"] as? [[String: Any]] ?? []).map { (($0["facts"] as? [String: Any])?["anonymization"] as? [String: Any])?["label"] as? String }
        let recorded = try Manifest.decode(try folder.read("corpus/1.2.0/manifest.json")).anonymization
        let rulesLabel = "rules \(recorded?.rules?.prefix(8) ?? "?"), key \(recorded?.keyCheck?.prefix(8) ?? "?")"
        #expect(labels == ["none", "opted out", rulesLabel])
        let text = fixturekit("status", "--config", corpus + "/fixturekit.json")
        let rows = text.standardError.split(separator: "\n").map(String.init)
        #expect(rows.contains { $0.hasPrefix("VERSION ") && $0.contains(" ANONYMIZED ") })
        #expect(rows.contains { $0.hasPrefix("1.0.0 ") && $0.contains(" none ") })
        #expect(rows.contains { $0.hasPrefix("1.1.0 ") && $0.contains(" opted out ") })
        #expect(rows.contains { $0.hasPrefix("1.2.0 ") && $0.contains(" \(rulesLabel) ") })
    }

    /// The anonymized copy of a WAL store is in WAL mode, one file without
    /// sidecars, and the migration matrix runs on it.
    @Test func aWALStoreStaysInWALModeAndMigrates() throws {
        let notes = try NotesCorpus()
        try notes.folder.write("MigrationFixtures/anonymize.json", #"{"tables": {"notes": {"body": {"strategy": "fake", "kind": "text"}}}}"#)
        try notes.writeConfig { $0["anonymize"] = "anonymize.json" }
        try FileManager.default.createDirectory(atPath: notes.folder.url("wal"), withIntermediateDirectories: true)
        let database = try Database(path: notes.folder.url("wal/App.sqlite"), options: .init(create: true))
        try database.execute("PRAGMA journal_mode = WAL")
        database.disableAutomaticCheckpoint()
        try database.setCheckpointOnClose(false)
        try database.execute(NotesCorpus.schema1)
        for index in 1...30 {
            try database.execute("INSERT INTO notes (uuid, title, body) VALUES ('K\(index)', 'Note \(index)', 'Private body number \(index) of a real person')")
        }
        try database.execute("UPDATE notes SET title = 'Groceries' WHERE uuid = 'K1'")
        #expect(FileManager.default.fileExists(atPath: notes.folder.url("wal/App.sqlite-wal")))

        let capture = fixturekit(["capture", notes.folder.url("wal/App.sqlite"), "--version", "1.0.0", "--corpus", notes.corpus, "--force"], environment: Self.environment)
        #expect(capture.status == 0, "\(capture.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: notes.corpus + "/1.0.0").sorted() == ["App.sqlite", "SHA256SUMS", "manifest.json"])
        let header = try notes.folder.read("MigrationFixtures/1.0.0/App.sqlite")
        #expect(header[18] == 2 && header[19] == 2)
        let manifest = try Manifest.decode(try notes.folder.read("MigrationFixtures/1.0.0/manifest.json"))
        #expect(manifest.sqlite.journalMode == "wal" && manifest.wal == nil && manifest.sidecars == [] && manifest.tables["notes"] == 30)
        #expect(manifest.anonymization?.mode == "rules")
        #expect(fixturekit("verify", "--deep", notes.corpus + "/1.0.0").status == 0)
        let migrate = fixturekit("migrate", "--config", notes.config)
        #expect(migrate.status == 0, "\(migrate.standardError)")
        #expect(migrate.standardError.contains("PASS  1.0.0 -> 2.0.0 -> 3.0.0"))

        // A store into --output: the same, and a rollback-journal store stays one.
        try FileManager.default.createDirectory(atPath: notes.folder.url("out"), withIntermediateDirectories: true)
        let walOutput = fixturekit(["anonymize", notes.folder.url("wal/App.sqlite"), "--rules", notes.corpus + "/anonymize.json", "-o", notes.folder.url("out/wal.sqlite")], environment: Self.environment)
        #expect(walOutput.status == 0)
        #expect(try notes.folder.read("out/wal.sqlite")[18...19] == [2, 2])
        let rollback = fixturekit(["anonymize", notes.corpus + "/2.0.0/App.sqlite", "--rules", notes.corpus + "/anonymize.json", "-o", notes.folder.url("out/rollback.sqlite")], environment: Self.environment)
        #expect(rollback.status == 0)
        #expect(try notes.folder.read("out/rollback.sqlite")[18...19] == [1, 1])
        #expect(try FileManager.default.contentsOfDirectory(atPath: notes.folder.url("out")).sorted() == ["rollback.sqlite", "wal.sqlite"])
        _ = database
    }
}
