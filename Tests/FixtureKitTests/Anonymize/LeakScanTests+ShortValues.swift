import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// Short replaced values (shorter than ``LeakScanReport/wholeValueBytes``):
/// found where they stand whole, and only there.
extension LeakScanTests {
    /// A code kept in a note is named with the cell and the bytes around it,
    /// never with the code itself; the same code inside a timestamp is no leak.
    /// In every encoding a store keeps text in.
    @Test(arguments: ["UTF-8", "UTF-16le", "UTF-16be"])
    func aShortValueIsNamedWithTheBytesAroundIt(encoding: String) throws {
        let leak = try LeakCase(
            encoding: encoding, rules: #"{"tables": {"people": {"name": {"strategy": "pseudonym", "format": "digits"}}}}"#,
            schema: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT, created_at TEXT);") { database in
            try database.execute("""
                INSERT INTO people VALUES (1, '831440', 'bio'), (2, '552817', 'bio');
                INSERT INTO notes VALUES (1, 'nothing here', '2019-08-25 06:59:42.831440'), (2, 'Your code is 831440, thanks for waiting', '2019-08-25 07:00:00.552817');
                """)
        }
        let (result, report) = leak.anonymize()
        #expect(result.status == 1)
        let scan = try #require(report?.leakScan)
        #expect(scan.hitCount == 1 && scan.embedded == 2)
        #expect(scan.hits.first == LeakHit(
            column: "people.name", file: leak.output, foundIn: "notes.body", rowid: 2, length: encoding == "UTF-8" ? 6 : 12, piece: false,
            cellBytes: encoding == "UTF-8" ? 39 : 78, before: "Your code is ", after: ", thanks for wai"))
        #expect(LeakCase.errorLine(result) == "fixturekit: anonymize: leak scan: \(leak.output): a replaced value of people.name is in notes.body, rowid 2 (hint: the cell (\(encoding == "UTF-8" ? 39 : 78) bytes) holds it between \"…Your code is \" and \", thanks for wai…\"; give notes.body a rule too; the rejected store is kept in \(leak.kept))")
        #expect(!result.standardError.contains("831440") && !result.standardOutput.contains("831440"))
    }

    /// A column the rules set to `null` is never searched for its own values:
    /// what it holds is what the rules (their `where`) kept in it, even a value
    /// that another column replaced too. Another kept column that holds one is a leak.
    @Test func aColumnSetToNullIsNeverReportedHoldingItsOwnValues() throws {
        let long = distinctive(300, seed: 300)
        let rules = #"{"tables": {"people": {"name": {"strategy": "pseudonym", "format": "hex"}, "bio": {"strategy": "null", "where": "id % 2 = 1"}}}}"#
        let leak = try LeakCase(rules: rules, schema: "CREATE TABLE other (id INTEGER PRIMARY KEY, note TEXT);") { database in
            // Odd rows are nulled, even rows keep their bio: the same values as the odd rows', and as a name.
            for id in 1...8 {
                let bio = [long, "Zorro", "Zorro Moreno the second of his name", long + " and more"][(id - 1) / 2]
                _ = try database.rows("INSERT INTO people VALUES (?1, ?2, ?3)", [.integer(Int64(id)), .text(id == 1 ? "Zorro" : "someone \(id)"), .text(bio)])
            }
        }
        let (result, report) = leak.anonymize()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(report?.leakScan.hitCount == 0)
        // The same values in another kept column are found.
        let database = try Database(path: leak.store)
        try database.execute("INSERT INTO other VALUES (5, 'Zorro'), (6, '\(long)')")
        try database.close()
        try FileManager.default.removeItem(atPath: leak.output)
        let (again, found) = leak.anonymize()
        #expect(again.status == 1)
        #expect(found?.leakScan.hits.map(\.place) == ["other.note, rowid 5", "other.note, rowid 6"])
    }

    /// An index on an expression holds a key no table holds: a short value
    /// that is the whole key is found on the index's page; one inside a longer
    /// key, or made of two keys side by side, is not.
    @Test func aShortValueThatIsAnIndexKeyIsFoundByItsPage() throws {
        let leak = try LeakCase(
            rules: #"{"tables": {"people": {"name": {"strategy": "pseudonym", "format": "digits"}}}}"#,
            schema: "CREATE TABLE contacts (id INTEGER PRIMARY KEY, handle TEXT, tag TEXT); CREATE INDEX contacts_key ON contacts(substr(handle, 4), substr(tag, 2));") { database in
            try database.execute("""
                INSERT INTO people VALUES (1, '831440', 'bio'), (2, '552817', 'bio'), (3, '770011', 'bio');
                INSERT INTO contacts VALUES (1, 'XYZ831440', 'a'), (2, 'XYZ1552817', 'b'), (3, 'XYZ770', 'x011');
                """)
        }
        let (result, report) = leak.anonymize()
        #expect(result.status == 1)
        let scan = try #require(report?.leakScan)
        #expect(scan.hitCount == 1, "\(scan.hits.map(\.summary))")
        let hit = try #require(scan.hits.first)
        #expect(hit.foundIn == nil && hit.btree == "contacts_key" && hit.pageType == "index leaf" && hit.isWholeCell && hit.cellBytes == 6)
        #expect(LeakCase.errorLine(result).hasSuffix("(hint: the index key is that value, whole; an index on expressions holds it: give the columns it is computed from a rule; the rejected store is kept in \(leak.kept))"))
        // `770` and `011` side by side in two keys of one record: no leak.
        #expect(scan.spanning >= 1 && scan.embedded >= 1)
    }

    /// A store not built by `anonymize` (a scan of any file) can have free
    /// pages: a short value in the old records they still hold is judged as
    /// in a table, and named by its page.
    @Test func aShortValueOnAFreePageIsFoundByItsPage() throws {
        let folder = try TemporaryFolder()
        let store = folder.url("App.sqlite")
        let database = try Database(path: store, options: .init(create: true))
        try database.execute("PRAGMA page_size = 1024; PRAGMA secure_delete = OFF; CREATE TABLE kept (x TEXT); CREATE TABLE old (code TEXT, note TEXT)")
        _ = try database.rows("INSERT INTO kept VALUES ('2019-08-25 06:59:42.831440')")
        for row in 0..<40 { _ = try database.rows("INSERT INTO old VALUES (?1, ?2)", [.text(row == 20 ? "831440" : String(format: "%06d", row)), .text(distinctive(200, seed: UInt64(row)))]) }
        try database.execute("DELETE FROM old")
        try database.close()
        let spool = try LeakSpool(folder: folder.path, utf16: false)
        Array("831440".utf8).withUnsafeBytes { spool.addOriginal(column: 0, $0, isText: true) }
        let scan = try LeakScan(spool: spool, schemaText: []).finish(LeakScan.Target(files: [(store, "App.sqlite")], store: store, utf16: false, columns: ["people.code"]))
        #expect(scan.hitCount == 1 && scan.embedded == 1)
        #expect(scan.hits.first?.pageType == "free" && scan.hits.first?.cellBytes == 6)
    }
}
