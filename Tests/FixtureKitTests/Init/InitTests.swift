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
            CREATE VIRTUAL TABLE zones USING rtree(id, minX, maxX, +owner);
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
                  "code":          {"strategy": "fake", "kind": "text"}
                },
                "notes": {
                  "uuid":  {"strategy": "fake", "kind": "text"},
                  "title": {"strategy": "fake", "kind": "text"}
                },
                "search": {
                  "title":   "TODO",
                  "content": "TODO"
                },
                "zones": {
                  "owner": "TODO"
                }
              }
            }

            """)
        #expect(result.standardError.hasPrefix("""
            \(corpus)/fixturekit.json: written (store App.sqlite, current 1.0.0)
            \(corpus)/anonymize.json: written, strict: 17 columns with a rule, 5 of them TODO; 1 generated column derived
              contacts.email          pseudonym (email)   e-mail: 1 of 1 sampled values
              contacts.work_email     pseudonym (email)   the column's name (no value to sample: every one is NULL or '')
              contacts.name           fake (name)         person name: 1 of 1 sampled values

            """))
        #expect(result.standardError.contains("\n  contacts.full           derived             generated from email, name\n"))
        #expect(result.standardError.hasSuffix("next: decide each TODO in \(corpus)/anonymize.json (a strategy, or \"keep\"), then freeze the store\n"))
        // The configuration is minimal, valid, and names the rules.
        expectMatchesSchema(corpus + "/fixturekit.json")
        let configuration = try CorpusConfiguration.load(corpus + "/fixturekit.json")
        #expect(configuration.store == "App.sqlite" && configuration.current == "1.0.0" && configuration.supported.isEmpty && configuration.stages.isEmpty)
        #expect(configuration.anonymize == .rules("anonymize.json"))
        // Strict mode refuses the TODOs, each named.
        let anonymize = fixturekit(["anonymize", store.path, "--rules", corpus + "/anonymize.json", "-o", folder.url("out.sqlite")], environment: ["FIXTUREKIT_ANON_KEY": String(repeating: "k", count: 32)])
        #expect(anonymize.status == 2)
        #expect(anonymize.standardError == "fixturekit: anonymize: \(store.path): strict: no rule for 5 columns: contacts.notes (TODO), contacts.photo (TODO), search.content (TODO), search.title (TODO), zones.owner (TODO) (hint: decide each TODO in \(corpus)/anonymize.json: a strategy, or \"keep\" for a column that holds nothing personal)\n")
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

/// `init` suggests from the values, on a realistic store.
@Suite struct InitFromDataTests {
    @Test func aRealisticStoreLeavesAtMostOneColumnInSevenUndecided() throws {
        let folder = try TemporaryFolder()
        let store = folder.url("vault.sqlite")
        try PasswordManagerStore.make(at: store)
        let result = fixturekit("init", store, "--corpus", folder.url("corpus"), "--json")
        #expect(result.status == 0, "\(result.standardError)")
        let initialized = try JSONDecoder().decode(InitResult.self, from: Data(result.standardOutput.utf8))
        let ruled = initialized.suggestions.filter { $0.rule != "derived" }
        #expect(ruled.count >= 100)
        #expect(Double(initialized.undecided) <= 0.15 * Double(ruled.count), "\(initialized.undecided) of \(ruled.count) TODO")
        func rule(_ name: String) -> InitResult.Suggestion? { initialized.suggestions.first { "\($0.table).\($0.column)" == name } }
        #expect(rule("users.email")?.rule == "pseudonym (email)")
        #expect(rule("users.email")?.reason == "e-mail: 60 of 60 sampled values")
        #expect(rule("users.name")?.rule == "fake (name)")
        #expect(rule("users.uuid")?.rule == "keep" && rule("users.uuid")?.reason == "uuid: 60 of 60 sampled values")
        #expect(rule("users.created_at")?.reason == "date or timestamp: 60 of 60 sampled values")
        #expect(rule("users.email_new_token")?.rule == "pseudonym (digits)")
        #expect(rule("users.email_new_token")?.reason == "6-digit code: 60 of 60 sampled values (digits keeps the length)")
        #expect(rule("users.akey")?.rule == "keep" && rule("users.private_key")?.rule == "keep" && rule("users.public_key")?.rule == "keep")
        #expect(rule("users.password_hash")?.rule == "keep")
        #expect(rule("devices.name")?.rule == "fake (text)")
        #expect(rule("organizations.name")?.rule == "fake (text)")
        #expect(rule("event.ip_address")?.rule == "pseudonym (digits)")
        #expect(rule("users.password_hint")?.rule == "fake (text)")
        #expect(rule("users.external_id")?.rule == "TODO")
        // No sampled value is ever printed.
        let database = try Database(path: store, options: .init(readOnly: true))
        for sample in try database.rows("SELECT email, name, password_hint FROM users LIMIT 20").flatMap({ $0 }).compactMap(\.text) {
            #expect(!result.standardError.contains(sample) && !result.standardOutput.contains(sample))
        }
        // The rules file is valid, strict, and has a rule (or a TODO) for every column strict mode asks about.
        let rules = try AnonymizationRules.load(folder.url("corpus/anonymize.json"))
        #expect(rules.strict)
    }
}

extension InitFromDataTests {
    @Test(arguments: [
        ("550e8400-e29b-41d4-a716-446655440000", ValueKind.uuid), ("2019-08-25 06:59:42.831440", .date), ("2024-02-29", .date),
        (#"{"Key":"x","n":1}"#, .json), ("[]", .json), ("https://example.org/a?b=c", .url), ("ann.lee+tag@example.org", .email),
        ("192.168.1.20", .ipAddress), ("2001:db8::1", .ipAddress), ("12:30:45", .other), ("482913", .digits), ("-12.50", .number),
        ("+33 6 12 34 56 78", .phone), ("(555) 123-4567", .phone), ("3fa9c2e1b0d4", .hex), ("#1a2b3c", .hex),
        ("2.AAAAAAAAAAAAAAAAAAAAAA==|aGVsbG8gd29ybGQ=|x9Kq", .ciphertext), ("JBSWY3DPEHPK3PXPJBSWY3DP", .ciphertext),
        ("Siobhán Kelly", .name), ("Jean-Luc O'Brien", .name), ("Home", .name), ("iPhone 13", .text), ("Siobhán's iPad", .text),
        ("active", .word), ("my first dog's name", .text), ("A-7", .text),
    ])
    func aValueHasAKindByItsShape(value: String, kind: ValueKind) {
        #expect(ValueKind.of(value) == kind)
    }

    @Test func theValuesDecideAndTheNameOnlyWhereTheyDoNot() {
        func rule(_ table: String, _ column: String, _ values: [String]) -> String {
            let suggested = CorpusInit.suggestion(table: table, column: column, affinity: .text, values: values.map { .text($0) })
            return suggested.label + ": " + suggested.reason
        }
        // A code of digits of one length; numbers of several lengths are kept.
        #expect(rule("users", "email", (0..<40).map { String(format: "%06d", $0 * 7919 % 1_000_000) }) == "pseudonym (digits): 6-digit code: 40 of 40 sampled values (digits keeps the length)")
        #expect(rule("t", "amount", ["1", "22", "333", "4.5"]) == "keep: number: 4 of 4 sampled values")
        // Ciphertext in a column named like a name, device names in a column named name.
        #expect(rule("users", "name", (0..<10).map { "2.Q\($0)Zm9vYmFyYmF6cXV4|cXV1eA==|bWFj" }) == "keep: base64 or ciphertext: 10 of 10 sampled values")
        #expect(rule("devices", "name", ["Chrome", "iPhone 13", "Pixel 7", "Firefox"]) == "fake (text): free text: 4 of 4 sampled values")
        #expect(rule("organizations", "name", ["Home", "Acme Corp"]) == "fake (text): capitalized words that name a thing (organizations.name): 2 of 2 sampled values")
        #expect(rule("people", "first_name", ["Ann", "Bob"]) == "fake (first-name): person name: 2 of 2 sampled values")
        // Categories are kept once there are enough values to tell; values of several kinds leave a TODO.
        #expect(rule("t", "state", (0..<30).map { ["open", "closed"][$0 % 2] }) == "keep: a few words repeated: 2 distinct in 30 sampled values")
        #expect(rule("t", "misc", ["ann@example.org", "550e8400-e29b-41d4-a716-446655440000", "2024-01-01"]) == "TODO: values of several kinds: 1 date or timestamp, 1 e-mail, 1 uuid of 3 sampled")
        #expect(rule("t", "work_email", ["ann@example.org", "550e8400-e29b-41d4-a716-446655440000"]) == "pseudonym (email): the column's name (values of several kinds: 1 e-mail, 1 uuid of 2 sampled)")
    }
}
