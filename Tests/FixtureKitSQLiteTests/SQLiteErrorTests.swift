import Foundation
import Testing
@testable import FixtureKitSQLite
@testable import FixtureKitSystem

/// SQLite's failures as values: the result code a caller matches on, the
/// extended code, the message and the statement, from real failures.
@Suite struct SQLiteErrorTests {
    func failure(_ body: () throws(SQLiteError) -> Void) -> SQLiteError? {
        do { try body() } catch { return error }
        return nil
    }

    @Test func resultCodesAreSQLitesNumbers() {
        let codes: [(ResultCode, Int32)] = [
            (.ok, 0), (.error, 1), (.permission, 3), (.abort, 4), (.busy, 5), (.locked, 6), (.noMemory, 7), (.readOnly, 8),
            (.interrupt, 9), (.ioError, 10), (.corrupt, 11), (.full, 13), (.cantOpen, 14), (.constraint, 19), (.misuse, 21),
            (.notADatabase, 26),
        ]
        for (code, number) in codes { #expect(code.rawValue == number, "\(code)") }
        #expect(Set(codes.map(\.0)).count == codes.count)
        #expect(ResultCode.busy.description == "database is locked")
        #expect(ResultCode.notADatabase.description == "file is not a database")
        #expect(ResultCode(rawValue: 5) == .busy)
        #expect(SQLiteError.readOnlyRollback == 776)
    }

    @Test func aConstraintFailureKeepsItsCodesMessageAndStatement() throws {
        let database = try Database(path: ":memory:", options: .init(create: true))
        try database.execute("CREATE TABLE t (a UNIQUE)")
        try database.execute("INSERT INTO t VALUES (1)")
        let error = try #require(failure { () throws(SQLiteError) in try database.execute("INSERT INTO t VALUES (1)") })
        #expect(error.resultCode == .constraint)
        #expect(error.code == 19)
        #expect(error.extendedCode == 2067)
        #expect(error.message == "UNIQUE constraint failed: t.a")
        #expect(error.sql == "INSERT INTO t VALUES (1)")
        #expect(!error.isBusy)
        #expect(!error.isHotJournal)
        #expect(error.description == "SQLite error 19: UNIQUE constraint failed: t.a - while executing `INSERT INTO t VALUES (1)`")
    }

    @Test func aSyntaxErrorIsAGenericError() throws {
        let database = try Database(path: ":memory:", options: .init(create: true))
        let error = try #require(failure { () throws(SQLiteError) in _ = try database.prepare("SELEC 1") })
        #expect(error.resultCode == .error)
        #expect(error.message == "near \"SELEC\": syntax error")
    }

    @Test func aStoreHeldByAnotherConnectionIsBusy() throws {
        let folder = try ScratchFolder(prefix: "fixturekit-sqlite-test")
        let path = folder.path + "/App.sqlite"
        let holder = try Database(path: path, options: .init(create: true))
        try holder.execute("CREATE TABLE t (a); BEGIN EXCLUSIVE; INSERT INTO t VALUES (1)")
        let other = try Database(path: path, options: .init(busyTimeout: 0))
        let error = try #require(failure { () throws(SQLiteError) in try other.execute("INSERT INTO t VALUES (2)") })
        #expect(error.resultCode == .busy)
        #expect(error.isBusy)
        #expect(error.message == "database is locked")
        try holder.execute("COMMIT")
        try other.execute("INSERT INTO t VALUES (2)")
    }

    @Test func filesThatAreNotStores() throws {
        let folder = try ScratchFolder(prefix: "fixturekit-sqlite-test")
        let text = folder.path + "/notes.txt"
        try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: URL(fileURLWithPath: text))
        let database = try Database(path: text)
        let notADatabase = try #require(failure { () throws(SQLiteError) in _ = try database.scalar("SELECT count(*) FROM sqlite_schema") })
        #expect(notADatabase.resultCode == .notADatabase)
        #expect(notADatabase.extendedCode == 26)

        let missing = try #require(failure { () throws(SQLiteError) in _ = try Database(path: folder.path + "/missing.sqlite") })
        #expect(missing.resultCode == .cantOpen)
    }

    @Test func aReadOnlyConnectionCannotWrite() throws {
        let folder = try ScratchFolder(prefix: "fixturekit-sqlite-test")
        let path = folder.path + "/App.sqlite"
        try Database(path: path, options: .init(create: true)).execute("CREATE TABLE t (a)")
        let reader = try Database(path: path, options: .init(readOnly: true))
        let error = try #require(failure { () throws(SQLiteError) in try reader.execute("INSERT INTO t VALUES (1)") })
        #expect(error.resultCode == .readOnly)
        #expect(error.extendedCode == 8)
        #expect(!error.isHotJournal)
    }

    @Test func theCodeIsTheLowByteOfTheExtendedCode() {
        let hot = SQLiteError(code: SQLiteError.readOnlyRollback)
        #expect(hot.code == 8)
        #expect(hot.resultCode == .readOnly)
        #expect(hot.isHotJournal)
        #expect(SQLiteError(code: 6 | (1 << 8)).isBusy)
        #expect(SQLiteError(code: 5 | (2 << 8)).resultCode == .busy)
        #expect(SQLiteError(code: 11).message == "database disk image is malformed")
        #expect(SQLiteError(code: 11).description == "SQLite error 11: database disk image is malformed")
    }
}
