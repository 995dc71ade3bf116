import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// Rules resolve names as SQLite does, every column that can hold text is a
/// decision, strategies refuse what they cannot keep, and the data profile
/// catches what a strategy did not keep.
@Suite struct AnonymizationRulesTests {
    static let environment = AnonymizationStructureTests.environment

    /// Anonymizes `App.sqlite`, made by `statements`, with `rules`, into `out.sqlite`.
    func run(_ statements: [String], rules: String, json: Bool = false) throws -> (folder: TemporaryFolder, result: RunResult) {
        try AnonymizeTests.anonymizeStore(statements, rules: rules, json: json)
    }

    @Test(arguments: [
        ("users", "email"), ("USERS", "EMAIL"), ("Users", "Email"), ("uSeRs", "eMaIl"),
    ])
    func aRuleNamesATableAndColumnWhateverTheirCase(table: String, column: String) throws {
        let (folder, result) = try run([
            "CREATE TABLE \"Users\" (id INTEGER PRIMARY KEY, \"Email\" TEXT UNIQUE, note TEXT)",
            "INSERT INTO Users (Email, note) VALUES ('zebulon.quackenbush@planted-mail.org', 'x'), ('Ottilie@planted-mail.org', 'y')",
        ], rules: #"{"strict": true, "tables": {"\#(table)": {"\#(column)": {"strategy": "pseudonym", "format": "email"}, "note": "keep", "id": "keep"}}}"#)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(!result.standardError.contains("note: the store has no"))
        #expect(result.standardError.contains("  Users.Email  pseudonym   2 rows changed\n"), "\(result.standardError)")
        let database = try Database(path: folder.url("out.sqlite"), options: .init(readOnly: true))
        #expect(try database.scalar("SELECT count(*) FROM Users WHERE Email LIKE 'user-%@example.invalid'") == .integer(2))
        #expect(try plantedValues(in: [folder.url("out.sqlite")]) == [])
    }

    @Test func twoEntriesNamingOneColumnAreRefused() throws {
        let (_, result) = try run(["CREATE TABLE users (email TEXT)"], rules: #"{"tables": {"users": {"email": "keep"}, "Users": {"EMAIL": "null"}}}"#)
        #expect(result.status == 2)
        #expect(result.standardError.hasSuffix("rules.json: tables.Users.EMAIL and tables.users.email name the same column (SQLite compares names without regard to case): give it one rule\n"), "\(result.standardError)")
        let todo = try run(["CREATE TABLE users (email TEXT)"], rules: #"{"tables": {"users": {"email": "TODO", "Email": "keep"}}}"#)
        #expect(todo.result.status == 2)
        #expect(todo.result.standardError.contains("tables.users.Email and tables.users.email name the same column"), "\(todo.result.standardError)")
    }

    @Test func everyColumnAUserCanWriteTextIntoIsADecisionInStrictMode() throws {
        let (folder, result) = try run([
            "CREATE TABLE places (id INTEGER PRIMARY KEY, label TEXT) WITHOUT ROWID",
            "CREATE VIRTUAL TABLE zones USING rtree(id, minX, maxX, +owner, +note)",
            "CREATE VIRTUAL TABLE search USING fts5(body)",
            "CREATE VIRTUAL TABLE old_search USING fts4(content)",
            "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, full AS (upper(name)))",
            "INSERT INTO zones VALUES (1, 0, 1, 'zebulon.quackenbush@planted-mail.org', 'a note')",
            "INSERT INTO search (body) VALUES ('Zebulon confided his xylophonic divorce')",
        ], rules: #"{"strict": true, "tables": {"places": {"label": "keep"}, "people": {"name": "keep"}}}"#)
        #expect(result.status == 2)
        #expect(result.standardError == "fixturekit: anonymize: \(folder.url("App.sqlite")): strict: no rule for 4 columns: old_search.content, search.body, zones.note, zones.owner (hint: give each a rule in \(folder.url("rules.json")), or \"keep\")\n")
        #expect(!FileManager.default.fileExists(atPath: folder.url("out.sqlite")))

        // With rules, the R*Tree's auxiliary column is rewritten like any other.
        let (done, rewritten) = try run([
            "CREATE VIRTUAL TABLE zones USING rtree(id, minX, maxX, +owner)",
            "INSERT INTO zones VALUES (1, 0, 1, 'zebulon.quackenbush@planted-mail.org'), (2, 1, 2, 'Ottilie Vandermeer')",
        ], rules: #"{"strict": true, "tables": {"zones": {"owner": {"strategy": "fake", "kind": "name"}}}}"#)
        #expect(rewritten.status == 0, "\(rewritten.standardError)")
        #expect(try plantedValues(in: [done.url("out.sqlite")]) == [])
    }

    @Test func maskAndValueOnAUniqueColumnAreRefusedBeforeAnythingIsWritten() throws {
        let store = ["CREATE TABLE cards (id INTEGER PRIMARY KEY, number TEXT UNIQUE, code TEXT)", "CREATE UNIQUE INDEX cards_code ON cards (code)",
                     "INSERT INTO cards (number, code) VALUES ('4111111111111111', 'A1'), ('4111111111111112', 'A2')"]
        let mask = try run(store, rules: #"{"tables": {"cards": {"number": {"strategy": "mask", "keepLast": 4}}}}"#)
        #expect(mask.result.status == 2)
        #expect(mask.result.standardError == "fixturekit: anonymize: \(mask.folder.url("App.sqlite")): cards.number: mask gives different values the same output, and UNIQUE constraint (sqlite_autoindex_cards_1) needs its values distinct (hint: use pseudonym, which keeps them distinct (format digits keeps lengths and separators), or null)\n")
        #expect(!FileManager.default.fileExists(atPath: mask.folder.url("out.sqlite")))
        let value = try run(store, rules: #"{"tables": {"cards": {"code": {"strategy": "value", "value": "X"}}}}"#)
        #expect(value.result.status == 2)
        #expect(value.result.standardError.contains(": cards.code: value writes one constant into every row, and UNIQUE index cards_code needs its values distinct (hint: "), "\(value.result.standardError)")
        // The pseudonym keeps them distinct; null is allowed (NULLs do not collide).
        #expect(try run(store, rules: #"{"tables": {"cards": {"number": {"strategy": "pseudonym", "format": "digits"}, "code": "null"}}}"#).result.status == 0)
    }

    @Test(arguments: [
        (#"{"strategy": "mask", "keepFirst": 2}"#, "mask"), (#"{"strategy": "value", "value": "X"}"#, "value"),
    ])
    func maskAndValueThatMakeTwoRowsOfASeveralColumnKeyEqualAreNamed(rule: String, strategy: String) throws {
        // Allowed on a constraint of several columns (the other column may keep the
        // rows apart); refused, naming the constraint's columns, where it does not.
        let schema = "CREATE TABLE codes (id INTEGER PRIMARY KEY, team INTEGER, code TEXT, UNIQUE (team, code))"
        let rules = #"{"tables": {"codes": {"code": \#(rule)}}}"#
        let apart = try run([schema, "INSERT INTO codes (team, code) VALUES (1, 'AB12'), (2, 'AB34')"], rules: rules)
        #expect(apart.result.status == 0, "\(apart.result.standardError)")
        let (folder, result) = try run([schema, "INSERT INTO codes (team, code) VALUES (1, 'AB12'), (1, 'AB34'), (2, 'AB12')"], rules: rules)
        #expect(result.status == 2)
        #expect(result.standardError == "fixturekit: anonymize: \(folder.url("App.sqlite")): codes.code (\(strategy)): gave two rows one key, which SQLite refused: UNIQUE constraint failed: codes.team, codes.code; nothing was written (hint: mask and value give different values one output: use pseudonym, which keeps them distinct, or null)\n")
        #expect(!FileManager.default.fileExists(atPath: folder.url("out.sqlite")))
    }

    @Test func aCollationSQLiteDoesNotDefineIsRefused() throws {
        // A custom collation exists only in the app that declared it: the store
        // is made with it, and fixturekit must not guess which values it makes equal.
        // Made here with NOCASE, then renamed in the schema, as fixturekit meets such a store.
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.url("App.sqlite"), options: .init(create: true))
        try database.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT, name TEXT COLLATE NOCASE); CREATE INDEX users_email ON users (email COLLATE NOCASE); INSERT INTO users (email, name) VALUES ('a@example.org', 'Ann')")
        try database.execute("PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql, 'NOCASE', 'UNICODE_CI'); PRAGMA writable_schema = OFF")
        try database.close()
        let rules = try folder.write("rules.json", #"{"tables": {"users": {"email": {"strategy": "pseudonym", "format": "email"}, "name": "keep"}}}"#)
        let result = fixturekit(["anonymize", folder.url("App.sqlite"), "--rules", rules, "-o", folder.url("out.sqlite")], environment: Self.environment)
        #expect(result.status == 2)
        #expect(result.standardError == "fixturekit: anonymize: \(folder.url("App.sqlite")): users.email: collation UNICODE_CI (of index users_email) is not one of SQLite's own (BINARY, NOCASE, RTRIM): fixturekit cannot tell which values it makes equal, so it cannot keep them equal and distinct (hint: give the column \"keep\", or \"null\")\n")
        #expect(!FileManager.default.fileExists(atPath: folder.url("out.sqlite")))
    }

    @Test func aStrategyThatCollapsesValuesFailsTheRunNamingTheColumn() throws {
        // Digits keep letters as they are, so two codes without a digit that differ
        // only in case (two values under BINARY) both become the same digits.
        let (folder, result) = try run([
            "CREATE TABLE vouchers (id INTEGER PRIMARY KEY, code TEXT)",
            "INSERT INTO vouchers (code) VALUES ('abc'), ('ABC'), ('x-1'), (NULL)",
        ], rules: #"{"tables": {"vouchers": {"code": {"strategy": "pseudonym", "format": "digits"}}}}"#)
        #expect(result.status == 1)
        #expect(result.standardError == "fixturekit: anonymize: \(folder.url("App.sqlite")): the rules changed what a migration may depend on: vouchers.code: distinct values under BINARY: 3 before, 2 after (duplicate groups 0 before, 1 after) (hint: two values got one output, or equal values different ones: give the column a format with more values (hex, uuid, email), or keep it)\n")
        #expect(!FileManager.default.fileExists(atPath: folder.url("out.sqlite")))
    }

    @Test func claimsKeepANarrowFormatFromCollapsingValues() throws {
        // 3000 four-digit codes and 300 names: without claims, collisions are certain.
        let statements = [
            "CREATE TABLE badges (id INTEGER PRIMARY KEY, code TEXT, holder TEXT)",
            "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 2999) INSERT INTO badges (code, holder) SELECT printf('B-%04d', i * 3 % 10000), 'Person ' || (i % 300) FROM n",
        ]
        let rules = #"{"tables": {"badges": {"code": {"strategy": "pseudonym", "format": "digits"}, "holder": {"strategy": "fake", "kind": "first-name"}}}}"#
        let (folder, result) = try run(statements, rules: rules, json: true)
        #expect(result.status == 0, "\(result.standardError)")
        let database = try Database(path: folder.url("out.sqlite"), options: .init(readOnly: true))
        #expect(try database.scalar("SELECT count(DISTINCT code) FROM badges") == .integer(3000))
        #expect(try database.scalar("SELECT count(DISTINCT holder) FROM badges") == .integer(300))
        #expect(try database.scalar("SELECT count(*) FROM badges WHERE code NOT GLOB 'B-[0-9][0-9][0-9][0-9]'") == .integer(0))
        let report = try JSONDecoder().decode(AnonymizationReport.self, from: Data(result.standardOutput.utf8))
        let code = try #require(report.profile?.columns["badges.code"])
        #expect(code.before == nil && code.counts.distinct == ["BINARY": 3000] && code.counts.minLength == 6 && code.counts.maxLength == 6)
    }

    @Test func noiseKeepsInfinitiesAndNeverOverflowsOrMakesNULL() throws {
        let values = ["9e999", "-9e999", "1e308", "-1e308", "1.7976931348623157e308", "-0.0", "0.0", "5e-324", "42"]
        let (folder, result) = try run([
            "CREATE TABLE readings (id INTEGER PRIMARY KEY, value REAL, amount INTEGER)",
            "INSERT INTO readings (value, amount) VALUES " + values.map { "(\($0), 9223372036854775807)" }.joined(separator: ", "),
        ], rules: #"{"tables": {"readings": {"value": {"strategy": "noise", "ratio": 1}, "amount": {"strategy": "noise", "amount": 1e300}}}}"#)
        #expect(result.status == 0, "\(result.standardError)")
        let database = try Database(path: folder.url("out.sqlite"), options: .init(readOnly: true))
        let rows = try database.rows("SELECT value, amount FROM readings ORDER BY id")
        #expect(rows.count == values.count)
        for (row, original) in zip(rows, values) {
            guard case .real(let value) = row[0] else { Issue.record("\(original) became \(row[0])"); continue }
            let number = Double(original)!
            if number.isInfinite { #expect(value == number) } else { #expect(value.isFinite, "\(original) -> \(value)") }
            if number == 0 { #expect(value == 0) }
            #expect(row[1].integer != nil)
        }
    }

    /// The fast path's mask in place gives the bytes of the reference mask
    /// between kept spaces: every text of up to 7 bytes drawn from a space,
    /// two letters and a digit, with 0 to 3 bytes kept at each end.
    @Test func theMaskInPlaceIsTheReferenceMask() {
        let alphabet: [UInt8] = Array(" ab7".utf8)
        var texts: [[UInt8]] = [[]]
        var level: [[UInt8]] = [[]]
        for _ in 1...7 {
            level = level.flatMap { text in alphabet.map { text + [$0] } }
            texts += level
        }
        var compared = 0
        for text in texts {
            for keepFirst in 0...3 {
                for keepLast in 0...3 {
                    var expected: [UInt8] = []
                    text.withUnsafeBufferPointer { input in
                        ValueTransforms.keepingSpaces(input, into: &expected) { core, output in
                            ValueTransforms.mask(keepFirst: keepFirst, keepLast: keepLast, fill: UInt8(ascii: "*"), input: core, into: &output)
                        }
                    }
                    var inPlace = text
                    inPlace.withUnsafeMutableBufferPointer { ValueTransforms.maskInPlace(keepFirst: keepFirst, keepLast: keepLast, fill: UInt8(ascii: "*"), $0) }
                    #expect(inPlace == expected, "\(String(decoding: text, as: UTF8.self)) keepFirst \(keepFirst) keepLast \(keepLast)")
                    compared += 1
                }
            }
        }
        #expect(compared == 16 * 21_845)
    }
}
