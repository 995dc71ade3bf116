import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitSQLite
@testable import FixtureKitTestSupport

/// anonymize's working copy and its output are written through
/// ``GatheredFile`` (`fixturekit_gather=1`): pages that follow one another go
/// to the disk in one write, and reads read ahead. What SQLite reads back, the
/// bytes it leaves and the failures it reports must be those of the plain VFS.
@Suite struct GatheredFileTests {
    static func gathered(_ path: String) -> String { CaptureVFS.uri(path, [("fixturekit_gather", "1")]) }

    /// A store built, rewritten and vacuumed the way anonymize treats its working
    /// copy: no journal, a page cache of 8 pages, so that the rewrite spills pages
    /// before its commit and reads them back, rows that grow so that pages split
    /// and new ones are appended out of sequence.
    /// - Returns: what the rewrite read back inside its transaction.
    static func rewrite(_ path: String, into output: String, pageSize: Int, gathering: Bool) throws -> [SQLiteValue?] {
        try CaptureVFS.register()
        let database = try Database(path: gathering ? gathered(path) : path, options: .init(create: true, uri: true))
        try database.execute("PRAGMA page_size = \(pageSize); PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = 8")
        try database.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); CREATE INDEX t_v ON t (v)")
        try database.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) INSERT INTO t SELECT i, printf('%.*c', i % 50, 'x') FROM n")
        try database.execute("BEGIN; UPDATE t SET v = v || printf('%.*c', id * 7 % 90, 'y') || id")
        let readBack = [
            try database.scalar("SELECT sum(length(v)) FROM t NOT INDEXED"),
            try database.scalar("SELECT count(*) FROM t INDEXED BY t_v WHERE v > 'xy'"),
        ]
        try database.execute("COMMIT; DELETE FROM t WHERE id % 3 = 0")
        do {
            let vacuum = try database.prepare("VACUUM INTO ?1")
            try vacuum.bind([.text(gathering ? gathered(output) : output)])
            _ = try vacuum.step()
        }
        try database.close()
        return readBack
    }

    @Test(arguments: [512, 4096, 65536])
    func aGatheredFileHoldsTheBytesThePlainVFSWrites(pageSize: Int) throws {
        let folder = try TemporaryFolder()
        let plain = try Self.rewrite(folder.url("plain.sqlite"), into: folder.url("plain-out.sqlite"), pageSize: pageSize, gathering: false)
        let gathered = try Self.rewrite(folder.url("gathered.sqlite"), into: folder.url("gathered-out.sqlite"), pageSize: pageSize, gathering: true)
        // What the rewrite read back, spilled pages included, is what it wrote.
        // (printf's %.*c writes its character once for a precision of 0.)
        let expectedLength = (1...3000).reduce(0) { $0 + max(1, $1 % 50) + max(1, $1 * 7 % 90) + String($1).count }
        #expect(plain == [.integer(Int64(expectedLength)), plain[1]])
        #expect(gathered == plain)
        // The working copy and the output: the same bytes, and whole.
        #expect(try folder.read("gathered.sqlite") == folder.read("plain.sqlite"))
        #expect(try folder.read("gathered-out.sqlite") == folder.read("plain-out.sqlite"))
        #expect(try folder.read("plain-out.sqlite").count > 64 * 1024)
        for name in ["gathered.sqlite", "gathered-out.sqlite"] {
            let database = try Database(path: folder.url(name), options: .init(readOnly: true))
            #expect(try database.scalar("PRAGMA integrity_check") == .text("ok"))
            #expect(try database.scalar("SELECT count(*) FROM t") == .integer(2000))
        }
    }

    /// A disk that fills during the rewrite, at every size: the write that does
    /// not fit fails the statement (SQLite's "database or disk is full"), and a
    /// rewrite that succeeds left the whole file. The last gathered piece is
    /// written as the commit ends (its sync file control, else its unlock, else
    /// the close): its failure is the commit's, or the close's.
    @Test(.enabled(if: InfrastructureFailureTests.canMountTmpfs, "needs root, to mount a small tmpfs that the rewrite fills"))
    func aDiskThatFillsFailsTheWriteThatDidNotFit() throws {
        let disk = try InfrastructureFailureTests.SmallDisk(size: "256k")
        try CaptureVFS.register()
        var failures = 0
        for kib in stride(from: 160, through: 320, by: 4) {
            let path = disk.path + "/store.sqlite"
            try? FileManager.default.removeItem(atPath: path)
            let database = try Database(path: Self.gathered(path), options: .init(create: true, uri: true))
            try database.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; CREATE TABLE t (b BLOB)")
            do throws(SQLiteError) {
                try database.execute("BEGIN; INSERT INTO t VALUES (zeroblob(\(kib * 1024 - 2048))); COMMIT")
                try database.close()
                let written = try Database(path: path, options: .init(readOnly: true))
                #expect(try written.scalar("PRAGMA integrity_check") == .text("ok"), "\(kib) KiB")
                #expect(try written.scalar("SELECT length(b) FROM t") == .integer(Int64(kib * 1024 - 2048)), "\(kib) KiB")
            } catch {
                failures += 1
                #expect(error.code == 13, "\(kib) KiB: \(error)")
                #expect(kib > 200, "\(kib) KiB: \(error)")
                try? database.close()
            }
        }
        #expect(failures > 10)
    }

    /// `VACUUM INTO` an output on a disk too small for it, at every size, page
    /// by page: it fails with SQLite's "database or disk is full", or the
    /// output is whole (among them the sizes whose last gathered piece, written
    /// as the commit ends, is the one that does not fit).
    @Test(.enabled(if: InfrastructureFailureTests.canMountTmpfs, "needs root, to mount a small tmpfs that the output fills"))
    func vacuumIntoAFullDiskFailsOrLeavesTheWholeOutput() throws {
        let folder = try TemporaryFolder()
        let disk = try InfrastructureFailureTests.SmallDisk(size: "256k")
        try CaptureVFS.register()
        let source = try Database(path: folder.url("source.sqlite"), options: .init(create: true))
        try source.execute("PRAGMA synchronous = OFF; CREATE TABLE t (v BLOB); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 150) INSERT INTO t SELECT zeroblob(900) FROM n")
        var failures = 0
        for rows in 151...400 {
            try source.execute("INSERT INTO t VALUES (zeroblob(900))")
            let output = disk.path + "/out.sqlite"
            try? FileManager.default.removeItem(atPath: output)
            do throws(SQLiteError) {
                let vacuum = try source.prepare("VACUUM INTO ?1")
                try vacuum.bind([.text(Self.gathered(output))])
                _ = try vacuum.step()
                let written = try Database(path: output, options: .init(readOnly: true))
                #expect(try written.scalar("PRAGMA integrity_check") == .text("ok"), "\(rows) rows")
                #expect(try written.scalar("SELECT count(*) FROM t") == .integer(Int64(rows)), "\(rows) rows")
            } catch {
                failures += 1
                #expect(error.code == 13, "\(rows) rows: \(error)")
            }
        }
        #expect(failures > 10)
    }

    /// `anonymize` whose output folder fills up at each step (the copy, the
    /// rewrite's commit, `VACUUM INTO`): one line and exit 2, nothing left
    /// beside the output; or, where everything fits, a whole output.
    @Test(.enabled(if: InfrastructureFailureTests.canMountTmpfs, "needs root, to mount a small tmpfs that the output fills"))
    func anonymizeOnADiskThatFillsExits2AndLeavesNothing() throws {
        let folder = try TemporaryFolder()
        let store = folder.url("App.sqlite")
        let database = try Database(path: store, options: .init(create: true))
        try database.execute("""
            CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT, note TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
              INSERT INTO users SELECT i, 'person.' || i || '@mail.example.com', printf('%.100c', 'n') FROM n
            """)
        try database.close()
        let rules = try folder.write("rules.json", """
            {"keyEnv": "FIXTUREKIT_ANON_KEY", "tables": {"users": {"email": {"strategy": "pseudonym", "format": "email", "domain": "email"}, "id": "keep", "note": "keep"}}}
            """)
        let disk = try InfrastructureFailureTests.SmallDisk(size: "2m")
        let output = disk.path + "/out.sqlite"
        var stepsThatFailed: Set<String> = []
        for fill in stride(from: 0, through: 1900, by: 100) {
            for name in try FileManager.default.contentsOfDirectory(atPath: disk.path) { try FileManager.default.removeItem(atPath: disk.path + "/" + name) }
            // Written in place (createFile writes a temporary copy first, which may not fit).
            try Data(count: fill * 1024).write(to: URL(fileURLWithPath: disk.path + "/fill"))
            let result = fixturekit(["anonymize", store, "--rules", rules, "--output", output], environment: AnonymizeTests.environment)
            if result.status == 0 {
                let written = try Database(path: output, options: .init(readOnly: true))
                #expect(try written.scalar("PRAGMA integrity_check") == .text("ok"), "fill \(fill) KiB")
                #expect(try written.scalar("SELECT count(*) FROM users WHERE email LIKE '%@example.invalid'") == .integer(5000), "fill \(fill) KiB")
                continue
            }
            #expect(result.status == 2, "fill \(fill) KiB: \(result.standardError)")
            let lines = result.standardError.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("fixturekit: anonymize"), "fill \(fill) KiB: \(result.standardError)")
            #expect(result.standardError.contains("database or disk is full") || result.standardError.contains("no space left on device"), "fill \(fill) KiB: \(result.standardError)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path) == ["fill"], "fill \(fill) KiB")
            #expect(!result.standardError.contains("copy: copy"), "fill \(fill) KiB: \(result.standardError)")
            for step in ["VACUUM INTO", "COMMIT", "copy:"] where result.standardError.contains(step) { stepsThatFailed.insert(step) }
        }
        #expect(stepsThatFailed == ["VACUUM INTO", "COMMIT", "copy:"])
    }
}
