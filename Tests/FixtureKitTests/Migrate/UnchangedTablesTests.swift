import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// The shortcuts of the migration checks: tables a migration left byte for byte
/// as they were skip the value join, and the integrity check splits by table.
@Suite struct UnchangedTablesTests {
    /// A source store of three tables (`big` spans many pages, with an index),
    /// and a byte copy of it that `change` then migrates.
    func stores(_ change: String) throws -> (folder: TemporaryFolder, source: String, migrated: String) {
        let folder = try TemporaryFolder()
        let source = folder.url("source.sqlite"), migrated = folder.url("migrated.sqlite")
        let database = try Database(path: source, options: .init(create: true))
        try database.execute("""
            CREATE TABLE small (id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE big (id INTEGER PRIMARY KEY, body TEXT);
            CREATE INDEX big_body ON big(body);
            CREATE TABLE other (id INTEGER PRIMARY KEY, note TEXT);
            INSERT INTO small (name) VALUES ('a'), ('b');
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
            INSERT INTO big (body) SELECT printf('%.300c', 'x') || i FROM n;
            INSERT INTO other (note) VALUES ('kept');
            """)
        try database.close()
        try FileManager.default.copyItem(atPath: source, toPath: migrated)
        let target = try Database(path: migrated)
        try target.execute(change)
        try target.close()
        return (folder, source, migrated)
    }

    func unchanged(_ source: String, _ migrated: String) throws -> Set<String>? {
        guard let pages = ChangedPages.compare(migrated: migrated, source: source) else { return nil }
        let database = try Database(path: migrated)
        _ = try database.rows("ATTACH DATABASE ?1 AS src", [.text(source)])
        let found = try UnchangedTables.find(database: database, sourceSchema: "src", changedPages: pages)
        // The source's pages walked beforehand (as the runner does while the
        // stages run) give the same answer as the migrated store's own walk.
        let walked = try #require(SourcePages(reference: source).wait())
        #expect(try UnchangedTables.find(database: database, sourceSchema: "src", changedPages: pages, sourcePages: walked) == found)
        return found
    }

    @Test func onlyTablesWhosePagesAndSchemaAreTheSameAreUnchanged() throws {
        // One value of one row of a table that spans many pages.
        let one = try stores("UPDATE big SET body = 'changed' WHERE id = 2999")
        #expect(try unchanged(one.source, one.migrated) == ["small", "other"])
        // A new column: the rows are not rewritten, but the table is not the same.
        let column = try stores("ALTER TABLE small ADD COLUMN extra TEXT")
        #expect(try unchanged(column.source, column.migrated) == ["big", "other"])
        // A renamed column: no page of the table changes, its statement does.
        let renamed = try stores("ALTER TABLE other RENAME COLUMN note TO text")
        #expect(try unchanged(renamed.source, renamed.migrated) == ["small", "big"])
        // A new index on an untouched table.
        let indexed = try stores("CREATE INDEX small_name ON small(name)")
        #expect(try unchanged(indexed.source, indexed.migrated) == ["big", "other"])
        // Rows added at the end of a table: its last pages split, new pages
        // past the source's end of file.
        let grown = try stores("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500) INSERT INTO big (body) SELECT printf('%.300c', 'y') || i FROM n")
        #expect(try unchanged(grown.source, grown.migrated) == ["small", "other"])
        // A stage that changes nothing at all.
        let nothing = try stores("PRAGMA user_version = 2")
        #expect(try unchanged(nothing.source, nothing.migrated) == ["small", "big", "other"])
    }

    /// Only the pages asked about are compared: those of an untouched table
    /// are the same, a rewritten one's differ, a page that is not in both files
    /// counts as changed.
    @Test func theComparisonSaysWhichPagesDiffer() throws {
        let (folder, source, migrated) = try stores("UPDATE big SET body = 'changed' WHERE id = 2999")
        defer { withExtendedLifetime(folder) {} }
        let pages = try #require(ChangedPages.compare(migrated: migrated, source: source))
        let database = try Database(path: migrated, options: .init(readOnly: true))
        func numbers(_ name: String) throws -> [Int] {
            try database.rows("SELECT pageno FROM dbstat('main') WHERE name = ?1", [.text(name)]).map { Int($0[0].integer ?? 0) }
        }
        let small = try numbers("small"), big = try numbers("big"), other = try numbers("other")
        #expect(big.count > 10 && !small.isEmpty)
        #expect(!pages.changed(small) && !pages.changed(other))
        #expect(pages.changed(big) && pages.changed(small + big))
        let count = Int(try database.scalar("PRAGMA page_count")?.integer ?? 0)
        #expect(pages.changed([0]) && pages.changed([count + 1]) && pages.changed([]))
    }

    @Test func storesThatCannotBeComparedPageByPageAreNot() throws {
        let resized = try stores("PRAGMA page_size = 8192; VACUUM")
        #expect(ChangedPages.compare(migrated: resized.migrated, source: resized.source) == nil)
        #expect(ChangedPages.compare(migrated: resized.migrated, source: resized.folder.url("missing")) == nil)
        // A WAL the migrated store still has: its main file is not the whole store.
        let folder = try TemporaryFolder()
        let open = try Database(path: folder.url("wal.sqlite"), options: .init(create: true))
        try open.execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE t (x); INSERT INTO t VALUES (1)")
        #expect(ChangedPages.compare(migrated: folder.url("wal.sqlite"), source: resized.source) == nil)
        try open.close()
    }

    @Test func theShortcutGivesWhatTheJoinGives() throws {
        let (folder, source, migrated) = try stores("UPDATE big SET body = NULL WHERE id IN (5, 6); DELETE FROM small WHERE id = 2")
        defer { withExtendedLifetime(folder) {} }
        let database = try Database(path: migrated)
        let sourceSchema = try SchemaSnapshot(database: try Database(path: source, options: .init(readOnly: true)))
        let check = PreservationCheck(
            database: database, keys: [:], changes: [:], source: sourceSchema, migrated: try SchemaSnapshot(database: database))
        let joined = try check.run(sourcePath: source)
        let pages = try #require(ChangedPages.compare(migrated: migrated, source: source))
        let shortcut = try check.run(sourcePath: source, changedPages: pages)
        // The same figures, and the tables the shortcut took say so.
        #expect(shortcut.map { var row = $0; row.identicalPages = nil; return row } == joined)
        #expect(Set(shortcut.filter { $0.identicalPages == true }.map(\.table)) == ["other"])
        #expect(joined.compactMap(\.finding) == ["big.body: 2 became NULL of 3000 values (key 5: '\(String(repeating: "x", count: 40))'... (301 characters) -> NULL; key 6: '\(String(repeating: "x", count: 40))'... (301 characters) -> NULL)", "small: 1 of 2 rows lost (keys 2)"])
        let other = try #require(shortcut.first { $0.table == "other" && $0.column == "note" })
        #expect((other.compared, other.equal, other.passed) == (1, 1, true))
    }

    /// A wrong `keys` entry fails the same way whether the migration rewrote
    /// the table or left it byte for byte as it was.
    @Test func aWrongKeyFailsOnUntouchedTablesToo() throws {
        let folder = try TemporaryFolder()
        let source = folder.url("source.sqlite"), migrated = folder.url("migrated.sqlite")
        let database = try Database(path: source, options: .init(create: true))
        try database.execute("""
            CREATE TABLE tags (id INTEGER PRIMARY KEY, tag TEXT);
            CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT);
            INSERT INTO tags (tag) VALUES ('x'), ('x'), ('y');
            INSERT INTO notes (title) VALUES ('a');
            """)
        try database.close()
        try FileManager.default.copyItem(atPath: source, toPath: migrated)
        let target = try Database(path: migrated)
        try target.execute("PRAGMA user_version = 2")
        let schema = try SchemaSnapshot(database: target)
        let check = PreservationCheck(
            database: target, keys: ["tags": ["tag"], "notes": ["titel"]], changes: [:], source: schema, migrated: schema)
        let pages = try #require(ChangedPages.compare(migrated: migrated, source: source))
        // The shortcut applies: both tables are byte for byte as they were.
        let unchanged = try check.run(sourcePath: source, changedPages: pages)
        let expected = [
            "notes: key column titel is not a column of notes: rows cannot be matched (check \"keys\")",
            "tags: key (\"tag\") is not unique in the source: rows cannot be matched (declare \"keys\")",
        ]
        func findings(_ rows: [ColumnPreservation]) -> [String] { rows.compactMap { row in row.finding.map { "\(row.table): \($0)" } }.sorted() }
        #expect(findings(unchanged) == expected)
        #expect(findings(try check.run(sourcePath: source)) == expected)
    }

    /// A store whose index `big_body` lost the entry of row 3000: the last byte
    /// of its key is changed in place, to one that keeps the index in order.
    func storeWithABrokenIndex() throws -> (TemporaryFolder, String) {
        let (folder, source, _) = try stores("SELECT 1")
        let database = try Database(path: source, options: .init(readOnly: true))
        let pageSize = Int(try database.scalar("PRAGMA page_size")?.integer ?? 0)
        try database.close()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        let key = Data((String(repeating: "x", count: 300) + "3000").utf8)
        // The key occurs in the table's row and in the index entry; the index's
        // copy is the second one (the index's pages follow the table's).
        var offsets: [Int] = []
        var start = 0
        while let range = bytes.range(of: key, in: start..<bytes.count) {
            offsets.append(range.lowerBound)
            start = range.upperBound
        }
        #expect(offsets.count == 2 && offsets[1] / pageSize != offsets[0] / pageSize)
        bytes[offsets[1] + key.count - 1] = UInt8(ascii: "/") // "...x300/" sorts between "...x300" and "...x301"
        try bytes.write(to: URL(fileURLWithPath: source))
        return (folder, source)
    }

    @Test func theSplitIntegrityCheckFindsWhatTheWholeOneFinds() throws {
        let (folder, broken) = try storeWithABrokenIndex()
        let whole = try MigrationChecks.integrity(try Database(path: broken, options: .init(readOnly: true)))
        let split = MigrationChecks.integrity(path: broken, sizes: ["big": 3000, "small": 2], workers: 2).result()
        #expect(!whole.passed && !split.passed)
        #expect(split.message == whole.message)
        #expect(split.message == "row 3000 missing from index big_body")
        let good = try stores("SELECT 1")
        #expect(MigrationChecks.integrity(path: good.source, sizes: [:], workers: 3).result() == CheckResult(.integrity, passed: true))
        let missing = MigrationChecks.integrity(path: folder.url("missing.sqlite"), sizes: [:], workers: 1).result()
        #expect(!missing.passed)
    }

    /// A page two tables share is seen only by a check of the whole file: the
    /// split's `quick_check`, or the whole `integrity_check` it is replaced by.
    /// Split or not, with any number of workers, the check fails, and says
    /// what the whole check says.
    @Test func aPageTwoTablesShareFailsTheCheckSplitOrNot() throws {
        let (folder, source, _) = try stores("SELECT 1")
        defer { withExtendedLifetime(folder) {} }
        let database = try Database(path: source)
        try database.execute("PRAGMA writable_schema = ON; UPDATE sqlite_schema SET rootpage = (SELECT rootpage FROM sqlite_schema WHERE name = 'small') WHERE name = 'other'")
        try database.close()
        let whole = try MigrationChecks.integrity(try Database(path: source, options: .init(readOnly: true)))
        #expect(!whole.passed && whole.message?.contains("2nd reference to page") == true, "\(whole.message ?? "")")
        for workers in 0...3 {
            // `big` most of the check (whole with one worker), then evenly (split).
            for sizes in [["big": 3000, "small": 2, "other": 1], ["big": 2, "small": 2, "other": 2]] {
                let check = MigrationChecks.integrity(path: source, sizes: sizes, workers: workers).result()
                #expect(!check.passed && check.message == whole.message, "\(workers) workers, \(sizes): \(check.message ?? "")")
            }
        }
    }

    /// With one worker, the check is split only when the tables other than the
    /// largest cost more than the split's second walk of every b-tree (a third
    /// of the whole); with two or more, always; with none, never.
    @Test func theCheckIsSplitWhereTheOtherTablesOutweighTheSecondWalk() {
        #expect(ParallelIntegrityCheck.splits([80, 20], workers: 1) == false)
        #expect(ParallelIntegrityCheck.splits([67, 33], workers: 1) == false)
        #expect(ParallelIntegrityCheck.splits([66, 34], workers: 1) == true)
        #expect(ParallelIntegrityCheck.splits([58, 20, 22], workers: 1) == true)
        #expect(ParallelIntegrityCheck.splits([5], workers: 1) == false)
        #expect(ParallelIntegrityCheck.splits([], workers: 1) == false)
        #expect(ParallelIntegrityCheck.splits([0, 0], workers: 1) == false)
        #expect(ParallelIntegrityCheck.splits([80, 20], workers: 2) == true)
        #expect(ParallelIntegrityCheck.splits([5], workers: 3) == true)
        #expect(ParallelIntegrityCheck.splits([40, 60], workers: 0) == false)
    }

    /// The largest table's check starts first, `quick_check` second (it walks
    /// every page), then the other tables by size; whatever the sizes and the
    /// number of workers, the split check reports what the whole one does.
    @Test func quickCheckStartsSecondAndTheSplitCheckFindsTheSame() throws {
        #expect(ParallelIntegrityCheck.startOrder(0) == [])
        #expect(ParallelIntegrityCheck.startOrder(1) == [0])
        #expect(ParallelIntegrityCheck.startOrder(2) == [0, 1])
        #expect(ParallelIntegrityCheck.startOrder(3) == [0, 2, 1])
        #expect(ParallelIntegrityCheck.startOrder(6) == [0, 5, 1, 2, 3, 4])
        let (folder, broken) = try storeWithABrokenIndex()
        defer { withExtendedLifetime(folder) {} }
        let whole = try MigrationChecks.integrity(try Database(path: broken, options: .init(readOnly: true)))
        for workers in 1...4 {
            for sizes in [["big": 3000, "small": 2], ["big": 2, "small": 3000], [:]] {
                let split = MigrationChecks.integrity(path: broken, sizes: sizes, workers: workers).result()
                #expect(!split.passed && split.message == whole.message, "\(workers) workers, \(sizes)")
            }
        }
    }
}
