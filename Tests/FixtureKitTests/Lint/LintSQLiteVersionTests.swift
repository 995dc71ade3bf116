import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// V001: what a stage needs of SQLite that is newer than `minimumSQLite`,
/// learnt from SQLite's reports (the authorizer's functions, a writing
/// statement's columns, the schema after it), each at its line.
@Suite struct LintSQLiteVersionTests {
    static let schema = "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);"
    static let rows = ["1.0.0": "INSERT INTO users VALUES (1, 'a')", "1.1.0": ""]
    static let stage = """
        SELECT 1;
        CREATE TABLE t (a INTEGER, b INTEGER GENERATED ALWAYS AS (a * 2));
        UPDATE users SET name = name RETURNING id;
        ALTER TABLE users RENAME COLUMN name TO full_name;
        SELECT unixepoch('now'), '{"a": 1}' ->> '$.a', row_number() OVER () FROM users;
        ALTER TABLE users DROP COLUMN full_name;
        CREATE TABLE s (a INTEGER) STRICT;
        SELECT iif(1, 2, 3), sqrt(4);
        """

    static func findings(minimum: String?) throws -> [String] {
        let corpus = try LintCorpus(schema: schema, rows: rows, stage: stage) { object in
            if let minimum { object["minimumSQLite"] = minimum }
            object["changes"] = ["users.name": "dropped", "users.full_name": "dropped"]
        }
        return try corpus.lint().findings.filter { $0.rule == "V001" }.map(\.text)
    }

    @Test func everyFeatureNewerThanTheMinimumAtItsLine() throws {
        let tail = "; the oldest the app supports is 3.24.0 (\"minimumSQLite\") (fixtures: 1.0.0, 1.1.0)"
        let found = try Self.findings(minimum: "3.24.0")
        #expect(found == [
            "V001 migrations/b.sql:2: generated columns needs SQLite 3.31.0" + tail,
            "V001 migrations/b.sql:3: RETURNING needs SQLite 3.35.0" + tail,
            "V001 migrations/b.sql:4: ALTER TABLE ... RENAME COLUMN needs SQLite 3.25.0" + tail,
            "V001 migrations/b.sql:5: row_number() needs SQLite 3.25.0" + tail,
            "V001 migrations/b.sql:5: the ->> operator needs SQLite 3.38.0" + tail,
            "V001 migrations/b.sql:5: unixepoch() needs SQLite 3.38.0" + tail,
            "V001 migrations/b.sql:6: ALTER TABLE ... DROP COLUMN needs SQLite 3.35.0" + tail,
            "V001 migrations/b.sql:7: STRICT tables needs SQLite 3.37.0" + tail,
            "V001 migrations/b.sql:8: iif() needs SQLite 3.32.0" + tail,
            "V001 migrations/b.sql:8: sqrt() needs SQLite 3.35.0" + tail,
        ])
    }

    @Test func onlyWhatIsNewerThanTheMinimum() throws {
        let tail = "; the oldest the app supports is 3.37.0 (\"minimumSQLite\") (fixtures: 1.0.0, 1.1.0)"
        #expect(try Self.findings(minimum: "3.37.0") == [
            "V001 migrations/b.sql:5: the ->> operator needs SQLite 3.38.0" + tail,
            "V001 migrations/b.sql:5: unixepoch() needs SQLite 3.38.0" + tail,
        ])
    }

    @Test func nothingWithoutAMinimumOrWithARecentOne() throws {
        #expect(try Self.findings(minimum: nil).isEmpty)
        #expect(try Self.findings(minimum: "3.38.0").isEmpty)
    }

    @Test(arguments: ["3.32", "three", "3.32.0-beta", ""])
    func aMinimumThatIsNotAVersion(minimum: String) throws {
        let text = #"{"store": "App.sqlite", "current": "1.0.0", "minimumSQLite": "\#(minimum)"}"#
        #expect(throws: FormatError.self) { try CorpusConfiguration.parse(Array(text.utf8), path: "c/fixturekit.json") }
    }
}
