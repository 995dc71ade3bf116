import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitSQLite
@testable import FixtureKitTool
@testable import FixtureKitTestSupport

/// One escaper per format: every text of the JUnit file goes through
/// ``Markup/xml``, every text of the HTML page through ``Markup/html``, and
/// JSON through Foundation's encoder; so each writes `'`, and everything else
/// it escapes, one way wherever the text comes from.
@Suite struct EscapingTests {
    /// `'` in every text a migration report holds.
    static func reportWithApostrophes() -> MigrationReport {
        let text = "x'y"
        var stage = CheckResult(.stage(from: "1.0.0", to: text), passed: false, message: text, statement: text, seconds: 1)
        stage.warnings = [text]
        stage.connection = ConnectionSettings(foreignKeys: true, environment: ["TZ": text])
        var path = PathResult(
            id: "1.0.0 -> \(text)", kind: .path, source: "1.0.0", target: text, passed: false, seconds: 1,
            checks: [CheckResult(.fixtureVerifies(version: "1.0.0"), passed: true), stage, CheckResult(.configured(name: text), passed: false, message: text)],
            schemaDifferences: [text],
            preservation: [ColumnPreservation(
                table: text, column: text, compared: 2, equal: 1, lost: 0, nulled: 0, emptied: 0, truncated: 0, changed: 1,
                exampleKeys: [text], passed: false, finding: text, exampleValues: [ValueChange(key: text, before: text, after: text)])],
            preservationSeconds: 0, alsoFor: [text])
        path.unchecked = [UncheckedValues(table: text, column: text, reason: .new, why: text)]
        path.outOfRange = [text]
        return MigrationReport(current: text, shard: text, paths: [path])
    }

    @Test func eachFormatWritesAnApostropheOneWay() throws {
        let report = Self.reportWithApostrophes()
        // JUnit: `&apos;`, XML's own entity, and its template has no `'` of its own.
        let xml = report.junitXML()
        #expect(xml.contains("x&apos;y"))
        #expect(!xml.contains("'") && !xml.contains("&#39;"), "\(xml)")
        // HTML: `&#39;` (HTML 4 has no `&apos;`) wherever the text comes from; `'`
        // stays only in the page's own words (`this path's range`).
        let html = report.html(configuration: "x'y")
        #expect(html.contains("x&#39;y"))
        #expect(!html.contains("x'y") && !html.contains("&apos;"), "\(html)")
        // JSON: as it is (Foundation's encoder escapes only what JSON must).
        let json = report.rendered(.json)
        #expect(json.contains("\"x'y\"") && !json.contains("\\u0027"))
        // `sql --json`: the same.
        let rows = QueryText.json([QueryResult(columns: ["x'y"], rows: [[.text("x'y")], [.blob(Array("'".utf8))]])])
        #expect(rows == "[{\"x'y\":\"x'y\"},\n{\"x'y\":\"27\"}]\n")
    }

    /// Every character the markup escapers change, in each format.
    @Test func theMarkupEscapes() {
        let cases: [(String, xml: String, html: String)] = [
            ("&", "&amp;", "&amp;"), ("<", "&lt;", "&lt;"), (">", "&gt;", "&gt;"), ("\"", "&quot;", "&quot;"), ("'", "&apos;", "&#39;"),
            ("\n", "&#10;", "\n"), ("\t", "&#9;", "\t"), ("\r", "&#13;", "\u{FFFD}"),
            ("\u{0}", "\u{FFFD}", "\u{FFFD}"), ("\u{1B}", "\u{FFFD}", "\u{FFFD}"), ("\u{7F}", "\u{7F}", "\u{FFFD}"), ("\u{85}", "\u{85}", "\u{FFFD}"),
            ("\u{9F}", "\u{9F}", "\u{FFFD}"), ("\u{A0}", "\u{A0}", "\u{A0}"), ("\u{FFFE}", "\u{FFFD}", "\u{FFFD}"), ("\u{FFFF}", "\u{FFFD}", "\u{FFFD}"),
            ("é日😀", "é日😀", "é日😀"),
        ]
        for (text, xml, html) in cases {
            #expect(Markup.xml.escape("a" + text + "b") == "a" + xml + "b", "\(Array(text.unicodeScalars))")
            #expect(Markup.html.escape("a" + text + "b") == "a" + html + "b", "\(Array(text.unicodeScalars))")
        }
    }

    /// No other code of the reports writes an entity: each format has its one escaper.
    @Test func onlyTheEscapersWriteEntities() throws {
        let sources = repositoryRoot.appendingPathComponent("Sources")
        let walker = try #require(FileManager.default.enumerator(atPath: sources.path))
        var found: [String] = []
        for case let relative as String in walker where relative.hasSuffix(".swift") && relative != "FixtureKit/Migrate/Markup.swift" {
            let text = try String(contentsOf: sources.appendingPathComponent(relative), encoding: .utf8)
            for entity in ["&apos;", "&#39;", "&quot;", "&amp;", "&lt;", "&gt;", "\\\\u%04x"] where text.contains(entity) {
                found.append("\(relative): \(entity)")
            }
        }
        #expect(found == [], "\(found)")
    }
}
