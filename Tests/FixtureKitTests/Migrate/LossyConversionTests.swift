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

    static let cases: [Case] = [
        // Text into an INTEGER column, by its affinity.
        Case(source: "'42'", targetType: "INTEGER", same: true),
        Case(source: "'-7'", targetType: "INTEGER", same: true),
        Case(source: "'01234'", targetType: "INTEGER", same: false),
        Case(source: "'007'", targetType: "INTEGER", same: false),
        Case(source: "' 77 '", targetType: "INTEGER", same: false),
        Case(source: "'1e3'", targetType: "INTEGER", same: false),
        Case(source: "'5.0'", targetType: "INTEGER", same: false),
        Case(source: "'+5'", targetType: "INTEGER", same: false),
        Case(source: "'3.5'", targetType: "INTEGER", same: true),
        // Not a number: stays text, the same text.
        Case(source: "'0x10'", targetType: "INTEGER", same: true),
        // Converted by the stage.
        Case(source: "'0x10'", targetType: "INTEGER", migrated: "CAST(v AS INTEGER)", same: false),
        Case(source: "'42'", targetType: "INTEGER", migrated: "CAST(v AS INTEGER)", same: true),
        Case(source: "'3.5'", targetType: "INTEGER", migrated: "CAST(v AS INTEGER)", same: false),
        Case(source: "'01234'", targetType: "TEXT", migrated: "CAST(CAST(v AS INTEGER) AS TEXT)", same: false),
        // Text into a REAL column.
        Case(source: "'3.5'", targetType: "REAL", same: true),
        Case(source: "'0.1'", targetType: "REAL", same: true),
        Case(source: "'100'", targetType: "REAL", same: true),
        Case(source: "'5.0'", targetType: "REAL", same: true),
        Case(source: "'1e3'", targetType: "REAL", same: false),
        Case(source: "'1.50'", targetType: "REAL", same: false),
        // Date text and INTEGER seconds: the same instant.
        Case(source: "'2024-01-02T10:00:00Z'", targetType: "INTEGER", migrated: "CAST(strftime('%s', v) AS INTEGER)", same: true),
        Case(source: "'2024-01-02 10:00:00'", targetType: "INTEGER", migrated: "CAST(strftime('%s', v) AS INTEGER)", same: true),
        Case(source: "'2024-01-02T10:00:00Z'", targetType: "INTEGER", migrated: "CAST(strftime('%s', v) AS INTEGER) + 1", same: false),
        // Numbers into text and into the other kind of number.
        Case(source: "42", sourceType: "INTEGER", targetType: "TEXT", same: true),
        Case(source: "42", sourceType: "INTEGER", targetType: "TEXT", migrated: "'0' || v", same: false),
        Case(source: "3", sourceType: "INTEGER", targetType: "REAL", same: true),
        Case(source: "3.5", sourceType: "REAL", targetType: "INTEGER", migrated: "CAST(v AS INTEGER)", same: false),
        Case(source: "3.5", sourceType: "REAL", targetType: "TEXT", same: true),
        // Text and bytes are never the same value.
        Case(source: "'AB'", targetType: "BLOB", migrated: "CAST(v AS BLOB)", same: false),
        Case(source: "NULL", targetType: "INTEGER", same: true),
        Case(source: "NULL", targetType: "INTEGER", migrated: "0", same: false),
        Case(source: "'x'", targetType: "TEXT", migrated: "NULL", same: false),
    ]

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
        #expect(path.check("data preserved")?.message == "contacts.zip: 4 changed of 8 values (keys 2; 3; 4)")
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
