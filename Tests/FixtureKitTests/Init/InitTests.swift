import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// `fixturekit init`: a corpus from nothing, rules suggested from a store's schema, nothing overwritten.
@Suite struct InitTests {
    /// A contacts app's store with a column of each kind the suggestions know, and some they do not.
    static func contactsStore(in folder: TemporaryFolder) throws -> HeldWALStore {
        let store = try HeldWALStore(in: folder.path, notes: 3)
        try store.database.execute("""
            CREATE TABLE contacts (
                id INTEGER PRIMARY KEY, email TEXT, work_email VARCHAR(80), name TEXT, first_name TEXT, lastName TEXT,
                surname TEXT, phone TEXT, mobile_number TEXT, displayName TEXT, notes TEXT, photo BLOB, age INTEGER,
                code INTEGER, total REAL, created NUMERIC, full AS (name || ' ' || email));
            INSERT INTO contacts (email, name, age, code) VALUES ('ann@example.com', 'Ann Lee', 41, 'A-7');
            CREATE VIRTUAL TABLE search USING fts5(title, content);
            """)
        return store
    }

    @Test func rulesAreSuggestedPerColumnAndStrictRefusesEachTODO() throws {
        let folder = try TemporaryFolder()
        let store = try Self.contactsStore(in: folder)
        let before = try snapshotOfFiles(folder.path)
        let corpus = folder.url("MigrationFixtures")
        let result = fixturekit("init", store.path, "--corpus", corpus)
        #expect(result.status == 0, "\(result.standardError)")
        // The store is read from a copy: its files are as they were, its -wal included.
        #expect(try snapshotOfFiles(folder.path).filter { !$0.key.hasPrefix("MigrationFixtures") } == before)
        #expect(String(decoding: try folder.read("MigrationFixtures/anonymize.json"), as: UTF8.self) == """
            {
              "keyEnv": "FIXTUREKIT_ANON_KEY",
              "strict": true,
              "tables": {
                "contacts": {
                  "email":         {"strategy": "pseudonym", "format": "email", "domain": "email"},
                  "work_email":    {"strategy": "pseudonym", "format": "email", "domain": "email"},
                  "name":          {"strategy": "fake", "kind": "name"},
                  "first_name":    {"strategy": "fake", "kind": "first-name"},
                  "lastName":      {"strategy": "fake", "kind": "last-name"},
                  "surname":       {"strategy": "fake", "kind": "last-name"},
                  "phone":         {"strategy": "pseudonym", "format": "digits", "domain": "phone"},
                  "mobile_number": {"strategy": "pseudonym", "format": "digits", "domain": "phone"},
                  "displayName":   {"strategy": "fake", "kind": "name"},
                  "notes":         "TODO",
                  "photo":         "TODO",
                  "code":          "TODO"
                },
                "notes": {
                  "uuid":  "TODO",
                  "title": "TODO"
                },
                "search": {
                  "title":   "TODO",
                  "content": "TODO"
                }
              }
            }

            """)
        #expect(result.standardError.hasPrefix("""
            \(corpus)/fixturekit.json: written (store App.sqlite, current 1.0.0)
            \(corpus)/anonymize.json: written, strict: 16 columns with a rule, 7 of them TODO
              contacts.email          pseudonym (email)

            """))
        #expect(result.standardError.hasSuffix("next: decide each TODO in \(corpus)/anonymize.json (a strategy, or \"keep\"), then freeze the store\n"))
        // The configuration is minimal, valid, and names the rules.
        expectMatchesSchema(corpus + "/fixturekit.json")
        let configuration = try CorpusConfiguration.load(corpus + "/fixturekit.json")
        #expect(configuration.store == "App.sqlite" && configuration.current == "1.0.0" && configuration.supported.isEmpty && configuration.stages.isEmpty)
        #expect(configuration.anonymize == .rules("anonymize.json"))
        // Strict mode refuses the TODOs, each named.
        let anonymize = fixturekit(["anonymize", store.path, "--rules", corpus + "/anonymize.json", "-o", folder.url("out.sqlite")], environment: ["FIXTUREKIT_ANON_KEY": String(repeating: "k", count: 32)])
        #expect(anonymize.status == 2)
        #expect(anonymize.standardError == "fixturekit: anonymize: \(store.path): strict: no rule for 7 columns: contacts.code (TODO), contacts.notes (TODO), contacts.photo (TODO), notes.title (TODO), notes.uuid (TODO), search.content (TODO), search.title (TODO) (hint: decide each TODO in \(corpus)/anonymize.json: a strategy, or \"keep\" for a column that holds nothing personal)\n")
    }

    @Test func nothingIsEverOverwritten() throws {
        let folder = try TemporaryFolder()
        let store = try Self.contactsStore(in: folder)
        let corpus = folder.url("corpus")
        // An existing configuration: refused, nothing written (no rules either).
        try folder.write("corpus/fixturekit.json", "{\"mine\": true}\n")
        let first = fixturekit("init", store.path, "--corpus", corpus)
        #expect(first.status == 2)
        #expect(first.standardError == "fixturekit: init: \(corpus)/fixturekit.json: the file exists: init never overwrites (hint: edit it, or remove it first)\n")
        #expect(try folder.read("corpus/fixturekit.json") == Array("{\"mine\": true}\n".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: corpus) == ["fixturekit.json"])
        // An existing rules file: refused before the configuration is written.
        try FileManager.default.removeItem(atPath: corpus + "/fixturekit.json")
        try folder.write("corpus/anonymize.json", "mine")
        let second = fixturekit("init", store.path, "--corpus", corpus)
        #expect(second.status == 2)
        #expect(second.standardError == "fixturekit: init: \(corpus)/anonymize.json: the file exists: init never overwrites (hint: edit it, or remove it first)\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: corpus) == ["anonymize.json"])
        #expect(try folder.read("corpus/anonymize.json") == Array("mine".utf8))
        // Twice in a row: the second refuses.
        let fresh = folder.url("fresh")
        #expect(fixturekit("init", store.path, "--corpus", fresh, "-q").status == 0)
        let written = try snapshotOfFiles(fresh)
        #expect(fixturekit("init", store.path, "--corpus", fresh).status == 2)
        #expect(try snapshotOfFiles(fresh) == written)
    }

    @Test func withoutAStoreOnlyTheConfigurationIsWritten() throws {
        let folder = try TemporaryFolder()
        let result = fixturekit("init", "--corpus", folder.url("c"), "--version", "2.1.0")
        #expect(result.status == 0)
        #expect(result.standardError == """
            \(folder.url("c"))/fixturekit.json: written (store App.sqlite, current 2.1.0)
            next: set "store" to your store's file name if it is not App.sqlite, then freeze it

            """)
        #expect(String(decoding: try folder.read("c/fixturekit.json"), as: UTF8.self) == """
            {
              "store": "App.sqlite",
              "current": "2.1.0",
              "supported": [],
              "stages": []
            }

            """)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url("c")) == ["fixturekit.json"])
        #expect(fixturekit("init", "--corpus", folder.url("d"), "--version", "one").status == 64)
        // Not an SQLite store: nothing written.
        try folder.write("junk.sqlite", "not a database at all, just text")
        let junk = fixturekit("init", folder.url("junk.sqlite"), "--corpus", folder.url("e"))
        #expect(junk.status == 2)
        #expect((try? FileManager.default.contentsOfDirectory(atPath: folder.url("e"))) == nil)
    }

    @Test(arguments: [
        ("email", "pseudonym (email)"), ("EmailAddress", "pseudonym (email)"), ("user_mail", "pseudonym (email)"),
        ("phone", "pseudonym (digits)"), ("phoneNumber", "pseudonym (digits)"), ("fax", "pseudonym (digits)"),
        ("first_name", "fake (first-name)"), ("givenName", "fake (first-name)"), ("family_name", "fake (last-name)"),
        ("name", "fake (name)"), ("username", "fake (name)"), ("notes", "TODO"), ("filename_hash", "TODO"), ("city", "TODO"),
    ])
    func aColumnsNameSuggestsItsRule(column: String, rule: String) {
        #expect(CorpusInit.suggestion(for: column, affinity: .text).label == rule)
        #expect(CorpusInit.suggestion(for: column, affinity: .blob).label == "TODO")
    }
}
