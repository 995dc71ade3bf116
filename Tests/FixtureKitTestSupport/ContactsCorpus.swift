import Foundation
import Testing
@testable import FixtureKit

/// A two-version Contacts corpus built in code: 1.0.0 keeps phone numbers and
/// zip codes in `contacts`; the 2.0.0 stage (SQL, given by each test) moves
/// them into `phones`. Tests write the stage and the configuration they need.
struct ContactsCorpus: CodeBuiltCorpus {
    let folder: TemporaryFolder

    static let schema1 = """
        CREATE TABLE contacts (id INTEGER PRIMARY KEY, fullname TEXT, phone TEXT, zip TEXT);
        CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        """
    /// The 2.0.0 schema the stages of the tests aim at.
    static let schema2 = """
        CREATE TABLE contacts (id INTEGER PRIMARY KEY, name TEXT, zip INTEGER);
        CREATE TABLE phones (id INTEGER PRIMARY KEY, contact_id INTEGER NOT NULL REFERENCES contacts(id), number TEXT);
        CREATE TABLE labels (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        PRAGMA user_version = 2;
        """
    /// A stage that moves every phone, renames fullname and tags, converts zip to INTEGER.
    static let stage = """
        CREATE TABLE phones (id INTEGER PRIMARY KEY, contact_id INTEGER NOT NULL REFERENCES contacts(id), number TEXT);
        INSERT INTO phones (contact_id, number) SELECT id, phone FROM contacts WHERE phone IS NOT NULL;
        CREATE TABLE contacts_new (id INTEGER PRIMARY KEY, name TEXT, zip INTEGER);
        INSERT INTO contacts_new SELECT id, fullname, zip FROM contacts;
        DROP TABLE contacts;
        ALTER TABLE contacts_new RENAME TO contacts;
        ALTER TABLE tags RENAME TO labels;
        PRAGMA user_version = 2;
        """

    /// `zips`: the zip code of each contact, in order (contacts 1 to 8; phone of 7 and 8 NULL).
    /// - Parameter wal: the 1.0.0 store is in WAL mode.
    init(zips: [String] = ["10115", "20095", "80331", "50667", "60311", "70173", "99084", "39104"], wal: Bool = false) throws {
        folder = try TemporaryFolder()
        try make("1.0.0", schema: (wal ? "PRAGMA journal_mode = WAL;\n" : "") + Self.schema1) { database in
            for (index, zip) in zips.enumerated() {
                let id = index + 1
                let phone = id <= 6 ? "'+49 30 555 0\(id)'" : "NULL"
                try database.execute("INSERT INTO contacts (id, fullname, phone, zip) VALUES (\(id), 'Person \(id)', \(phone), \(quotedLiteral(zip)))")
            }
            try database.execute("INSERT INTO tags (name) VALUES ('family'), ('work')")
        }
        try make("2.0.0", schema: Self.schema2)
        try writeStage(Self.stage)
        try writeConfig()
    }

    func writeStage(_ sql: String) throws {
        try folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", sql)
    }

    /// The rules that mark `contacts.fullname` and `contacts.phone` personal.
    static let rules = """
        {"tables": {"contacts": {"fullname": {"strategy": "fake", "kind": "name"}, "phone": {"strategy": "pseudonym", "format": "email"}}}}
        """

    /// Writes fixturekit.json: the moves and renames the stage makes declared,
    /// unless `edit` changes them.
    func writeConfig(_ edit: (inout [String: Any]) -> Void = { _ in }) throws {
        try folder.write("MigrationFixtures/rules.json", Self.rules)
        var object: [String: Any] = [
            "store": "App.sqlite",
            "current": "2.0.0",
            "supported": ["1.0.0"],
            "stages": [["from": "1.0.0", "to": "2.0.0", "sql": "migrations/1.0.0-2.0.0.sql"]],
            "anonymize": "rules.json",
            "counts": ["phones": "changes"],
            "changes": ["contacts.phone": ["movedTo": "phones.number", "key": "phones.contact_id"]],
            "renames": ["contacts.fullname": "contacts.name", "tags": "labels"],
        ]
        edit(&object)
        try writeConfiguration(object)
    }

    /// Runs the matrix in this process.
    func migrate() throws -> PathResult {
        let report = try MigrationRunner.runMatrix(config: config)
        guard let path = report.paths.first else { throw FixtureKitError(what: "migrate", path: config, why: "no path") }
        return path
    }
}

extension PathResult {
    func check(_ name: String) -> CheckResult? { checks.first { $0.name == name } }
}
