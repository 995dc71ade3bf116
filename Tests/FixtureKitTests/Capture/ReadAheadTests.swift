import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitSQLite
@testable import FixtureKitTestSupport

/// A store's main file, read through ``CaptureVFS`` as `capture` and `hash`
/// read it (`fixturekit_source`), is read 64 KiB ahead (``ReadAhead``). An app
/// that writes the store between two of the reader's transactions (and
/// checkpoints) changes pages the reader read ahead: the next transaction must
/// see the store as it is then, never a page as it was.
@Suite struct ReadAheadTests {
    enum Journal: String, CaseIterable { case wal, delete }

    /// The first letter of every value, weighted by its row, and the lengths.
    static let digest = "SELECT sum(unicode(v) * id), sum(length(v)) FROM t"

    @Test(arguments: Journal.allCases, [512, 4096])
    func aStoreAnAppWritesBetweenTwoReadsIsReadAsItIsThen(journal: Journal, pageSize: Int) throws {
        let folder = try TemporaryFolder()
        let path = folder.url("App.sqlite")
        let app = try Database(path: path, options: .init(create: true))
        try app.execute("PRAGMA page_size = \(pageSize); PRAGMA journal_mode = \(journal.rawValue)")
        // `t`, then `u`, whose few pages follow t's at the end of the file: a
        // scan of `t` reads them ahead.
        try app.execute("""
            CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) INSERT INTO t SELECT i, printf('%.100c', 'a') FROM n;
            CREATE TABLE u (id INTEGER PRIMARY KEY, v TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20) INSERT INTO u SELECT i, 'a' FROM n
            """)
        if journal == .wal { try app.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        try CaptureVFS.register()
        let reader = try Database(path: CaptureVFS.uri(path, [("mode", "ro"), ("fixturekit_source", "0")]), options: .init(readOnly: true, uri: true))
        let small = "SELECT group_concat(v, '') FROM u"
        var digests: Set<[SQLiteValue?]> = []
        for round in 1...12 {
            // Rows of both tables change in place; a checkpoint writes them into
            // the main file and empties the -wal, so that the reader reads them there.
            try app.execute("UPDATE t SET v = printf('%.100c', char(97 + \(round) % 26)) WHERE id % 3 = \(round % 3); UPDATE u SET v = char(97 + \(round) % 26) WHERE id % 2 = \(round % 2)")
            if journal == .wal { try app.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
            // `u` first: its pages are those the last round's scan of `t` read ahead.
            #expect(try reader.rows(small) == app.rows(small), "round \(round)")
            let expected = try app.rows(Self.digest)
            #expect(try reader.rows(Self.digest) == expected, "round \(round)")
            digests.insert(expected.first ?? [])
        }
        // The rounds did change what is read.
        #expect(digests.count == 12)
        try reader.close()
    }

    /// An app that checkpoints while the reader is half-way through a scan:
    /// the checkpoint copies into the main file pages whose older bytes the
    /// reader may hold read ahead, but only pages the reader's snapshot takes
    /// from the `-wal`, and the app's later rewrite stays in the `-wal`. The
    /// whole scan sees the store as it was when it began.
    @Test(arguments: [512, 4096])
    func aCheckpointDuringAScanLeavesItTheStoreAsItBegan(pageSize: Int) throws {
        let folder = try TemporaryFolder()
        let path = folder.url("App.sqlite")
        let app = try Database(path: path, options: .init(create: true))
        try app.execute("PRAGMA page_size = \(pageSize); PRAGMA journal_mode = wal")
        try app.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) INSERT INTO t SELECT i, printf('%.100c', 'a') FROM n")
        try app.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        // A third of the rows rewritten, in the -wal only.
        try app.execute("UPDATE t SET v = printf('%.100c', 'c') WHERE id % 3 = 0")
        try CaptureVFS.register()
        let reader = try Database(path: CaptureVFS.uri(path, [("mode", "ro"), ("fixturekit_source", "0")]), options: .init(readOnly: true, uri: true))
        var seen = ""
        var checkpointed: [SQLiteValue?] = []
        do {
            let scan = try reader.prepare("SELECT substr(v, 1, 1) FROM t ORDER BY id")
            while try scan.step() {
                if case .text(let letter) = scan.column(0) { seen += letter }
                if seen.count == 1500 {
                    checkpointed = try app.rows("PRAGMA wal_checkpoint(PASSIVE)").first ?? []
                    try app.execute("UPDATE t SET v = printf('%.100c', 'b'); PRAGMA wal_checkpoint(PASSIVE)")
                }
            }
        }
        // The first checkpoint did copy the -wal's frames into the main file.
        #expect(checkpointed.count == 3 && checkpointed[0] == .integer(0) && checkpointed[1] == checkpointed[2], "\(checkpointed)")
        #expect(seen == String((1...3000).map { $0 % 3 == 0 ? "c" : "a" }))
        // The next read sees the rewrite.
        #expect(try reader.scalar("SELECT count(*) FROM t WHERE v LIKE 'b%'") == .integer(3000))
        try reader.close()
    }
}
