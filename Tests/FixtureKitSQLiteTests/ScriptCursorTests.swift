import Foundation
import Testing
@testable import FixtureKitSQLite
@testable import FixtureKitSystem

/// `ScriptCursor`: statements where SQLite's parser puts them, what the
/// authorizer saw of each, and places in the script as a person counts them.
@Suite struct ScriptCursorTests {
    func statements(_ script: String, on database: Database) throws -> [ScriptStatement] {
        let cursor = ScriptCursor(database: database, script: script)
        var found: [ScriptStatement] = []
        while let next = try cursor.next() {
            try next.run()
            found.append(next)
        }
        return found
    }

    @Test func eachStatementKnowsWhatItIsFromTheAuthorizer() throws {
        let database = try Database(path: ":memory:", options: .init(create: true))
        let script = """
            PRAGMA foreign_keys = OFF;
            BEGIN;
            CREATE TABLE t (a, b);
            INSERT INTO t VALUES (1, 2);
            UPDATE t SET b = 3;
            SAVEPOINT s; RELEASE s;
            PRAGMA main.page_size;
            END;
            """
        let found = try statements(script, on: database)
        #expect(found.map(\.actions.transaction) == [nil, .begin, nil, nil, nil, nil, nil, nil, .commit])
        #expect(found[0].actions.pragma == StatementActions.Pragma(name: "foreign_keys", argument: "OFF", schema: nil))
        #expect(found[7].actions.pragma == StatementActions.Pragma(name: "page_size", argument: nil, schema: "main"))
        #expect(found[3].actions.inserts == ["t"])
        #expect(found[4].actions.updates == ["t"])
        // A trigger's writes are the trigger's, not the statement's.
        try database.execute("CREATE TABLE log (x); CREATE TRIGGER t_log AFTER INSERT ON t BEGIN INSERT INTO log VALUES (NEW.a); END")
        let insert = try statements("INSERT INTO t VALUES (5, 6)", on: database)
        #expect(insert.map(\.actions.inserts) == [["t"]])
        // What a DELETE or a DROP TABLE removes (not the schema table's row of it).
        #expect(try statements("CREATE TABLE u (a); DELETE FROM u; DROP TABLE u;", on: database).map(\.actions.removes) == [[], ["u"], ["u"]])
    }

    @Test(arguments: ["\n", "\r\n"])
    func aSyntaxErrorIsPlacedAtItsLineAndColumnInCharacters(lineEnd: String) throws {
        let database = try Database(path: ":memory:", options: .init(create: true))
        let lines = ["-- notes", "CREATE TABLE t (a);", "", "/* ünïcödé", "   comment */", "INSERT INTO t", "VALUES ('é', 2) ,, (3);"]
        let script = lines.joined(separator: lineEnd)
        let cursor = ScriptCursor(database: database, script: script)
        try #require(try cursor.next()).run()
        do {
            _ = try cursor.next()
            Issue.record("a syntax error compiled")
        } catch {
            #expect(!error.compiled)
            #expect(error.error.message == "near \",\": syntax error")
            let offset = try #require(error.errorOffset)
            #expect(cursor.position(of: offset) == (7, 18))
            // The statement as written: from its first token's line (the comment above
            // it left out) to the end of the line that went wrong.
            #expect(cursor.written(error.start, error.end, through: offset) == ["INSERT INTO t", "VALUES ('é', 2) ,, (3);"].joined(separator: lineEnd))
        }
    }

    @Test func aColumnCountsCharactersNotBytes() throws {
        let database = try Database(path: ":memory:", options: .init(create: true))
        let cursor = ScriptCursor(database: database, script: "SELECT 'ü',\n 'é', FROM")
        #expect(cursor.position(of: 0) == (1, 1))
        #expect(cursor.position(of: Array("SELECT 'ü',\n 'é', ".utf8).count) == (2, 7))
    }

    @Test func aStatementThatFailsWhenRunIsPlacedAtItsFirstTokensLine() throws {
        let database = try Database(path: ":memory:", options: .init(create: true))
        try database.execute("CREATE TABLE t (a UNIQUE); INSERT INTO t VALUES (1)")
        let script = "SELECT 1;\n\n-- a comment\n/* another\n */\n  INSERT INTO t\n  VALUES (1);"
        let cursor = ScriptCursor(database: database, script: script)
        try #require(try cursor.next()).run()
        let insert = try #require(try cursor.next())
        do {
            try insert.run()
            Issue.record("a duplicate was inserted")
        } catch {
            #expect(error.compiled)
            #expect(error.error.resultCode == .constraint)
            #expect(cursor.position(of: cursor.firstTokenLine(from: error.start, to: error.end)).line == 6)
            #expect(cursor.written(error.start, error.end) == "INSERT INTO t\n  VALUES (1);")
        }
    }
}
