import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitModels
@testable import FixtureKitTool
@testable import FixtureKitTestSupport

/// Check results are typed: every report names, groups and times a check by its
/// kind, every kind renders in every format, `kind` is in the JSON in a stable
/// form, and no code that makes or reports checks matches on a name's text.
@Suite struct CheckKindTests {
    /// One kind of each type, where the HTML grid puts it, and what the summary's
    /// `time:` line says of its 0.25 s when it failed (`nil`: nothing).
    struct Example: Sendable, CustomTestStringConvertible {
        var kind: CheckKind
        var column: String
        var time: String?
        var testDescription: String { kind.tag.rawValue }
    }

    static let examples: [Example] = [
        Example(kind: .fixtureVerifies(version: "1.0.0"), column: "fixture verifies", time: "checks 0.25 s"),
        Example(kind: .copyFixture(version: "1.0.0"), column: "fixture verifies", time: "checks 0.25 s"),
        Example(kind: .chainOfStages(to: "3.0.0"), column: "stages", time: "checks 0.25 s"),
        Example(kind: .stage(from: "2.0.0", to: "3.0.0"), column: "stages", time: "stage 2.0.0 -> 3.0.0 0.25 s"),
        Example(kind: .openMigratedStore, column: "migrated store opens", time: "checks 0.25 s"),
        Example(kind: .readMigratedStore, column: "migrated store opens", time: "checks 0.25 s"),
        Example(kind: .lockMigratedStore, column: "migrated store opens", time: "checks 0.25 s"),
        Example(kind: .integrity, column: "integrity_<wbr>check", time: "integrity_check 0.25 s"),
        Example(kind: .foreignKeys, column: "foreign_<wbr>key_<wbr>check", time: "foreign_key_check 0.25 s"),
        Example(kind: .userVersion, column: "user_<wbr>version", time: nil),
        Example(kind: .version(target: "3.0.0"), column: "version", time: "checks 0.25 s"),
        Example(kind: .schema(target: "3.0.0"), column: "schema matches target", time: "schema 0.25 s"),
        Example(kind: .rowCounts, column: "row counts", time: nil),
        Example(kind: .dataPreserved, column: "data preserved", time: "data diff 0.25 s"),
        Example(kind: .configured(name: "no 'orphan' notes"), column: "no &#39;orphan&#39; notes", time: "checks 0.25 s"),
        Example(kind: .upgrade, column: "upgrade", time: "checks 0.25 s"),
        Example(kind: .lint(rule: "U001"), column: "lint", time: "checks 0.25 s"),
        Example(kind: .probe(kind: "order"), column: "probe order", time: "probe order 0.25 s"),
    ]

    @Test func theExamplesHoldEveryKind() {
        #expect(Set(Self.examples.map(\.kind.tag)) == Set(CheckKind.Tag.allCases))
    }

    /// A matrix of one path whose stage 1.0.0 -> 2.0.0 passed and whose `check` failed.
    static func report(failing check: CheckResult) -> MigrationReport {
        MigrationReport(current: "3.0.0", shard: nil, paths: [
            PathResult(
                id: "1.0.0 -> 3.0.0", kind: .path, source: "1.0.0", target: "3.0.0", passed: false, seconds: 1,
                checks: [CheckResult(.stage(from: "1.0.0", to: "2.0.0"), passed: true, seconds: 0.5), check],
                schemaDifferences: [], preservation: [], preservationSeconds: 0),
        ])
    }

    @Test(arguments: examples)
    func eachKindRendersInEveryFormat(example: Example) throws {
        let check = CheckResult(example.kind, passed: false, message: "went wrong\nsecond line", statement: "SELECT 1", seconds: 0.25)
        let name = check.name
        let report = Self.report(failing: check)

        // The summary: the failure under its name, its time where its kind puts it, stages counted by kind.
        let lines = MigrationText.lines(report, config: "fixturekit.json").map(\.0)
        let stages = example.kind.isStage ? "2 stages" : "1 stage"
        #expect(lines.contains("FAIL  1.0.0 -> 3.0.0  \(stages), 1.00 s (data diff 0.00 s)"), "\(lines)")
        #expect(lines.contains("      \(name): went wrong"), "\(lines)")
        #expect(lines.contains("        second line"), "\(lines)")
        let times = try #require(lines.first { $0.hasPrefix("      time: ") })
        #expect(times == "      time: stage 1.0.0 -> 2.0.0 0.50 s" + (example.time.map { ", " + $0 } ?? ""))

        // JSON: its kind, and its name beside it, read back as it was.
        let json = report.rendered(.json)
        #expect(json.contains("\"name\" : \"\(name)\""), "\(json)")
        #expect(json.contains("\"type\" : \"\(example.kind.tag.rawValue)\""), "\(json)")
        let decoded = try JSONDecoder().decode(MigrationReport.self, from: Data(json.utf8))
        #expect(decoded == report)
        #expect(decoded.paths[0].checks[1].kind == example.kind)

        // JUnit: a testcase named by the path and the check.
        let testcase = "<testcase classname=\"migrate.1.0.0\" name=\"\(Markup.xml.escape("1.0.0 -> 3.0.0: " + name))\" time=\"0.250\">\n"
            + "      <failure message=\"went wrong\">went wrong&#10;second line&#10;statement: SELECT 1</failure>\n    </testcase>\n"
        #expect(report.junitXML().contains(testcase), "\(report.junitXML())")

        // HTML: its column, a FAIL cell there, and the failure under its name.
        let html = report.html()
        let title = Markup.html.escape(name)
        #expect(html.contains("<th scope=\"col\">\(example.column)</th>"), "\(html)")
        #expect(html.contains("<td class=\"cell fail\" title=\"\(title): FAIL\"><a href=\"#path-1\">✗ FAIL</a></td>") || example.column == "stages", "\(html)")
        #expect(html.contains("<h4>✗ \(title)</h4>\n<pre class=\"message\">went wrong\nsecond line</pre>\n"), "\(html)")

        // upgrade's summary, for the same check.
        let upgrade = UpgradeResult(store: "App.sqlite", outcome: .restored, from: "1.0.0", to: "3.0.0", stages: [], checks: [check], removedBackups: [])
        #expect(UpgradeText.lines(upgrade).starts(with: ["upgrade: App.sqlite: 1.0.0 -> 3.0.0, 0 stages", "FAIL  \(name)", "      went wrong", "      second line"]))
    }

    /// Checks of one column share its cell: a stage that failed after one that
    /// passed is one FAIL under `stages`.
    @Test func twoStagesShareTheirColumn() {
        let report = Self.report(failing: CheckResult(.stage(from: "2.0.0", to: "3.0.0"), passed: false, message: "m"))
        #expect(report.html().contains(
            "<td class=\"cell fail\" title=\"stage 1.0.0 -&gt; 2.0.0: pass; stage 2.0.0 -&gt; 3.0.0: FAIL\"><a href=\"#path-1\">✗ FAIL</a></td>"))
    }

    /// A configured check named as a built-in check keeps a column of its own.
    @Test func aConfiguredCheckNamedAsABuiltInOneHasItsOwnColumn() {
        var report = Self.report(failing: CheckResult(.configured(name: "integrity_check"), passed: false, message: "m"))
        report.paths[0].checks.insert(CheckResult(.integrity, passed: true), at: 1)
        let html = report.html()
        #expect(html.components(separatedBy: "<th scope=\"col\">integrity_<wbr>check</th>").count - 1 == 2)
    }

    @Test func theJSONFormIsStable() throws {
        var check = CheckResult(.stage(from: "1.0.0", to: "2.0.0"), passed: false, message: "m", statement: "s", seconds: 0.5)
        check.warnings = ["w"]
        #expect(CanonicalJSON.encode(check)
            == #"{"kind":{"from":"1.0.0","to":"2.0.0","type":"stage"},"message":"m","name":"stage 1.0.0 -> 2.0.0","passed":false,"seconds":0.5,"statement":"s","warnings":["w"]}"#)
        // A fixture that does not verify is named without "verifies", as before.
        #expect(CanonicalJSON.encode(CheckResult(.fixtureVerifies(version: "1.0.0"), passed: false))
            == #"{"kind":{"type":"fixtureVerifies","version":"1.0.0"},"name":"fixture 1.0.0","passed":false}"#)
        let objects: [(CheckKind, String)] = [
            (.integrity, #"{"type":"integrity"}"#),
            (.copyFixture(version: "1.0.0"), #"{"type":"copyFixture","version":"1.0.0"}"#),
            (.chainOfStages(to: "3.0.0"), #"{"to":"3.0.0","type":"chainOfStages"}"#),
            (.schema(target: "3.0.0"), #"{"target":"3.0.0","type":"schema"}"#),
            (.version(target: "3.0.0"), #"{"target":"3.0.0","type":"version"}"#),
            (.configured(name: "x"), #"{"name":"x","type":"configured"}"#),
            (.lint(rule: "U001"), #"{"rule":"U001","type":"lint"}"#),
            (.probe(kind: "order"), #"{"probe":"order","type":"probe"}"#),
        ]
        for (kind, json) in objects {
            #expect(CanonicalJSON.encode(kind) == json)
            #expect(try JSONDecoder().decode(CheckKind.self, from: Data(json.utf8)) == kind)
        }
        // A lint finding: where, and how many rows in each fixture.
        check.findings = [CheckResult.Finding(message: "duplicates", file: "migrations/2.sql", line: 7, counts: ["1.0.0": 3])]
        #expect(CanonicalJSON.encode(check).contains(#""findings":[{"counts":{"1.0.0":3},"file":"migrations/2.sql","line":7,"message":"duplicates"}]"#))
        // What cannot be read: no kind, an unknown type, a missing value.
        for bad in [#"{"name":"x","passed":true}"#, #"{"kind":{"type":"nonsense"},"passed":true}"#, #"{"kind":{"type":"stage","from":"1.0.0"},"passed":true}"#] {
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(CheckResult.self, from: Data(bad.utf8)) }
        }
    }
}
