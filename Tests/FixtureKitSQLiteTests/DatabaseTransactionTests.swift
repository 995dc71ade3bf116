import Foundation
import Testing
@testable import FixtureKitSQLite
@testable import FixtureKitTestSupport

/// `inTransaction` and `inSavepoint`: the one way the library begins and ends
/// a transaction or a savepoint, in a rollback-journal store and a WAL store.
@Suite struct DatabaseTransactionTests {
    struct Stop: Error {}

    /// A store with `t(a)` holding 1, in `journal` mode.
    func store(_ folder: TemporaryFolder, journal: String) throws -> Database {
        let database = try Database(path: folder.url("t.sqlite"), options: .init(create: true))
        try database.execute("PRAGMA journal_mode = \(journal)")
        try database.execute("CREATE TABLE t (a INTEGER PRIMARY KEY); INSERT INTO t VALUES (1)")
        return database
    }

    func values(_ database: Database) throws(SQLiteError) -> [Int64] {
        try database.rows("SELECT a FROM t ORDER BY a").compactMap { $0[0].integer }
    }

    @Test(arguments: ["DELETE", "WAL"])
    func aTransactionCommitsWhatItsBodyDidAndRollsBackWhenItThrows(journal: String) throws {
        let folder = try TemporaryFolder()
        let database = try store(folder, journal: journal)
        for kind in [Database.TransactionKind.deferred, .immediate, .exclusive] {
            let value = try database.inTransaction(kind) { () throws(SQLiteError) -> Int in
                #expect(!database.isAutocommit)
                try database.execute("INSERT INTO t SELECT max(a) + 1 FROM t")
                return 7
            }
            #expect(value == 7)
            #expect(database.isAutocommit)
        }
        #expect(try values(database) == [1, 2, 3, 4])
        let error = try #require(throws: SQLiteError.self) {
            try database.inTransaction(.immediate) { () throws(SQLiteError) in
                try database.execute("INSERT INTO t VALUES (10)")
                try database.execute("INSERT INTO t VALUES (1)")
            }
        }
        #expect(error.code == 19)
        #expect(database.isAutocommit)
        #expect(try values(database) == [1, 2, 3, 4])
    }

    @Test(arguments: ["DELETE", "WAL"])
    func aSavepointReleasesOrRollsBackAsAskedAndAlwaysRollsBackWhenItThrows(journal: String) throws {
        let folder = try TemporaryFolder()
        let database = try store(folder, journal: journal)
        // Outside a transaction, a savepoint is one.
        try database.inSavepoint("kept") { () throws(SQLiteError) in
            #expect(!database.isAutocommit)
            try database.execute("INSERT INTO t VALUES (2)")
        }
        #expect(database.isAutocommit)
        let seen = try database.inSavepoint("probe", end: .rollback) { () throws(SQLiteError) -> [Int64] in
            try database.execute("INSERT INTO t VALUES (3); DELETE FROM t WHERE a = 1")
            return try values(database)
        }
        #expect(seen == [2, 3])
        #expect(database.isAutocommit)
        #expect(try values(database) == [1, 2])
        let error = try #require(throws: SQLiteError.self) {
            try database.inSavepoint("failing") { () throws(SQLiteError) in
                try database.execute("INSERT INTO t VALUES (4)")
                try database.execute("INSERT INTO t VALUES (1)")
            }
        }
        #expect(error.code == 19)
        #expect(database.isAutocommit)
        #expect(try values(database) == [1, 2])

        // Inside a transaction: the savepoints nest, and the transaction goes on after each.
        try database.inTransaction(.immediate) { () throws(SQLiteError) in
            try database.inSavepoint("outer") { () throws(SQLiteError) in
                try database.execute("INSERT INTO t VALUES (5)")
                _ = try? database.inSavepoint("inner") { () throws(SQLiteError) in
                    try database.execute("INSERT INTO t VALUES (6)")
                    try database.execute("INSERT INTO t VALUES (5)")
                }
                try database.inSavepoint("probe", end: .rollback) { () throws(SQLiteError) in
                    try database.execute("DELETE FROM t")
                }
                #expect(!database.isAutocommit)
            }
            #expect(!database.isAutocommit)
        }
        #expect(try values(database) == [1, 2, 5])
    }

    @Test func aReleaseThatFailsOnADeferredForeignKeyRollsTheSavepointBack() throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.url("fk.sqlite"), options: .init(create: true))
        try database.execute("""
            PRAGMA foreign_keys = ON;
            CREATE TABLE parent (id INTEGER PRIMARY KEY);
            CREATE TABLE child (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
            """)
        let error = try #require(throws: SQLiteError.self) {
            try database.inSavepoint("outer") { () throws(SQLiteError) in
                try database.execute("INSERT INTO child VALUES (1, 99)")
            }
        }
        #expect(error.code == 19)
        #expect(error.message == "FOREIGN KEY constraint failed")
        #expect(database.isAutocommit)
        #expect(try database.scalar("SELECT count(*) FROM child") == .integer(0))
    }

    @Test func theBodysOwnErrorIsTheOneThrown() throws {
        let database = try Database(path: ":memory:")
        #expect(throws: Stop.self) {
            do throws(SQLiteError) {
                try database.inSavepoint("s") { () throws(SQLiteError) in throw SQLiteError(code: 1, message: "body") }
            } catch {
                #expect(error.message == "body")
                throw Stop()
            }
        }
        #expect(database.isAutocommit)
    }
}
