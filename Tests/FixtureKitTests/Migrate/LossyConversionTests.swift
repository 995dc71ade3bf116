import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// A value is preserved when it reads back as the same value: text stored as a
/// number must convert back to the very same text.
@Suite struct LossyConversionTests {
    /// A source value in a column of `sourceType`, and what a stage made of it
    /// (`migrated`, an SQL expression over `v`) in a column of `targetType`.
    struct Case: Sendable, CustomTestStringConvertible {
        var source: String
        var sourceType = "TEXT"
        var targetType: String
        var migrated = "v"
        var same: Bool
        var testDescription: String { "\(source) \(sourceType) -> \(migrated) \(targetType)" }
    }

    /// The cases of one conversion: each value of `same` reads back as itself, no value of `changed` does.
    static func conversion(_ sourceType: String = "TEXT", to targetType: String, by migrated: String = "v", same: [String] = [], changed: [String] = []) -> [Case] {
        same.map { Case(source: $0, sourceType: sourceType, targetType: targetType, migrated: migrated, same: true) }
            + changed.map { Case(source: $0, sourceType: sourceType, targetType: targetType, migrated: migrated, same: false) }
    }

    static let cases: [Case] = [
        // Text into an INTEGER column, by its affinity; '0x10' is not a number: stays text, the same text.
        conversion(to: "INTEGER", same: ["'42'", "'-7'", "'3.5'", "'0x10'"], changed: ["'01234'", "'007'", "' 77 '", "'1e3'", "'5.0'", "'+5'"]),
        // Converted by the stage.
        conversion(to: "INTEGER", by: "CAST(v AS INTEGER)", same: ["'42'"], changed: ["'0x10'", "'3.5'"]),
        conversion(to: "TEXT", by: "CAST(CAST(v AS INTEGER) AS TEXT)", changed: ["'01234'"]),
        // Text into a REAL column.
        conversion(to: "REAL", same: ["'3.5'", "'0.1'", "'100'", "'5.0'"], changed: ["'1e3'", "'1.50'"]),
        // Date text and INTEGER seconds: the same instant.
        conversion(to: "INTEGER", by: "CAST(strftime('%s', v) AS INTEGER)", same: ["'2024-01-02T10:00:00Z'", "'2024-01-02 10:00:00'"]),
        conversion(to: "INTEGER", by: "CAST(strftime('%s', v) AS INTEGER) + 1", changed: ["'2024-01-02T10:00:00Z'"]),
        // Numbers into text and into the other kind of number.
        conversion("INTEGER", to: "TEXT", same: ["42"]),
        conversion("INTEGER", to: "TEXT", by: "'0' || v", changed: ["42"]),
        conversion("INTEGER", to: "REAL", same: ["3"]),
        conversion("REAL", to: "INTEGER", by: "CAST(v AS INTEGER)", changed: ["3.5"]),
        conversion("REAL", to: "TEXT", same: ["3.5"]),
        // Text and bytes are never the same value; NULL is only NULL.
        conversion(to: "BLOB", by: "CAST(v AS BLOB)", changed: ["'AB'"]),
        conversion(to: "INTEGER", same: ["NULL"]),
        conversion(to: "INTEGER", by: "0", changed: ["NULL"]),
        conversion(to: "TEXT", by: "NULL", changed: ["'x'"]),
    ].flatMap { $0 }

    @Test(arguments: cases)
    func aValueIsPreservedWhenItReadsBackAsTheSameValue(_ test: Case) throws {
        let database = try Database(path: ":memory:")
        try database.execute("CREATE TABLE s (v \(test.sourceType)); CREATE TABLE m (v \(test.targetType))")
        try database.execute("INSERT INTO s VALUES (\(test.source)); INSERT INTO m SELECT \(test.migrated) FROM s")
        let same = try database.scalar("SELECT \(LossyConversion.sameValue("s.v", "m.v")) FROM s, m")
        #expect(same == .integer(test.same ? 1 : 0))
    }

    /// End to end: a stage that turns TEXT zip codes into INTEGER fails `data preserved`, naming the rows.
    @Test func aTextZipCodeTurnedIntoANumberFails() throws {
        let contacts = try ContactsCorpus(zips: ["10115", "01067", " 77 ", "1e3", "5.0", "42", "3.5", "0x10"])
        let path = try contacts.migrate()
        #expect(!path.passed)
        #expect(path.check("data preserved")?.message == "contacts.zip: 4 changed of 8 values (key 2: '01067' -> 1067; key 3: ' 77 ' -> 77; key 4: '1e3' -> 1000; key 5: '5.0' -> 5)")
        let zip = try #require(path.preservation.first { $0.column == "zip" })
        #expect((zip.compared, zip.equal, zip.changed) == (8, 4, 4))
        // Declared derived, the conversion is accepted.
        try contacts.writeConfig { config in
            var changes = config["changes"] as? [String: Any] ?? [:]
            changes["contacts.zip"] = "derived"
            config["changes"] = changes
        }
        #expect(try contacts.migrate().passed)
    }
}
