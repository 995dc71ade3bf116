import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// The HTML page tells a check out of its path's range from one not run, and
/// folds long findings after 20 rows under their count.
@Suite struct HTMLFoldingTests {
    @Test func aCheckLimitedWithFromIsNotInRangeNotNotRun() throws {
        let notes = try NotesCorpus()
        try notes.writeConfig { object in
            var checks = object["checks"] as? [[String: Any]] ?? []
            checks.append(["name": "only from 2.0.0", "sql": "SELECT count(*) FROM notes WHERE title IS NULL", "expect": 0, "from": ["2.0.0"]])
            object["checks"] = checks
        }
        let page = notes.folder.url("report.html")
        let result = fixturekit("migrate", "--config", notes.config, "--html", page, "--json")
        #expect(result.status == 0, "\(result.standardError)")
        let report = try JSONDecoder().decode(MigrationReport.self, from: Data(result.standardOutput.utf8))
        #expect(report.paths.map(\.outOfRange) == [["only from 2.0.0"], nil, nil])
        let html = String(decoding: try notes.folder.read("report.html"), as: UTF8.self)
        #expect(html.contains("<span class=\"cell none\">– not run</span> (a hop, or a check after the path failed) <span class=\"cell range\">○ not in range</span> (not in this path's range: the check's <code>from</code> leaves out its source version).</p>"), "\(html)")
        // Each row's last cell is the check's: out of range from 1.0.0, run from 2.0.0, not run on the hop.
        let rows = html.components(separatedBy: "<tr class=\"").dropFirst().filter { $0.hasPrefix("pass\"") }
        #expect(rows.count == 3)
        #expect(rows[0].hasSuffix("<td class=\"cell range\" title=\"only from 2.0.0: not in this path's range (from)\">○ not in range</td></tr>\n"), "\(rows[0])")
        #expect(rows[1].hasSuffix("<td class=\"cell pass\" title=\"only from 2.0.0: pass\">✓ pass</td></tr>\n"), "\(rows[1])")
        #expect(rows[2].contains("<td class=\"cell none\">– not run</td></tr>\n</tbody>\n"), "\(rows[2])")
    }

    /// A failed path with `count` findings of every kind: as many columns that
    /// changed (and 5 that did not), schema differences, lines of a message.
    static func report(_ count: Int) -> MigrationReport {
        let changed = (1...count).map { index in
            ColumnPreservation(
                table: "events", column: "c\(index)", compared: 10, equal: 9, lost: 0, nulled: 0, emptied: 0, truncated: 0, changed: 1,
                exampleKeys: ["1"], passed: false, finding: "events.c\(index): 1 changed of 10 values (key 1: 'a' -> 'b')",
                exampleValues: [ValueChange(key: "1", before: "'a'", after: "'b'")])
        }
        let same = (1...5).map { index in
            ColumnPreservation(
                table: "events", column: "same\(index)", compared: 10, equal: 10, lost: 0, nulled: 0, emptied: 0, truncated: 0, changed: 0,
                exampleKeys: [], passed: true, finding: nil)
        }
        let lines = (1...count).map { "line \($0)" }.joined(separator: "\n")
        var path = PathResult(
            id: "1.0.0 -> 2.0.0", kind: .path, source: "1.0.0", target: "2.0.0", passed: false, seconds: 1,
            checks: [
                CheckResult(.schema(target: "2.0.0"), passed: false, message: "differs"),
                CheckResult(.dataPreserved, passed: false, message: changed.compactMap(\.finding).joined(separator: "\n")),
                CheckResult(.configured(name: "a check"), passed: false, message: lines),
            ],
            schemaDifferences: (1...count).map { "table t\($0): extra (not in 2.0.0)" }, preservation: same + changed, preservationSeconds: 0.1)
        path.unchecked = (1...count).map { UncheckedValues(table: "events", column: "n\($0)", reason: .new, why: "not in 1.0.0") }
        return MigrationReport(current: "2.0.0", shard: nil, paths: [path])
    }

    @Test func longFindingsFoldAfter20RowsWithTheirCount() throws {
        let html = Self.report(219).html()
        // Each list shows its first 20, then folds the rest under their count.
        #expect(html.contains("<li><code>table t20: extra (not in 2.0.0)</code></li>\n</ul>\n<details class=\"more\">\n<summary>199 more differences</summary>\n<ul class=\"diff\">\n<li><code>table t21: "))
        #expect(html.contains("<li><code class=\"name\">events.c20</code>"))
        #expect(html.contains("</ul>\n<details class=\"more\">\n<summary>199 more findings</summary>\n<ul class=\"findings\">\n<li><code class=\"name\">events.c21</code>"), "\(html)")
        #expect(html.contains("<pre class=\"message\">line 1\nline 2\n"))
        #expect(html.contains("line 20</pre>\n<details class=\"more\">\n<summary>199 more lines</summary>\n<pre class=\"message\">line 21\n"))
        // The data diff: the 219 columns that differ first, the first 20 shown.
        #expect(html.contains("<code>events.c20</code></th><td>9</td><td>0</td><td>-</td><td>0</td><td>1</td><td>-</td><td>1: &#39;a&#39; → &#39;b&#39;</td></tr>\n</tbody>\n</table>\n<details class=\"more\">\n<summary>204 more tables and columns</summary>\n"), "\(html)")
        #expect(html.contains("<li><code>events.n20: not in 1.0.0</code></li>\n</ul>\n<details class=\"more\">\n<summary>199 more unchecked</summary>\n"))
        // 20 rows or fewer: nothing folds but the data diff's 25 rows.
        let short = Self.report(20).html()
        #expect(short.components(separatedBy: "<details class=\"more\">").count == 2)
        #expect(short.contains("<details class=\"more\">\n<summary>5 more tables and columns</summary>\n"))
        #expect(Self.report(21).html().contains("<summary>1 more finding</summary>"))
    }

    @Test(.enabled(if: Chromium.executable != nil, "chromium not found on PATH: scripts/bootstrap.sh installs it (Debian package chromium)"))
    func chromiumPrintsTheFoldedPageAsShortAsOneWithoutLongFindings() throws {
        let chromium = try #require(Chromium.executable)
        let folder = try TemporaryFolder()
        var pages: [Int] = []
        for count in [20, 219] {
            let page = try folder.write("report-\(count).html", Self.report(count).html())
            let pdf = folder.url("report-\(count).pdf")
            let printed = try Chromium.run(chromium, page: page, profile: folder.url("profile-\(count)"), ["--print-to-pdf=\(pdf)", "--no-pdf-header-footer"])
            #expect(printed.status == 0, "\(printed.standardError)")
            // The page tree's `/Count`: how many pages the document has.
            let text = String(decoding: try folder.read("report-\(count).pdf"), as: UTF8.self)
            let counts = text.matches(of: /\/Count (\d+)/).compactMap { Int($0.output.1) }
            pages.append(try #require(counts.max()))
            let dom = try Chromium.run(chromium, page: page, profile: folder.url("profile-dom-\(count)"), ["--dump-dom"])
            #expect(dom.status == 0)
            if count > 20 {
                // What is folded is in the page, closed, under its count.
                #expect(dom.standardOutput.contains("<details class=\"more\">\n<summary>199 more findings</summary>"))
                #expect(Chromium.textContent(dom.standardOutput).contains("events.c219"))
            }
        }
        // 219 findings of each kind print in at most one page more than 20 (each fold's summary line).
        #expect(pages[1] <= pages[0] + 1, "\(pages)")
    }

    /// A stage that changes 25 columns of a table and adds 25 more: the summary
    /// shows 20 findings and 20 unchecked columns, and counts the others.
    @Test func theSummaryFoldsTooAndJSONHoldsEveryOne() throws {
        let corpus = try WideCorpus(columns: 25)
        let result = fixturekit("migrate", "--config", corpus.config, "--json")
        #expect(result.status == 1, "\(result.standardError)")
        let lines = result.standardError.split(separator: "\n").map(String.init)
        let first = try #require(lines.firstIndex { $0.hasPrefix("      data preserved: ") })
        #expect(lines[first] == "      data preserved: wide.c1: 3 changed of 3 values (key 1: 'a' -> 'x'; key 2: 'a' -> 'x'; key 3: 'a' -> 'x')")
        #expect(lines[first + 19] == "        wide.c20: 3 changed of 3 values (key 1: 'a' -> 'x'; key 2: 'a' -> 'x'; key 3: 'a' -> 'x')")
        #expect(lines[first + 20] == "        and 5 more lines (--json has them all)")
        #expect(lines[first + 21] == "      unchecked: wide.n1: not in 1.0.0")
        #expect(lines[first + 40] == "      unchecked: wide.n20: not in 1.0.0")
        #expect(lines[first + 41] == "      and 5 more unchecked")
        #expect(lines[first + 42].hasPrefix("      time: "))
        let report = try JSONDecoder().decode(MigrationReport.self, from: Data(result.standardOutput.utf8))
        #expect(report.paths[0].check("data preserved")?.message?.split(separator: "\n").count == 25)
        #expect(report.paths[0].unchecked?.count == 25)
    }
}

/// One table of `columns` text columns, all `'a'` in 3 rows; its stage sets
/// every one to `'x'` and adds as many columns, which 2.0.0's schema has too.
struct WideCorpus: CodeBuiltCorpus {
    let folder: TemporaryFolder

    init(columns: Int) throws {
        folder = try TemporaryFolder()
        let old = (1...columns).map { "c\($0) TEXT" }, new = (1...columns).map { "n\($0) TEXT" }
        try make("1.0.0", schema: "CREATE TABLE wide (id INTEGER PRIMARY KEY, \(old.joined(separator: ", ")));") { database in
            for _ in 1...3 { try database.execute("INSERT INTO wide (c1) VALUES ('a')") }
            try database.execute("UPDATE wide SET " + (1...columns).map { "c\($0) = 'a'" }.joined(separator: ", "))
        }
        try make("2.0.0", schema: "CREATE TABLE wide (id INTEGER PRIMARY KEY, \((old + new).joined(separator: ", ")));")
        let stage = ["UPDATE wide SET " + (1...columns).map { "c\($0) = 'x'" }.joined(separator: ", ") + ";"]
            + new.map { "ALTER TABLE wide ADD COLUMN \($0);" }
        try folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", stage.joined(separator: "\n") + "\n")
        try writeConfiguration([
            "store": "App.sqlite", "current": "2.0.0", "supported": ["1.0.0"],
            "stages": [["from": "1.0.0", "to": "2.0.0", "sql": "migrations/1.0.0-2.0.0.sql"]],
        ])
    }
}
