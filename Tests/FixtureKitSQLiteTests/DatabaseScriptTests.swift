import Foundation
import Testing
@testable import FixtureKitSQLite
@testable import FixtureKitSystem

/// `eachStatement(in:)`: the one statement-splitting loop, under `executeScript`
/// and `results(of:)`, each naming a statement that does not compile its own way.
@Suite struct DatabaseScriptTests {
    func failure(_ body: () throws(SQLiteError) -> Void) -> SQLiteError? {
        do { try body() } catch { return error }
        return nil
    }

    static let script = "  -- a comment\n DELETE FROM t;\n\n INSERT INTO t VALUES ('x;y') ; /* c */ SELECT a, 2 AS b FROM t;  \n-- end"

    @Test func splitsAsSQLitesParserDoesSkippingBlankSpaceAndComments() throws {
        let database = try Database(path: ":memory:", options: .init(create: true))
        try database.execute("CREATE TABLE t (a); INSERT INTO t VALUES (1)")
        var texts: [String] = []
        try database.eachStatement(in: Self.script, failedPrepareNames: .statement) { (_, text) throws(SQLiteError) in texts.append(text) }
        #expect(texts == ["-- a comment\n DELETE FROM t;", "INSERT INTO t VALUES ('x;y') ;", "/* c */ SELECT a, 2 AS b FROM t;"])
        // Nothing ran: `body` did not step them.
        #expect(try database.scalar("SELECT count(*) FROM t") == .integer(1))
    }

    @Test func executeScriptAndResultsRunTheSameStatements() throws {
        let database = try Database(path: ":memory:", options: .init(create: true))
        var logged: [String] = []
        try database.executeScript("CREATE TABLE t (a); INSERT INTO t VALUES (1), (2);", willRun: { logged.append($0) })
        #expect(logged == ["CREATE TABLE t (a);", "INSERT INTO t VALUES (1), (2);"])
        let results = try database.results(of: "SELECT a FROM t ORDER BY a; UPDATE t SET a = a; SELECT 'z' AS c")
        #expect(results == [
            QueryResult(columns: ["a"], rows: [[.integer(1)], [.integer(2)]]),
            QueryResult(columns: ["c"], rows: [[.text("z")]]),
        ])
    }

    @Test func aStatementThatDoesNotCompileIsNamedAsEachCallerNamesIt() throws {
        let database = try Database(path: ":memory:", options: .init(create: true))
        let script = "CREATE TABLE t (a);\n  SELEC 1;\n SELECT 2;"
        // executeScript: the statement as far as SQLite parsed it, trimmed; what came before it ran.
        let script1 = try #require(failure { () throws(SQLiteError) in try database.executeScript(script) })
        #expect(script1.sql == "SELEC")
        #expect(script1.message == "near \"SELEC\": syntax error")
        #expect(try database.scalar("SELECT count(*) FROM sqlite_schema") == .integer(1))
        // results(of:): the rest of the script, from the statement on.
        let results = try #require(failure { () throws(SQLiteError) in _ = try database.results(of: "SELECT 1;\n  SELEC 1;\n SELECT 2;") })
        #expect(results.sql == "\n  SELEC 1;\n SELECT 2;")
        #expect(results.message == "near \"SELEC\": syntax error")
    }

    @Test func aStatementThatFailsWhenRunIsNamedAsEachCallerNamesIt() throws {
        let database = try Database(path: ":memory:", options: .init(create: true))
        try database.execute("CREATE TABLE t (a UNIQUE); INSERT INTO t VALUES (1)")
        let script = try #require(failure { () throws(SQLiteError) in try database.executeScript("  INSERT INTO t VALUES (1) ;  ") })
        #expect(script.sql == "INSERT INTO t VALUES (1) ;")
        #expect(script.resultCode == .constraint)
        // results(of:): SQLite's own text of the statement, as it was compiled (untrimmed).
        let results = try #require(failure { () throws(SQLiteError) in _ = try database.results(of: "SELECT 1;  INSERT INTO t VALUES (1) ;  ") })
        #expect(results.sql == "  INSERT INTO t VALUES (1) ;")
        #expect(results.resultCode == .constraint)
    }
}
