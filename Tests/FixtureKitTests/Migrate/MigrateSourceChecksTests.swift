import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// Checks see where the data came from: the source fixture's private copy is
/// attached read-only as `source`; `expectSQL` compares two queries' rows;
/// `"expect": "empty"` shows at most 5 offending rows, never a personal value;
/// `from` limits a check to the paths from some versions.
@Suite struct MigrateSourceChecksTests {
    static var everyPhoneMoved: [String: Any] { [
        "name": "every phone moved", "sql": "SELECT count(*) FROM phones",
        "expectSQL": "SELECT count(*) FROM source.contacts WHERE phone IS NOT NULL",
    ] }
    static var noPhoneLeftBehind: [String: Any] { [
        "name": "no phone left behind",
        "sql": "SELECT s.id, s.phone FROM source.contacts AS s WHERE s.phone IS NOT NULL AND NOT EXISTS (SELECT 1 FROM phones AS p WHERE p.contact_id = s.id) ORDER BY s.id",
        "expect": "empty",
    ] }

    func corpus(losing lost: Int, checks: [[String: Any]], wal: Bool = false) throws -> ContactsCorpus {
        let contacts = try ContactsCorpus(wal: wal)
        try contacts.writeStage(ContactsCorpus.stage.replacingOccurrences(of: "WHERE phone IS NOT NULL", with: "WHERE phone IS NOT NULL AND id > \(lost)"))
        try contacts.writeConfig { $0["checks"] = checks }
        return contacts
    }

    /// Whether the fixture's store is in rollback or WAL mode.
    @Test(arguments: [false, true])
    func expectSQLComparesTheMigratedStoreWithTheSource(wal: Bool) throws {
        let kept = try corpus(losing: 0, checks: [Self.everyPhoneMoved], wal: wal).migrate()
        #expect(kept.check("every phone moved")?.passed == true)
        let lost = try corpus(losing: 2, checks: [Self.everyPhoneMoved], wal: wal).migrate()
        let check = try #require(lost.check("every phone moved"))
        #expect(!check.passed)
        #expect(check.message == "row 1: [4] here, [6] by expectSQL")
        #expect(check.statement == "SELECT count(*) FROM phones")
    }

    @Test func expectSQLComparesEveryRowAndTheirNumber() throws {
        let checks: [[String: Any]] = [
            ["name": "same ids", "sql": "SELECT id FROM contacts ORDER BY id", "expectSQL": "SELECT id FROM source.contacts ORDER BY id"],
            ["name": "one row short", "sql": "SELECT id FROM contacts WHERE id > 1 ORDER BY id", "expectSQL": "SELECT id FROM source.contacts ORDER BY id"],
            ["name": "one row more", "sql": "SELECT id FROM contacts ORDER BY id", "expectSQL": "SELECT id FROM source.contacts WHERE id < 8 ORDER BY id"],
            ["name": "numbers by value", "sql": "SELECT 3", "expectSQL": "SELECT 3.0"],
            ["name": "fewer rows", "sql": "SELECT id FROM contacts WHERE id < 3", "expectSQL": "SELECT id FROM source.contacts WHERE id < 4"],
            ["name": "bad SQL", "sql": "SELECT 1", "expectSQL": "SELECT missing_column FROM source.contacts"],
        ]
        let path = try corpus(losing: 0, checks: checks).migrate()
        #expect(path.check("same ids")?.passed == true)
        #expect(path.check("one row short")?.message == "row 1: [2] here, [1] by expectSQL")
        #expect(path.check("one row more")?.message == "row 8: [8] here, expectSQL gives no more rows (7 in all)")
        #expect(path.check("numbers by value")?.passed == true)
        #expect(path.check("fewer rows")?.message == "row 3: no more rows here (2 in all), expectSQL gives [3]")
        let bad = try #require(path.check("bad SQL"))
        #expect(bad.message == "SQLite error 1: no such column: missing_column - while executing `SELECT missing_column FROM source.contacts`")
        #expect(bad.statement == "SELECT missing_column FROM source.contacts")
    }

    @Test func emptyShowsTheOffendingRowsWithoutPersonalValues() throws {
        let kept = try corpus(losing: 0, checks: [Self.noPhoneLeftBehind]).migrate()
        #expect(kept.check("no phone left behind")?.passed == true)
        let lost = try corpus(losing: 2, checks: [Self.noPhoneLeftBehind]).migrate()
        #expect(lost.check("no phone left behind")?.message == "2 rows that must not exist (id, phone): [1, (personal)]; [2, (personal)]")
        // At most 5 rows, with the count of all of them.
        let all = try corpus(losing: 6, checks: [Self.noPhoneLeftBehind]).migrate()
        #expect(all.check("no phone left behind")?.message == "6 rows that must not exist (id, phone, the first 5): [1, (personal)]; [2, (personal)]; [3, (personal)]; [4, (personal)]; [5, (personal)]")
    }

    /// A personal value never shows, whether read straight, through an
    /// expression or from the migrated store; numbers of expressions do.
    @Test func emptyNeverShowsAPersonalValueWhateverTheQuery() throws {
        let checks: [[String: Any]] = [
            ["name": "expression", "sql": "SELECT id, upper(fullname) AS shout, length(phone) AS digits FROM source.contacts WHERE id = 1", "expect": "empty"],
            ["name": "migrated", "sql": "SELECT p.number, c.zip FROM phones AS p JOIN contacts AS c ON c.id = p.contact_id WHERE p.contact_id = 2", "expect": "empty"],
            ["name": "aliased", "sql": "SELECT fullname AS title, zip FROM source.contacts WHERE id = 3", "expect": "empty"],
        ]
        let path = try corpus(losing: 0, checks: checks).migrate()
        #expect(path.check("expression")?.message == "1 row that must not exist (id, shout, digits): [1, (personal), 13]")
        #expect(path.check("migrated")?.message == "1 row that must not exist (number, zip): [\"+49 30 555 02\", 20095]")
        #expect(path.check("aliased")?.message == "1 row that must not exist (title, zip): [(personal), \"80331\"]")
        for check in path.checks { #expect(!(check.message ?? "").contains("Person"), "\(check)") }
    }

    /// `source` is attached read-only: a check that writes to it fails, and the
    /// fixture and the copy the other paths compare with keep their bytes.
    @Test func theSourceIsReadOnly() throws {
        let checks: [[String: Any]] = [
            ["name": "write the source", "sql": "DELETE FROM source.contacts", "expect": 0],
            ["name": "source intact", "sql": "SELECT count(*) FROM source.contacts", "expect": 8],
        ]
        let contacts = try corpus(losing: 0, checks: checks)
        let before = try snapshotOfFiles(contacts.corpus + "/1.0.0")
        let path = try contacts.migrate()
        #expect(path.check("write the source")?.message == "SQLite error 8: attempt to write a readonly database - while executing `DELETE FROM source.contacts`")
        #expect(path.check("source intact")?.passed == true)
        #expect(try snapshotOfFiles(contacts.corpus + "/1.0.0") == before)
        #expect(fixturekit("verify", contacts.corpus + "/1.0.0").status == 0)
    }

    @Test func fromLimitsACheckToThePathsFromSomeVersions() throws {
        let notes = try NotesCorpus()
        try notes.writeConfig {
            $0["checks"] = [["name": "drafts of 1.0.0 kept", "sql": "SELECT count(*) FROM source.drafts", "expect": 2, "from": ["1.0.0"]]]
        }
        let report = try MigrationRunner.runMatrix(config: notes.config)
        for path in report.paths where path.target == "3.0.0" {
            let check = path.check("drafts of 1.0.0 kept")
            if path.source == "1.0.0" {
                #expect(check?.passed == true, "\(path.id)")
            } else {
                #expect(check == nil, "\(path.id)")
            }
        }
        #expect(report.paths.contains { $0.source == "2.0.0" && $0.target == "3.0.0" })
    }

    @Test func malformedChecksAreRefusedOnLoad() throws {
        let contacts = try ContactsCorpus()
        let cases: [([String: Any], String)] = [
            (["name": "a", "sql": "SELECT 1", "expect": 1, "expectSQL": "SELECT 1"], "checks[0] needs exactly one of \"expect\" and \"expectSQL\""),
            (["name": "a", "sql": "SELECT 1"], "checks[0] needs exactly one of \"expect\" and \"expectSQL\""),
            (["name": "a", "sql": "SELECT 1", "expect": 1, "from": ["0.9.0"]], "checks[0].from: \"0.9.0\" is not a supported version"),
            (["name": "a", "sql": "SELECT 1", "expect": 1, "from": ["2.0.0"]], "checks[0].from: \"2.0.0\" is not a supported version"),
            (["name": "a", "sql": "SELECT 1", "expect": 1, "from": [String]()], "checks[0].from is empty: name the versions, or leave it out for every path"),
            (["name": "a", "sql": "SELECT 1", "expect": 1, "form": ["1.0.0"]], "checks[0]: unknown key \"form\" (one of expect, expectSQL, from, name, sql)"),
            (["name": "a", "sql": "SELECT 1", "expectSQL": 1], "checks[0].expectSQL has the wrong type"),
            (["name": "a", "sql": "SELECT 1", "expect": 1, "from": "1.0.0"], "checks[0].from has the wrong type"),
        ]
        for (check, why) in cases {
            try contacts.writeConfig { $0["checks"] = [check] }
            let result = fixturekit("migrate", "--config", contacts.config)
            #expect(result.status == 2, "\(why)")
            #expect(result.standardError == "fixturekit: read configuration: \(contacts.config): \(why)\n")
        }
    }
}
