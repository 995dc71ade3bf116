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
        let database = try childOfNoParent(folder)
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

    /// A body's own error type: a failure of COMMIT (a deferred foreign key) is
    /// thrown as the wrapping makes it, and the transaction is rolled back.
    struct Wrapped: Error, Equatable { var message: String }

    func childOfNoParent(_ folder: TemporaryFolder) throws -> Database {
        let database = try Database(path: folder.url("fk.sqlite"), options: .init(create: true))
        try database.execute("""
            PRAGMA foreign_keys = ON;
            CREATE TABLE parent (id INTEGER PRIMARY KEY);
            CREATE TABLE child (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
            """)
        return database
    }

    @Test func aWrappedTransactionThrowsTheBodysErrorOrTheWrappedFailureOfCommit() throws {
        let folder = try TemporaryFolder()
        let database = try childOfNoParent(folder)
        let wrap = { (error: SQLiteError) in Wrapped(message: "wrapped: \(error.message)") }
        let failure = try #require(throws: Wrapped.self) {
            try database.inTransaction(.immediate, wrapping: wrap) { () throws(Wrapped) in
                do throws(SQLiteError) { try database.execute("INSERT INTO child VALUES (1, 99)") } catch { throw wrap(error) }
            }
        }
        #expect(failure == Wrapped(message: "wrapped: FOREIGN KEY constraint failed"))
        #expect(database.isAutocommit)
        #expect(try database.scalar("SELECT count(*) FROM child") == .integer(0))
        #expect(throws: Wrapped(message: "body")) {
            try database.inTransaction(wrapping: wrap) { () throws(Wrapped) in
                do throws(SQLiteError) { try database.execute("INSERT INTO parent VALUES (1)") } catch { throw wrap(error) }
                throw Wrapped(message: "body")
            }
        }
        #expect(database.isAutocommit)
        #expect(try database.scalar("SELECT count(*) FROM parent") == .integer(0))
    }

    @Test(arguments: [Database.TransactionCompletion.commit, .rollback])
    func aTransactionEndsAsItsBodySays(completion: Database.TransactionCompletion) throws {
        let folder = try TemporaryFolder()
        let database = try store(folder, journal: "WAL")
        let ended = try database.transaction(.immediate, wrapping: { $0 }) { () throws(SQLiteError) in
            try database.execute("INSERT INTO t VALUES (2)")
            return completion
        }
        #expect(ended == completion)
        #expect(database.isAutocommit)
        #expect(try values(database) == (completion == .commit ? [1, 2] : [1]))
    }

    @Test func anAttemptThatFailsIsRolledBackAndReturnedAndTheTransactionGoesOn() throws {
        let folder = try TemporaryFolder()
        let database = try store(folder, journal: "DELETE")
        try database.inTransaction(.immediate) { () throws(SQLiteError) in
            let refused = try database.attemptInSavepoint("grow") { () throws(SQLiteError) in
                try database.execute("INSERT INTO t VALUES (2)")
                try database.execute("INSERT INTO t VALUES (1)")
            }
            guard case .failure(let error) = refused else { Issue.record("not refused"); return }
            #expect(error.code == 19)
            let kept = try database.attemptInSavepoint("grow") { () throws(SQLiteError) -> Int in
                try database.execute("INSERT INTO t VALUES (3)")
                return 3
            }
            #expect(try kept.get() == 3)
            #expect(!database.isAutocommit)
        }
        #expect(try values(database) == [1, 3])
        // Outside a transaction, a RELEASE that fails on a deferred foreign key is a refusal too.
        let fk = try childOfNoParent(folder)
        let refused = try fk.attemptInSavepoint("outer") { () throws(SQLiteError) in
            try fk.execute("INSERT INTO child VALUES (1, 99)")
        }
        guard case .failure(let error) = refused else { Issue.record("not refused"); return }
        #expect(error.message == "FOREIGN KEY constraint failed")
        #expect(fk.isAutocommit)
        #expect(try fk.scalar("SELECT count(*) FROM child") == .integer(0))
    }
}
