import Foundation
import Testing
@testable import FixtureKitModels
@testable import FixtureKitTestSupport

/// Configuration errors are precise (line and column, the key and its place)
/// and total (every level); the published schema agrees with the parser.
@Suite struct CorpusConfigurationTests {
    static func parse(_ text: String) -> String? {
        do { _ = try CorpusConfiguration.parse(Array(text.utf8), path: "f.json"); return nil } catch { return error.description }
    }

    static let minimal = #"{"store": "App.sqlite", "current": "1.0.0"}"#

    @Test(arguments: [
        ("{\"store\": \"App.sqlite\",\n  \"current\": \"1.0.0\",\n}", "line 3, column 1: a trailing comma before \"}\""),
        ("{\"store\": \"App.sqlite\", \"current\": \"1.0.0\", \"supported\": [\"0.9.0\",]}", "line 1, column 67: a trailing comma before \"]\""),
        ("{\n  // the store\n  \"store\": \"App.sqlite\"}", "line 2, column 3: expected a key in quotes, found a comment (JSON has none)"),
        ("{\"store\": \"App.sqlite\" /* x */, \"current\": \"1.0.0\"}", "line 1, column 24: expected \",\" or \"}\", found a comment (JSON has none)"),
        ("{\"store\": \"App.sqlite\",\n\"store\": \"B.sqlite\", \"current\": \"1\"}", "line 2, column 1: key \"store\" given twice in one object"),
        ("{\"store\": \"App.sqlite\"\n \"current\": \"1.0.0\"}", "line 2, column 2: expected \",\" or \"}\", found \"\"\""),
        ("{\"store\": \"App.sqlite", "line 1, column 11: a string that never ends"),
        ("{\"store\": \"Ä\", \"current\": tru}", "line 1, column 27: expected a value, found \"t\""),
        ("{\"store\": 01}", "line 1, column 12: a number with a leading zero"),
        ("{} {}", "line 1, column 4: more after the end of the JSON value"),
        ("{\"store\": \"a\tb\"}", "line 1, column 13: a control character in a string (a line feed is written \\n)"),
        ("", "line 1, column 1: expected a value, found the end of the file"),
    ])
    func syntaxErrorsGiveLineAndColumn(text: String, message: String) {
        #expect(Self.parse(text) == "read configuration: f.json: " + message)
    }

    @Test func unknownKeysAreRefusedAtEveryLevel() {
        #expect(Self.parse(#"{"store": "App.sqlite", "current": "2.0.0", "supported": ["1.0.0"], "stages": [{"frm": "1.0.0", "to": "2.0.0", "sql": "a.sql"}]}"#)
            == #"read configuration: f.json: stages[0]: unknown key "frm" (one of connection, exec, folder, from, record, sql, swift, through, timeout, to, transaction)"#)
        #expect(Self.parse(#"{"store": "App.sqlite", "current": "1.0.0", "checks": [{"name": "n", "sql": "SELECT 1", "expect": 1}, {"name": "m", "sql": "SELECT 1", "expct": 1}]}"#)
            == #"read configuration: f.json: checks[1]: unknown key "expct" (one of expect, expectSQL, from, name, sql)"#)
        #expect(Self.parse(#"{"store": "App.sqlite", "current": "1.0.0", "stages": ["a.sql"]}"#) == "read configuration: f.json: stages[0] must be an object")
        #expect(Self.parse(#"{"store": "App.sqlite", "current": "1.0.0", "suported": []}"#) == #"read configuration: f.json: unknown key "suported""#)
        #expect(Self.parse(#"{"store": "App.sqlite", "current": "1.0.0", "keys": {"notes": []}}"#) == #"read configuration: f.json: keys["notes"] is empty: name the columns of the business key"#)
    }

    @Test func aFirstVersionNeedsNoStagesNorSupportedVersions() throws {
        #expect(Self.parse(Self.minimal) == nil)
        #expect(Self.parse(#"{"store": "App.sqlite", "current": "1.0.0", "supported": [], "stages": []}"#) == nil)
        let configuration = try CorpusConfiguration.parse(Array(Self.minimal.utf8), path: "f.json")
        #expect(configuration.supported.isEmpty && configuration.stages.isEmpty)
    }

    // MARK: - The published schema

    @Test func theSchemaTakesEveryConfigurationTheParserTakes() throws {
        let root = repositoryRoot
        expectMatchesSchema(root.appendingPathComponent("MigrationFixtures/fixturekit.json").path)
        let folder = try TemporaryFolder()
        for text in [
            Self.minimal,
            #"{"store": "App.sqlite", "current": "2.0.0", "supported": ["1.0.0"], "stages": [{"from": "1.0.0", "to": "2.0.0", "exec": ["m.sh", "x"], "timeout": 1.5}], "changes": {"notes.a": "derived", "notes.b": "dropped", "notes.c": "unordered", "t": "excluded"}, "keys": {"notes": ["uuid"]}, "counts": {"t": "changes"}, "userVersions": {"1.0.0": 1, "2.0.0": 2}, "versionQuery": "SELECT 1", "checks": [{"name": "n", "sql": "SELECT 1", "expect": [[1, "a"]]}], "$schema": "x"}"#,
        ] {
            let path = try folder.write("c.json", text)
            #expect(Self.parse(text) == nil)
            expectMatchesSchema(path)
        }
    }

    @Test func theSchemaRefusesWhatTheParserRefuses() throws {
        let schema = try JSONSchema.configuration()
        for text in [
            #"{"store": "App.sqlite"}"#,
            #"{"store": "a/b", "current": "1.0.0"}"#,
            #"{"store": "..", "current": "1.0.0"}"#,
            #"{"store": "App.sqlite", "current": "one"}"#,
            #"{"store": "App.sqlite", "current": "1.0.0", "suported": []}"#,
            #"{"store": "App.sqlite", "current": "2.0.0", "stages": [{"frm": "1.0.0", "to": "2.0.0", "sql": "a.sql"}]}"#,
            #"{"store": "App.sqlite", "current": "2.0.0", "stages": [{"from": "1.0.0", "to": "2.0.0"}]}"#,
            #"{"store": "App.sqlite", "current": "2.0.0", "stages": [{"from": "1.0.0", "to": "2.0.0", "sql": "a", "exec": ["b"]}]}"#,
            #"{"store": "App.sqlite", "current": "2.0.0", "stages": [{"from": "1.0.0", "to": "2.0.0", "exec": []}]}"#,
            #"{"store": "App.sqlite", "current": "1.0.0", "checks": [{"name": "n", "sql": "SELECT 1"}]}"#,
            #"{"store": "App.sqlite", "current": "1.0.0", "checks": [{"name": "n", "sql": "SELECT 1", "expect": 1, "x": 2}]}"#,
            #"{"store": "App.sqlite", "current": "1.0.0", "counts": {"t": "kept"}}"#,
            #"{"store": "App.sqlite", "current": "1.0.0", "changes": {"t.c": "renamed"}}"#,
            #"{"store": "App.sqlite", "current": "1.0.0", "keys": {"t": []}}"#,
            #"{"store": "App.sqlite", "current": "1.0.0", "supported": ["0.9.0", "0.9.0"]}"#,
            #"{"store": "App.sqlite", "current": "1.0.0", "userVersions": {"1.0.0": 1.5}}"#,
            #"{"store": "App.sqlite", "current": "2.0.0", "stages": [{"from": "1.0.0", "to": "2.0.0", "sql": "a", "timeout": 0}]}"#,
            #"{"store": "App.sqlite", "current": "2.0.0", "stages": [{"from": "1.0.0", "to": "2.0.0", "sql": "a", "timeout": 2592001}]}"#,
        ] {
            #expect(Self.parse(text) != nil, "the parser takes \(text)")
            let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
            #expect(!schema.faults(of: object).isEmpty, "the schema takes \(text)")
        }
    }
}
