import Foundation
import Testing
@testable import FixtureKitSQLite
@testable import FixtureKitTestSupport

/// The SQLite wrapper: errors, the online backup and the checkpoint APIs.
@Suite struct DatabaseTests {
    @Test func errorsCarryCodeMessageAndSQL() throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.url("t.sqlite"), options: .init(create: true))
        try database.execute("CREATE TABLE t (a INTEGER UNIQUE)")
        try database.execute("INSERT INTO t VALUES (1)")
        let error = try #require(throws: SQLiteError.self) { try database.execute("INSERT INTO t VALUES (1)") }
        #expect(error.code == 19)
        #expect(error.description == "SQLite error 19: UNIQUE constraint failed: t.a - while executing `INSERT INTO t VALUES (1)`")
        let syntax = try #require(throws: SQLiteError.self) { try database.prepare("SELEKT 1") }
        #expect(syntax.description == "SQLite error 1: near \"SELEKT\": syntax error - while executing `SELEKT 1`")
    }

    @Test func openingAMissingFileReadOnlyFails() throws {
        let folder = try TemporaryFolder()
        let error = try #require(throws: SQLiteError.self) { try Database(path: folder.url("absent.sqlite"), options: .init(readOnly: true)) }
        #expect(error.code == 14)
        #expect(!FileManager.default.fileExists(atPath: folder.url("absent.sqlite")))
    }

    @Test func statementsBindAndReadEveryStorageClass() throws {
        let database = try Database(path: ":memory:")
        let row = try database.rows("SELECT ?1, ?2, ?3, ?4, ?5", [.null, .integer(Int64.min), .real(0.5), .text("Zürich 📝"), .blob([0, 255])])
        #expect(row == [[.null, .integer(Int64.min), .real(0.5), .text("Zürich 📝"), .blob([0, 255])]])
        #expect(try database.scalar("SELECT 1 WHERE 0") == nil)
    }

    /// A WAL store whose last commits live only in `-wal`: a writer connection stays
    /// open with automatic checkpoints off, so the sidecars stay.
    func makeWALStore(in folder: TemporaryFolder) throws -> Database {
        let writer = try Database(path: folder.url("App.sqlite"), options: .init(create: true))
        try writer.execute("PRAGMA journal_mode = WAL")
        writer.disableAutomaticCheckpoint()
        try writer.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT)")
        for index in 0..<100 { try writer.execute("INSERT INTO notes (title) VALUES ('note \(index)')") }
        return writer
    }

    @Test func backupIncludesCommitsThatLiveOnlyInTheWAL() throws {
        let folder = try TemporaryFolder()
        let writer = try makeWALStore(in: folder)
        let walBefore = try folder.read("App.sqlite-wal")
        let mainBefore = try folder.read("App.sqlite")
        #expect(walBefore.count > 32)

        let destination = try Database(path: folder.url("copy.sqlite"), options: .init(create: true))
        try writer.backup(to: destination)
        #expect(try destination.scalar("SELECT count(*) FROM notes") == .integer(100))
        // The source's files are as they were.
        #expect(try folder.read("App.sqlite-wal") == walBefore)
        #expect(try folder.read("App.sqlite") == mainBefore)

        // Copying the main file alone loses the rows that live in the WAL.
        try folder.write("main-only.sqlite", mainBefore)
        let mainOnly = try Database(path: folder.url("main-only.sqlite"))
        #expect(try mainOnly.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'notes'") == .integer(0))
    }

    @Test func backupOfAStoreLockedByAnotherConnectionGivesUp() throws {
        let folder = try TemporaryFolder()
        let store = try Database(path: folder.url("App.sqlite"), options: .init(create: true))
        try store.execute("CREATE TABLE t (x); INSERT INTO t VALUES (1)")
        // A writer in the middle of its commit: an exclusive lock no reader passes.
        let holder = try Database(path: folder.url("App.sqlite"))
        try holder.execute("BEGIN EXCLUSIVE; INSERT INTO t VALUES (2)")
        let source = try Database(path: folder.url("App.sqlite"), options: .init(readOnly: true, busyTimeout: 0))
        let destination = try Database(path: folder.url("copy.sqlite"), options: .init(create: true))
        let error = #expect(throws: SQLiteError.self) { try source.backup(to: destination, timeout: .milliseconds(200)) }
        #expect(error?.code == 5) // SQLITE_BUSY
        // Once the lock is gone, the same backup goes through.
        try holder.execute("COMMIT")
        try source.backup(to: destination, timeout: .milliseconds(200))
        #expect(try destination.scalar("SELECT count(*) FROM t") == .integer(2))
    }

    @Test func truncateCheckpointMovesEveryFrame() throws {
        let folder = try TemporaryFolder()
        let writer = try makeWALStore(in: folder)
        let passive = try writer.checkpoint(.passive)
        #expect(passive.logFrames > 100)
        #expect(passive.framesLeft == 0)
        // A truncating checkpoint reports the log it leaves behind: empty.
        let truncate = try writer.checkpoint(.truncate)
        #expect(truncate == Database.CheckpointResult(logFrames: 0, checkpointedFrames: 0))
        #expect(try folder.read("App.sqlite-wal").isEmpty)
    }

    @Test func closeWithoutCheckpointKeepsTheWAL() throws {
        let folder = try TemporaryFolder()
        let writer = try makeWALStore(in: folder)
        try writer.setCheckpointOnClose(false)
        try writer.close()
        #expect(try folder.read("App.sqlite-wal").count > 32)
        #expect(Database.libraryVersion.hasPrefix("3."))
    }

    /// `fileURI` names the same file whatever its path holds: the characters a
    /// URI gives a meaning to (`?` `#` `%` `&` `=`), spaces, quotes, non-ASCII
    /// letters. A query added after it is SQLite's, not part of the name.
    @Test(arguments: ["a b.sqlite", "a#b.sqlite", "a?mode=rw.sqlite", "a%41b.sqlite", "a&vfs=x.sqlite", "l'été ✓.sqlite", "%2F.sqlite"])
    func aFileURINamesThePathItWasGiven(name: String) throws {
        let folder = try TemporaryFolder()
        let path = folder.url(name)
        let writer = try Database(path: path, options: .init(create: true))
        try writer.execute("CREATE TABLE t (v); INSERT INTO t VALUES (42)")
        try writer.close()
        let reader = try Database(path: Database.fileURI(path) + "?mode=ro", options: .init(readOnly: true, uri: true))
        #expect(try reader.scalar("SELECT v FROM t") == .integer(42))
        #expect(throws: SQLiteError.self) { try reader.execute("INSERT INTO t VALUES (1)") }
        try reader.close()
        // Attached read-only by the same URI, from a connection to another store.
        let other = try Database(path: folder.url("other.sqlite"), options: .init(create: true))
        _ = try other.rows("ATTACH DATABASE ?1 AS source", [.text(Database.fileURI(path) + "?mode=ro")])
        #expect(try other.scalar("SELECT v FROM source.t") == .integer(42))
        #expect(other.isReadOnly("source") == true)
        try other.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["other.sqlite", name].sorted())
    }
}
