import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// Declared moves and renames are followed value by value: a moved value lost,
/// NULLed or changed fails like any other; renamed tables and columns are
/// compared under their new names.
@Suite struct MigrateMovesTests {
    static func finding(_ path: PathResult) -> String? { path.check("data preserved")?.message }

    @Test func aMoveThatCarriesEveryValuePasses() throws {
        let contacts = try ContactsCorpus()
        let path = try contacts.migrate()
        #expect(path.passed, "\(String(describing: path.firstFailure))")
        let phone = try #require(path.preservation.first { $0.column == "phone" })
        #expect(phone.movedTo == "phones.number")
        #expect((phone.compared, phone.equal, phone.moved, phone.lost, phone.nulled, phone.changed) == (6, 6, 6, 0, 0, 0))
        // The renamed column is compared under its new name.
        let name = try #require(path.preservation.first { $0.column == "fullname" })
        #expect((name.compared, name.equal) == (8, 8))
        #expect(path.check("row counts")?.passed == true)
    }

    @Test func aMoveThatLosesValuesFailsNamingTheColumnAndKeys() throws {
        let contacts = try ContactsCorpus()
        try contacts.writeStage(ContactsCorpus.stage.replacingOccurrences(of: "WHERE phone IS NOT NULL", with: "WHERE phone IS NOT NULL AND id > 2"))
        let path = try contacts.migrate()
        #expect(!path.passed)
        #expect(Self.finding(path) == "contacts.phone -> phones.number: 2 lost of 6 values (key 1: (personal) -> no row; key 2: (personal) -> no row)")
        let phone = try #require(path.preservation.first { $0.column == "phone" })
        #expect((phone.compared, phone.equal, phone.moved, phone.lost) == (6, 4, 4, 2))
    }

    @Test func movedValuesNulledOrChangedFail() throws {
        let contacts = try ContactsCorpus()
        try contacts.writeStage(ContactsCorpus.stage + "\nUPDATE phones SET number = NULL WHERE contact_id = 3;\nUPDATE phones SET number = '+49 30 555 09' WHERE contact_id = 5;\n")
        let path = try contacts.migrate()
        #expect(Self.finding(path) == "contacts.phone -> phones.number: 1 became NULL, 1 changed of 6 values (key 3: (personal) -> NULL; key 5: (personal) -> (personal))")
    }

    @Test func aMovedValueFoundByAnotherKeyIsLost() throws {
        // Every number arrives, but under the wrong contact: matched by key, they are all lost or changed.
        let contacts = try ContactsCorpus()
        try contacts.writeStage(ContactsCorpus.stage.replacingOccurrences(of: "SELECT id, phone FROM contacts", with: "SELECT 7 - id, phone FROM contacts"))
        let path = try contacts.migrate()
        #expect(Self.finding(path) == "contacts.phone -> phones.number: 6 changed of 6 values (key 1: (personal) -> (personal); key 2: (personal) -> (personal); key 3: (personal) -> (personal); key 4: (personal) -> (personal); key 5: (personal) -> (personal))")
    }

    @Test func aMoveNotDeclaredFailsAsAGoneColumn() throws {
        let contacts = try ContactsCorpus()
        try contacts.writeConfig { $0["changes"] = nil }
        let path = try contacts.migrate()
        #expect(Self.finding(path) == "contacts.phone: gone with 6 non-NULL values (declare it \"dropped\" in changes)")
    }

    @Test func renamesPassWhenDeclaredAndFailWhenNot() throws {
        let contacts = try ContactsCorpus()
        try contacts.writeConfig { $0["renames"] = nil }
        let path = try contacts.migrate()
        #expect(Self.finding(path) == "contacts.fullname: gone with 8 non-NULL values (declare it \"dropped\" in changes)\ntable tags: gone with its 2 rows (declare it \"dropped\" in changes)")
        #expect(path.check("row counts")?.message == "tags: 2 rows in 1.0.0, the table is gone (declare it \"dropped\" in counts)")
        // Declared, they pass (aMoveThatCarriesEveryValuePasses); a renamed column whose values changed still fails.
        try contacts.writeConfig()
        try contacts.writeStage(ContactsCorpus.stage + "\nUPDATE contacts SET name = upper(name) WHERE id = 2;\nDELETE FROM labels WHERE name = 'work';\n")
        let changed = try contacts.migrate()
        #expect(Self.finding(changed) == "contacts.fullname -> name: 1 changed of 8 values (key 2: (personal) -> (personal))\ntags: 1 of 2 rows lost (keys 2)")
        #expect(changed.check("row counts")?.message == "tags: 2 rows in 1.0.0, 1 after the migration")
    }

    @Test func theSchemaCheckAcceptsDeclaredRenames() throws {
        let contacts = try ContactsCorpus()
        let path = try contacts.migrate()
        #expect(path.check("schema matches 2.0.0")?.passed == true)
        #expect(path.schemaDifferences.isEmpty)
    }

    /// Moves and renames that name what does not exist are refused before anything runs.
    @Test func declarationsThatNameNothingAreConfigurationErrors() throws {
        let contacts = try ContactsCorpus()
        let cases: [((inout [String: Any]) -> Void, String)] = [
            ({ $0["changes"] = ["contacts.fax": ["movedTo": "phones.number", "key": "phones.contact_id"]] },
             "changes[\"contacts.fax\"] moves contacts.fax, which is not a column of any supported version (1.0.0)"),
            ({ $0["changes"] = ["contacts.phone": ["movedTo": "phones.numbr", "key": "phones.contact_id"]] },
             "changes[\"contacts.phone\"].movedTo: phones.numbr is not a column of 2.0.0"),
            ({ $0["changes"] = ["contacts.phone": ["movedTo": "phones.number", "key": "phones.person"]] },
             "changes[\"contacts.phone\"].key: phones.person is not a column of 2.0.0"),
            ({ $0["renames"] = ["contacts.fullname": "contacts.nme"] }, "renames[\"contacts.fullname\"]: contacts.nme is not a column of 2.0.0"),
            // A table no fixture has is found first, with the tables there are.
            ({ $0["renames"] = ["tag": "labels"] }, "renames: \"tag\" names a table no fixture has (hint: the fixtures' tables are contacts, labels, phones, tags)"),
            // A table of the current version only is no table to rename.
            ({ $0["renames"] = ["phones": "labels"] }, "renames[\"phones\"]: phones is not a table of any supported version (1.0.0)"),
            ({ $0["renames"] = ["tags": "label"] }, "renames[\"tags\"]: label is not a table of 2.0.0"),
        ]
        for (edit, why) in cases {
            try contacts.writeConfig(edit)
            let result = fixturekit("migrate", "--config", contacts.config)
            #expect(result.status == 2)
            #expect(result.standardError == "fixturekit: read configuration: \(contacts.config): \(why)\n")
        }
    }

    @Test func malformedMovesAndRenamesAreRefusedOnLoad() throws {
        let contacts = try ContactsCorpus()
        let cases: [((inout [String: Any]) -> Void, String)] = [
            ({ $0["changes"] = ["contacts.phone": ["movedTo": "phones.number", "key": "phones.contact_id", "keys": "x"]] },
             "changes[\"contacts.phone\"]: unknown key \"keys\" (one of key, movedTo)"),
            ({ $0["changes"] = ["contacts.phone": ["movedTo": "phones", "key": "phones.contact_id"]] },
             "changes[\"contacts.phone\"].movedTo is \"phones\"; it must be table.column"),
            ({ $0["changes"] = ["contacts.phone": ["movedTo": "phones.number", "key": "contacts.id"]] },
             "changes[\"contacts.phone\"].key is \"contacts.id\"; it must be a column of phones, phones.column"),
            ({ $0["changes"] = ["contacts.phone": ["movedTo": "phones.number"]] }, "changes.contacts.phone.key is missing"),
            ({ $0["changes"] = ["contacts.phone": "moved"] },
             "changes[\"contacts.phone\"] is \"moved\"; it must be derived, dropped, unordered or excluded, or a move {\"movedTo\": \"table.column\", \"key\": \"table.column\"}"),
            ({ $0["renames"] = ["contacts.fullname": "name"] }, "renames[\"contacts.fullname\"] is \"name\"; a column's new name is contacts.column"),
            ({ $0["renames"] = ["tags": "x.labels"] }, "renames[\"tags\"] is \"x.labels\"; a table's new name is a table name"),
            ({ $0["renames"] = ["tags", "labels"] }, "renames has the wrong type"),
        ]
        for (edit, why) in cases {
            try contacts.writeConfig(edit)
            let result = fixturekit("migrate", "--config", contacts.config)
            #expect(result.status == 2, "\(why)")
            #expect(result.standardError == "fixturekit: read configuration: \(contacts.config): \(why)\n")
        }
    }
}

/// The published schema takes the new declarations the parser takes, and refuses what it refuses.
@Suite struct DeclarationsSchemaTests {
    static func parse(_ text: String) -> String? {
        do { _ = try CorpusConfiguration.parse(Array(text.utf8), path: "f.json"); return nil } catch { return error.description }
    }

    @Test func theSchemaFollowsTheParser() throws {
        let schema = try JSONSchema.configuration()
        let base = #""store": "App.sqlite", "current": "2.0.0", "supported": ["1.0.0"], "stages": [{"from": "1.0.0", "to": "2.0.0", "sql": "a.sql"}]"#
        let taken = [
            #"{\#(base), "checks": [{"name": "n", "sql": "SELECT 1", "expectSQL": "SELECT 1 FROM source.t", "from": ["1.0.0"]}, {"name": "e", "sql": "SELECT 1", "expect": "empty"}]}"#,
            #"{\#(base), "changes": {"c.phone": {"movedTo": "phones.number", "key": "phones.contact_id"}, "c.x": "derived"}, "renames": {"tags": "labels", "c.fullname": "c.name"}}"#,
        ]
        for text in taken {
            #expect(Self.parse(text) == nil, "\(text)")
            #expect(schema.faults(of: try JSONSerialization.jsonObject(with: Data(text.utf8))).isEmpty, "\(text)")
        }
        let refused = [
            #"{\#(base), "checks": [{"name": "n", "sql": "SELECT 1", "expect": 1, "expectSQL": "SELECT 1"}]}"#,
            #"{\#(base), "checks": [{"name": "n", "sql": "SELECT 1", "expect": 1, "from": []}]}"#,
            #"{\#(base), "checks": [{"name": "n", "sql": "SELECT 1", "expect": 1, "from": ["1.0"]}]}"#,
            #"{\#(base), "changes": {"c.phone": {"movedTo": "phones.number", "key": "phones.contact_id", "x": 1}}}"#,
            #"{\#(base), "changes": {"c.phone": {"movedTo": "phones", "key": "phones.contact_id"}}}"#,
            #"{\#(base), "changes": {"c.phone": {"movedTo": "phones.number"}}}"#,
            #"{\#(base), "renames": {"tags": 1}}"#,
            #"{\#(base), "renames": {"c.fullname": "a.b.c"}}"#,
        ]
        for text in refused {
            #expect(Self.parse(text) != nil, "the parser takes \(text)")
            #expect(!schema.faults(of: try JSONSerialization.jsonObject(with: Data(text.utf8))).isEmpty, "the schema takes \(text)")
        }
    }
}
