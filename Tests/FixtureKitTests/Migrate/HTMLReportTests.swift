import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// `migrate --html FILE`: one self-contained page, checked as text and as
/// headless Chromium renders it.
@Suite struct HTMLReportTests {
    /// The configured check that fails, with characters HTML must escape.
    static let failingCheck = "no note titled <Lost>"
    static let failingStatement = "SELECT count(*) FROM notes WHERE title LIKE 'Lost%' AND id > 0"

    /// A Notes corpus whose matrix has exactly one failing path, 1.0.0 -> 2.0.0 -> 3.0.0:
    /// the 2.0.0 -> 3.0.0 program damages note K40, which only a store that
    /// started at 1.0.0 holds (2.0.0's fixture has 25 notes), and leaves a table
    /// behind. That path fails three ways: the schema, the data, a configured check.
    static func corpusWithOneFailingPath() throws -> NotesCorpus {
        let notes = try NotesCorpus()
        try notes.writeProgramStage(NotesCorpus.stage2to3 + """

            if [ "$(sqlite3 "$FIXTUREKIT_STORE" "SELECT count(*) FROM notes WHERE uuid = 'K40'")" = 1 ]; then
              sqlite3 "$FIXTUREKIT_STORE" "UPDATE notes SET title = 'Lost <&> title' WHERE uuid = 'K40'; CREATE TABLE leftovers (id INTEGER PRIMARY KEY);"
            fi

            """)
        try notes.writeConfig { object in
            var checks = object["checks"] as? [[String: Any]] ?? []
            checks.append(["name": failingCheck, "sql": failingStatement, "expect": 0])
            object["checks"] = checks
        }
        return notes
    }

    /// Runs the matrix with `--html`; returns the page's path.
    static func writeReport(_ notes: NotesCorpus) throws -> String {
        let page = notes.folder.url("report.html")
        let result = fixturekit("migrate", "--config", notes.config, "--html", page)
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains("FAIL  1.0.0 -> 2.0.0 -> 3.0.0"), "\(result.standardError)")
        #expect(result.standardError.hasSuffix("migrate: 2 of 3 passed, 1 failed\n"), "\(result.standardError)")
        return page
    }

    @Test func thePageHoldsTheGridAndEveryFindingOfTheFailure() throws {
        let notes = try Self.corpusWithOneFailingPath()
        let page = try Self.writeReport(notes)
        let html = String(decoding: try notes.folder.read("report.html"), as: UTF8.self)
        #expect(!FileManager.default.fileExists(atPath: page + ".tmp"))
        #expect(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"))
        #expect(html.hasSuffix("</html>\n"))
        // Self-contained: nothing to fetch, nothing to run.
        for outside in ["<script", "<link", "<img", "src=", "http://", "https://", "url(", "@import", "@font-face"] {
            #expect(!html.contains(outside), "the page holds \(outside)")
        }
        // The grid: one row per path, one failing.
        #expect(html.components(separatedBy: "<tr class=\"fail\">").count - 1 == 1)
        #expect(html.components(separatedBy: "<tr class=\"pass\">").count - 1 == 2)
        #expect(html.contains("<th scope=\"col\">no note titled &lt;Lost&gt;</th>"))
        // The failure: the statement that failed, the schema difference, the data finding, escaped.
        #expect(html.contains("<h4>✗ no note titled &lt;Lost&gt;</h4>\n<pre class=\"message\">"))
        #expect(html.contains("<pre class=\"statement\"><code>SELECT count(*) FROM notes WHERE title LIKE &#39;Lost%&#39; AND id &gt; 0</code></pre>"))
        #expect(html.contains("<li><code>table leftovers: extra (not in 3.0.0)</code></li>"))
        #expect(html.contains("<code class=\"name\">notes.title</code> <span>1 changed of 40 values (key 40: &#39;Note 40&#39; -&gt; &#39;Lost &lt;&amp;&gt; title&#39;)</span>"), "\(html)")
    }

    @Test func everyTextIsEscaped() {
        let hostile = "<script>alert(\"x\")</script> & 'quotes'\u{1}\u{7F}"
        let report = MigrationReport(current: "3.0.0<b>", shard: nil, paths: [
            PathResult(
                id: "1.0.0 -> 3.0.0", kind: .path, source: "1.0.0\"onmouseover=\"x", target: "3.0.0", passed: false, seconds: 1.5,
                checks: [CheckResult(.configured(name: hostile), passed: false, message: hostile, statement: hostile)],
                schemaDifferences: [], preservation: [], preservationSeconds: 0),
        ])
        let html = report.html(configuration: "</title><script>")
        #expect(!html.contains("<script"))
        #expect(!html.contains("<b>"))
        #expect(!html.contains("\"onmouseover"))
        #expect(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;\u{FFFD}\u{FFFD}"))
        #expect(html.contains("<title>fixturekit migrate to 3.0.0&lt;b&gt;: 1 of 1 path failed, 0 passed</title>"))
        #expect(Markup.html.escape("a\nb\tc\rd") == "a\nb\tc\u{FFFD}d")
    }

    @Test func aPassingMatrixSaysSo() throws {
        let notes = try NotesCorpus()
        let report = try MigrationRunner.runMatrix(config: notes.config)
        let html = report.html()
        #expect(html.contains("<span class=\"badge pass\">✓ PASSED</span> <span>every path passed (3)</span>"))
        #expect(html.contains("<p class=\"none-failed\">None: every path passed every check.</p>"))
        #expect(!html.contains("<td class=\"cell fail\""))
    }

    @Test func anUnwritableReportIsOneLineAndExit2BeforeTheMatrixRuns() throws {
        let notes = try NotesCorpus()
        let page = notes.folder.url("missing-folder/report.html")
        let result = fixturekit("migrate", "--config", notes.config, "--from", "2.0.0", "--html", page)
        #expect(result.status == 2)
        #expect(result.standardError == "fixturekit: write HTML report: open: \(page).tmp: no such file or directory (hint: nothing was run)\n", "\(result.standardError)")
    }

    // MARK: - Headless Chromium

    @Test(.enabled(if: Chromium.executable != nil, "chromium not found on PATH: scripts/bootstrap.sh installs it (Debian package chromium)"))
    func chromiumRendersThePageWithoutErrorsAndShowsTheFailure() throws {
        let chromium = try #require(Chromium.executable)
        let notes = try Self.corpusWithOneFailingPath()
        let page = try Self.writeReport(notes)

        for (name, size) in [("desktop", (1280, 2400)), ("phone", (390, 2400))] {
            let png = notes.folder.url("\(name).png")
            let shot = try Chromium.run(chromium, page: page, profile: notes.folder.url("profile-\(name)"), [
                "--screenshot=\(png)", "--window-size=\(size.0),\(size.1)", "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
            ])
            #expect(shot.status == 0, "\(shot.standardError)")
            // The page has no script: the console must stay silent (no error, no failed load).
            let console = shot.standardError.split(separator: "\n").filter { $0.contains(":CONSOLE") }
            #expect(console.isEmpty, "\(console)")
            let bytes = try notes.folder.read("\(name).png")
            #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
            let dimensions = Chromium.pngSize(bytes)
            #expect(dimensions?.0 == size.0 && dimensions?.1 == size.1, "\(String(describing: dimensions))")
            // A blank page of that size compresses to a few KiB; text, grid and colours do not.
            #expect(bytes.count > 30_000, "\(name).png is \(bytes.count) bytes")
        }

        let dom = try Chromium.run(chromium, page: page, profile: notes.folder.url("profile-dom"), ["--dump-dom"])
        #expect(dom.status == 0, "\(dom.standardError)")
        #expect(dom.standardOutput.contains("<table class=\"grid\">"))
        let text = Chromium.textContent(dom.standardOutput)
        #expect(text.contains("Migration matrix to 3.0.0"))
        #expect(text.contains("1 of 3 paths failed, 2 passed"))
        #expect(text.contains("✗ no note titled <Lost>"))
        #expect(text.contains("Statement that failed " + Self.failingStatement), "\(text)")
        #expect(text.contains("table leftovers: extra (not in 3.0.0)"))
        #expect(text.contains("notes.title 1 changed of 40 values (key 40: 'Note 40' -> 'Lost <&> title')"))
    }
}

/// Headless Chromium, for the tests that look at the HTML report as a browser shows it.
enum Chromium {
    /// `chromium` (Debian's package) or `chromium-browser` on PATH.
    static let executable: String? = {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for name in ["chromium", "chromium-browser"] {
            for folder in folders where FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)") {
                return "\(folder)/\(name)"
            }
        }
        return nil
    }()

    /// Opens `page` once in a fresh profile (no sandbox: test machines run as root;
    /// no GPU; a small /dev/shm is not used), with `arguments`, for at most 120 s.
    static func run(_ chromium: String, page: String, profile: String, _ arguments: [String]) throws -> RunResult {
        try FixtureKitTestSupport.run(
            ["timeout", "120", chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--no-default-browser-check", "--user-data-dir=\(profile)"]
                + arguments + [URL(fileURLWithPath: page).absoluteString])
    }

    /// Width and height from a PNG's IHDR chunk.
    static func pngSize(_ bytes: [UInt8]) -> (Int, Int)? {
        guard bytes.count >= 24, bytes[12..<16].elementsEqual("IHDR".utf8) else { return nil }
        func number(_ offset: Int) -> Int { bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (number(16), number(20))
    }

    /// The text a reader sees: the body without the style sheet, tags and entities
    /// resolved, runs of white space as one space.
    static func textContent(_ html: String) -> String {
        var text = html
        for pattern in ["<style[^>]*>[\\s\\S]*?</style>", "<title>[\\s\\S]*?</title>", "<[^>]+>"] {
            text = text.replacingOccurrences(of: pattern, with: " ", options: .regularExpression)
        }
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&nbsp;", " "), ("&amp;", "&")] {
            text = text.replacingOccurrences(of: entity, with: character)
        }
        return text.replacingOccurrences(of: "\\s+", with: " ", options: .regularExpression).trimmingCharacters(in: .whitespaces)
    }
}
