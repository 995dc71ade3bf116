import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// `fixturekit status` on a Notes corpus built in code, with one thing broken at a time.
@Suite struct StatusTests {
    /// The Notes corpus with every fixture packed beside its folder.
    static func packedCorpus() throws -> NotesCorpus {
        let notes = try NotesCorpus()
        for version in ["1.0.0", "2.0.0", "3.0.0"] {
            let packed = fixturekit("pack", "--quiet", notes.corpus + "/" + version)
            #expect(packed.status == 0, "\(packed.standardError)")
        }
        return notes
    }

    /// The `problem: ` lines of a run.
    static func problems(_ result: RunResult) -> [String] {
        result.standardError.split(separator: "\n").filter { $0.hasPrefix("problem: ") }.map { String($0.dropFirst("problem: ".count)) }
    }

    @Test func aHealthyCorpusShowsEveryVersionAndNoProblem() throws {
        let notes = try Self.packedCorpus()
        let result = fixturekit("status", "--config", notes.config)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.isEmpty)
        let lines = result.standardError.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let schema1 = try Manifest.decode(try notes.folder.read("MigrationFixtures/1.0.0/manifest.json")).schema.hash.prefix(12)
        let digests = try ["1.0.0", "2.0.0", "3.0.0"].map { version in
            String(decoding: try notes.folder.read("MigrationFixtures/App-\(version).tar.zst.sha256"), as: UTF8.self).trimmingCharacters(in: .newlines)
        }
        #expect(lines == [
            "status: \(notes.config): App.sqlite, current 3.0.0, 2 supported",
            "VERSION  SUPPORT    FIXTURE  SUMS  ARCHIVE  CAPTURE   ANONYMIZED  MODEL                ROWS",
            "1.0.0    supported  folder   OK    OK       snapshot  opted out   schema \(schema1)    42",
            "2.0.0    supported  folder   OK    OK       snapshot  opted out   user_version 2         29",
            "3.0.0    current    folder   OK    OK       snapshot  opted out   user_version 3          1",
            "largest tables:",
            "  1.0.0  notes 40, drafts 2",
            "  2.0.0  notes 25, folders 2, tags 2, and 1 more table",
            "  3.0.0  folders 1, notes 0, tags 0",
            "empty tables (no path from the version checks a value of theirs):",
            "  2.0.0  drafts",
            "  3.0.0  notes, tags",
            "archives:",
        ] + digests.map { "  " + $0 } + [
            "chains to 3.0.0:",
            "  1.0.0  1.0.0 -> 2.0.0 -> 3.0.0",
            "  2.0.0  2.0.0 -> 3.0.0",
            "  3.0.0  current",
            "status: 3 versions, no problems",
            "",
        ], "\(result.standardError)")
        // Status writes nothing: the corpus verifies as before.
        #expect(fixturekit("verify", notes.corpus).status == 0)
    }

    @Test func jsonParsesAndSaysEverything() throws {
        let notes = try Self.packedCorpus()
        try FileManager.default.removeItem(atPath: notes.corpus + "/1.0.0")
        let result = fixturekit("status", "--config", notes.config, "--json")
        #expect(result.status == 0, "\(result.standardError)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(object["ok"] as? Bool == true)
        #expect(object["current"] as? String == "3.0.0")
        #expect(object["store"] as? String == "App.sqlite")
        #expect((object["problems"] as? [Any])?.isEmpty == true)
        let versions = try #require(object["versions"] as? [[String: Any]])
        #expect(versions.map { $0["version"] as? String } == ["1.0.0", "2.0.0", "3.0.0"])
        #expect(versions.map { $0["support"] as? String } == ["supported", "supported", "current"])
        // 1.0.0 is only an archive: that counts as its fixture, and its manifest is read from it.
        #expect(versions[0]["fixture"] == nil)
        let archive = try #require(versions[0]["archive"] as? [String: Any])
        #expect(archive["verified"] as? Bool == true)
        #expect(archive["checksumFile"] as? String == "matches")
        #expect((archive["sha256"] as? String)?.count == 64)
        let facts = try #require(versions[0]["facts"] as? [String: Any])
        #expect(facts["captureMode"] as? String == "snapshot")
        #expect(facts["rows"] as? Int == 42)
        #expect((facts["tables"] as? [[String: Any]])?.first?["name"] as? String == "notes")
        let model = try #require(facts["model"] as? [String: Any])
        #expect(model["userVersion"] as? Int == 0)
        #expect((model["schemaHash"] as? String)?.count == 64)
        #expect(versions[0]["chain"] as? [String] == ["1.0.0", "2.0.0", "3.0.0"])
        // The tables a fixture leaves empty: no value of theirs is checked on a path from it.
        #expect(facts["emptyTables"] as? [String] == [])
        #expect((versions[1]["facts"] as? [String: Any])?["emptyTables"] as? [String] == ["drafts"])
        #expect((versions[2]["facts"] as? [String: Any])?["emptyTables"] as? [String] == ["notes", "tags"])
        let folder = try #require(versions[1]["fixture"] as? [String: Any])
        #expect(folder["verified"] as? Bool == true)
        #expect((versions[1]["archive"] as? [String: Any])?["sameAsFolder"] as? Bool == true)
        #expect(versions[2]["chain"] as? [String] == ["3.0.0"])
    }

    @Test func aSupportedVersionWithoutAFixtureIsNamed() throws {
        let notes = try NotesCorpus()
        try FileManager.default.removeItem(atPath: notes.corpus + "/1.0.0")
        let result = fixturekit("status", "--config", notes.config)
        #expect(result.status == 1)
        #expect(Self.problems(result) == [
            "supported version 1.0.0 has no fixture: neither \(notes.corpus)/1.0.0 nor \(notes.corpus)/App-1.0.0.tar.zst exists (hint: `fixturekit freeze`, or `capture` and `pack`)",
        ])
        #expect(result.standardError.contains("\n1.0.0    supported  missing  -     -        -"))
        #expect(result.standardError.hasSuffix("status: 3 versions, 1 problem\n"))
    }

    @Test func aFixtureNotListedInTheConfigurationIsNamed() throws {
        let notes = try NotesCorpus()
        try notes.make("4.0.0", schema: NotesCorpus.schema3 + "CREATE TABLE attachments (id INTEGER PRIMARY KEY);\nPRAGMA user_version = 4;")
        let result = fixturekit("status", "--config", notes.config)
        #expect(result.status == 1)
        #expect(Self.problems(result) == [
            "fixture 4.0.0 is not listed in the configuration: no path migrates it (add it to \"supported\", or remove \(notes.corpus)/4.0.0)",
        ])
        #expect(result.standardError.contains("\n4.0.0    unlisted   folder   OK    -        snapshot  opted out   user_version 4"))
    }

    @Test func anArchiveThatDiffersFromItsFolderIsNamed() throws {
        let notes = try Self.packedCorpus()
        // 2.0.0 captured again from another store after it was packed: both verify, they differ.
        try notes.make("2.0.1", schema: NotesCorpus.schema2) { try $0.execute("INSERT INTO tags (name) VALUES ('new')") }
        try FileManager.default.removeItem(atPath: notes.corpus + "/2.0.0")
        try FileManager.default.moveItem(atPath: notes.corpus + "/2.0.1", toPath: notes.corpus + "/2.0.0")
        let result = fixturekit("status", "--config", notes.config)
        #expect(result.status == 1)
        #expect(Self.problems(result) == [
            "archive App-2.0.0.tar.zst differs from its folder \(notes.corpus)/2.0.0: App.sqlite: other contents; manifest.json: other contents",
        ], "\(result.standardError)")
        #expect(result.standardError.contains("\n2.0.0    supported  folder   OK    differs  snapshot"))
    }

    @Test func aBrokenArchiveOrFixtureIsNamed() throws {
        let notes = try Self.packedCorpus()
        try notes.folder.write("MigrationFixtures/3.0.0/extra", "x")
        try notes.folder.write("MigrationFixtures/App-2.0.0.tar.zst.sha256", "\(String(repeating: "0", count: 64))  App-2.0.0.tar.zst\n")
        let result = fixturekit("status", "--config", notes.config)
        #expect(result.status == 1)
        let problems = Self.problems(result)
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.first?.hasPrefix("App-2.0.0.tar.zst.sha256 does not match the archive: it says 000000000000..., the archive's bytes hash to ") == true)
        #expect(problems.last == "fixture 3.0.0 does not verify: extra: unlisted (hint: `fixturekit verify \(notes.corpus)/3.0.0` lists every problem)")

        // An archive that is not one: exit 2, the rest of the table still shown.
        try notes.folder.write("MigrationFixtures/App-1.0.0.tar.zst", "not an archive")
        let unreadable = fixturekit("status", "--config", notes.config)
        #expect(unreadable.status == 2)
        #expect(Self.problems(unreadable).contains("archive App-1.0.0.tar.zst cannot be read: unrecognized archive format"), "\(unreadable.standardError)")
        #expect(unreadable.standardError.contains("\n1.0.0    supported  folder   OK      FAILED   snapshot"))
    }

    @Test func aGapInTheStageChainIsNamed() throws {
        let notes = try NotesCorpus()
        try notes.writeConfig { $0["stages"] = [["from": "1.0.0", "to": "2.0.0", "sql": "migrations/1.0.0-2.0.0.sql"]] }
        let result = fixturekit("status", "--config", notes.config)
        #expect(result.status == 1)
        #expect(Self.problems(result) == [
            "supported version 1.0.0 has no chain of stages to 3.0.0: no stage from 2.0.0 (the chain to 3.0.0 stops there)",
            "supported version 2.0.0 has no chain of stages to 3.0.0: no stage from 2.0.0 (the chain to 3.0.0 stops there)",
        ])
        #expect(result.standardError.contains("chains to 3.0.0:\n  1.0.0  none: no stage from 2.0.0 (the chain to 3.0.0 stops there)\n"))
    }

    @Test func twoVersionsWithTheSameModelIdentityAreNamed() throws {
        let notes = try NotesCorpus()
        // 2.1.0 changed the schema but kept user_version 2; 2.2.0 is 2.0.0's schema again.
        try notes.make("2.1.0", schema: NotesCorpus.schema2 + "\nCREATE TABLE attachments (id INTEGER PRIMARY KEY);")
        try notes.make("2.2.0", schema: NotesCorpus.schema2.replacingOccurrences(of: "PRAGMA user_version = 2;", with: "PRAGMA user_version = 22;"))
        try notes.make("2.3.0", schema: NotesCorpus.schema2.replacingOccurrences(of: "PRAGMA user_version = 2;", with: "PRAGMA user_version = 22;"))
        // 1.0.1: 1.0.0's schema, and neither sets user_version.
        try notes.make("1.0.1", schema: NotesCorpus.schema1)
        try notes.writeConfig { object in
            object["supported"] = ["1.0.0", "1.0.1", "2.0.0", "2.1.0", "2.2.0", "2.3.0"]
            object["stages"] = [
                ["from": "1.0.0", "to": "1.0.1", "sql": "migrations/1.0.0-2.0.0.sql"],
                ["from": "1.0.1", "to": "2.0.0", "sql": "migrations/1.0.0-2.0.0.sql"],
                ["from": "2.0.0", "to": "2.1.0", "exec": ["migrations/2.0.0-3.0.0.sh"]],
                ["from": "2.1.0", "to": "2.2.0", "exec": ["migrations/2.0.0-3.0.0.sh"]],
                ["from": "2.2.0", "to": "2.3.0", "exec": ["migrations/2.0.0-3.0.0.sh"]],
                ["from": "2.3.0", "to": "3.0.0", "exec": ["migrations/2.0.0-3.0.0.sh"]],
            ]
        }
        let result = fixturekit("status", "--config", notes.config)
        #expect(result.status == 1)
        let schema1 = try Manifest.decode(try notes.folder.read("MigrationFixtures/1.0.0/manifest.json")).schema.hash.prefix(12)
        #expect(Self.problems(result) == [
            "1.0.0 and 1.0.1 have the same model identity (schema \(schema1), user_version 0): someone forgot to bump user_version, or captured them from one build",
            "2.0.0 and 2.1.0 have the same model identity (user_version 2) but different schemas: someone modified a shipped schema, or forgot to bump user_version",
            "2.2.0 and 2.3.0 have the same model identity (user_version 22) and the same schema: someone forgot to bump user_version, or captured them from one build",
        ], "\(result.standardError)")
    }

    @Test func coreDataStoresAreComparedByTheirModelChecksum() throws {
        let folder = try TemporaryFolder()
        let corpus = folder.url("corpus")
        for (version, columns) in [("1.0.0", "ZTITLE VARCHAR"), ("1.1.0", "ZTITLE VARCHAR, ZBODY VARCHAR")] {
            let store = folder.url("live-\(version)/Model.sqlite")
            try FileManager.default.createDirectory(atPath: folder.url("live-\(version)"), withIntermediateDirectories: true)
            let database = try Database(path: store, options: .init(create: true))
            try database.execute("CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
            try database.execute("CREATE TABLE ZNOTE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, \(columns))")
            let metadata: [String: Any] = [
                "NSStoreModelVersionIdentifiers": ["Notes 1"],
                "NSStoreModelVersionChecksumKey": "bMpud663vz0bXQE24C6Rh4MvJ5jVnzsD2sI3njZkKbc=",
                "NSStoreModelVersionHashes": ["Note": Data(repeating: 0xAB, count: 32)],
            ]
            let plist = try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0)
            _ = try database.rows("INSERT INTO Z_METADATA VALUES (1, 'U', ?1)", [.blob(Array(plist))])
            try database.close()
            _ = try Capture.capture(store: store, version: version, corpus: corpus, mode: .snapshot, anonymize: .synthetic)
        }
        try folder.write("corpus/fixturekit.json", """
            {"store": "Model.sqlite", "current": "1.1.0", "supported": ["1.0.0"], "stages": [{"from": "1.0.0", "to": "1.1.0", "sql": "up.sql"}]}
            """)
        let result = fixturekit("status", "--config", folder.url("corpus/fixturekit.json"))
        #expect(result.status == 1)
        #expect(Self.problems(result) == [
            "1.0.0 and 1.1.0 have the same model identity (Core Data model \"Notes 1\" (checksum bMpud663vz0b)) but different schemas: someone modified a shipped schema, or forgot to bump the model version",
        ], "\(result.standardError)")
    }

    @Test func unreadableConfigurationAndUsage() throws {
        let folder = try TemporaryFolder()
        let missing = fixturekit("status", "--config", folder.url("fixturekit.json"))
        #expect(missing.status == 2)
        #expect(missing.standardError == "fixturekit: read configuration: \(folder.url("fixturekit.json")): no such file (hint: `fixturekit init` writes one; `fixturekit init STORE` also suggests anonymization rules)\n")
        let usage = fixturekit("status", "extra")
        #expect(usage.status == 64)
        #expect(usage.standardError.hasPrefix("Error: "))
    }
}
