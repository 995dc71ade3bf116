import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// V001 under `"platforms"`, and the features only the statement's program
/// shows (its bytecode, its query plan, the authorizer's UPDATE in an INSERT).
@Suite struct LintCompatibilityTests {
    static let schema = "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);"
    static let rows = ["1.0.0": "INSERT INTO users VALUES (1, 'a'), (2, NULL)", "1.1.0": ""]

    static func findings(_ stage: String, platforms: [String]? = nil, minimum: String? = nil) throws -> [String] {
        let corpus = try LintCorpus(schema: schema, rows: rows, stage: stage) { object in
            if let platforms { object["platforms"] = platforms }
            if let minimum { object["minimumSQLite"] = minimum }
        }
        return try corpus.lint().findings.map(\.text)
    }

    // MARK: - "platforms"

    static let newer = "SELECT iif(1, 2, 3);\nUPDATE users SET name = name RETURNING id;\n"

    @Test func v001UnderThePlatformsFloor() throws {
        let tail = #"; the oldest the app supports is 3.28.0 (Android 30, "platforms") (fixtures: 1.0.0, 1.1.0)"#
        #expect(try Self.findings(Self.newer, platforms: ["iOS 15.0", "Android 30"]) == [
            "V001 migrations/b.sql:1: iif() needs SQLite 3.32.0" + tail,
            "V001 migrations/b.sql:2: RETURNING needs SQLite 3.35.0" + tail,
        ])
        // Android 31 bundles 3.32: iif() is there, RETURNING is not.
        #expect(try Self.findings(Self.newer, platforms: ["iOS 15.0", "Android 31"]) == [
            #"V001 migrations/b.sql:2: RETURNING needs SQLite 3.35.0; the oldest the app supports is 3.32.0 (Android 31, "platforms") (fixtures: 1.0.0, 1.1.0)"#,
        ])
        // A lower "minimumSQLite" is the floor, and says so.
        #expect(try Self.findings(Self.newer, platforms: ["Android 31"], minimum: "3.30.0").first?.hasSuffix(#"is 3.30.0 ("minimumSQLite") (fixtures: 1.0.0, 1.1.0)"#) == true)
    }

    @Test func nothingAboveThePlatformsFloor() throws {
        #expect(try Self.findings(Self.newer, platforms: ["Android 34", "iOS 16.0"]).isEmpty)
    }

    // MARK: - What the program shows

    static let program = """
        CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER);
        INSERT INTO kv VALUES ('a', 1) ON CONFLICT(k) DO UPDATE SET v = v + 1;
        SELECT sum(id) OVER (ORDER BY id), total(id) OVER () FROM users;
        SELECT name FROM users ORDER BY name NULLS LAST;
        UPDATE users SET name = kv.k FROM kv WHERE kv.v = users.id;
        SELECT * FROM users RIGHT JOIN kv ON kv.v = users.id;
        SELECT * FROM users FULL JOIN kv ON kv.v = users.id;
        SELECT name FROM users ORDER BY name DESC NULLS FIRST;
        """

    @Test func featuresOnlyTheProgramShows() throws {
        let tail = #"; the oldest the app supports is 3.20.0 ("minimumSQLite") (fixtures: 1.0.0, 1.1.0)"#
        #expect(try Self.findings(Self.program, minimum: "3.20.0") == [
            "V001 migrations/b.sql:2: UPSERT (ON CONFLICT ... DO UPDATE) needs SQLite 3.24.0" + tail,
            "V001 migrations/b.sql:3: sum() as a window function (OVER) needs SQLite 3.25.0" + tail,
            "V001 migrations/b.sql:3: total() as a window function (OVER) needs SQLite 3.25.0" + tail,
            "V001 migrations/b.sql:4: NULLS FIRST or NULLS LAST needs SQLite 3.30.0" + tail,
            "V001 migrations/b.sql:5: UPDATE ... FROM needs SQLite 3.33.0" + tail,
            "V001 migrations/b.sql:6: RIGHT JOIN or FULL JOIN needs SQLite 3.39.0" + tail,
            "V001 migrations/b.sql:7: RIGHT JOIN or FULL JOIN needs SQLite 3.39.0" + tail,
            "V001 migrations/b.sql:8: NULLS FIRST or NULLS LAST needs SQLite 3.30.0" + tail,
        ])
        #expect(try Self.findings(Self.program, minimum: "3.39.0").isEmpty)
    }

    /// The older forms of the same work: nothing to report.
    @Test func theOlderFormsFindNothing() throws {
        let stage = """
            CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER);
            INSERT OR REPLACE INTO kv VALUES ('z', 1);
            INSERT INTO kv SELECT name, id FROM users WHERE name IS NOT NULL ORDER BY name;
            SELECT sum(id), total(id) FROM users GROUP BY name;
            SELECT name FROM users ORDER BY name DESC, id;
            SELECT name FROM users ORDER BY name NULLS FIRST;
            UPDATE users SET name = (SELECT k FROM kv WHERE kv.v = users.id) WHERE id IN (SELECT v FROM kv);
            SELECT * FROM users LEFT JOIN kv ON kv.v = users.id;
            SELECT * FROM users, kv WHERE kv.v = users.id;
            CREATE VIEW named AS SELECT users.id, users.name, kv.k FROM users JOIN kv ON kv.v = users.id;
            CREATE TRIGGER named_update INSTEAD OF UPDATE ON named BEGIN UPDATE users SET name = new.name WHERE id = old.id; END;
            UPDATE named SET name = k;
            """
        let found = try Self.findings(stage, minimum: "3.20.0")
        #expect(found.isEmpty, "\(found)")
    }
}
