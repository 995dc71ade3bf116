import Foundation
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

extension MigrationReport {
    /// The report as one self-contained HTML page: the matrix as a grid of paths
    /// (rows) against checks (columns), then each failure with the statement that
    /// failed, the schema differences and the data-preservation findings.
    ///
    /// Everything is in the file: inline CSS, no script, no font, no image, no link
    /// outside it, so that it opens the same from a CI artifact, a mail or a disk.
    /// Every cell says `pass`, `FAIL` or `not run` in words as well as in colour.
    /// On a narrow screen the grid scrolls sideways with the paths' column held in
    /// place; printed, the grid is laid out whole and each failure kept together.
    ///
    /// - Parameter configuration: the configuration's path, shown in the header.
    public func html(configuration: String? = nil) -> String {
        HTMLReport(report: self, configuration: configuration).page()
    }
}

/// What the HTML page's parts share (``folded(_:open:close:separator:noun:plural:)``,
/// ``foldedCSS``); its text is escaped by ``Markup/html``.
enum HTML {}

/// Builds the page of ``MigrationReport/html(configuration:)``.
private struct HTMLReport {
    let report: MigrationReport
    let configuration: String?

    /// The grid's columns: checks of the same kind share one, whatever version they name.
    enum Column: Hashable {
        case fixture, stages, migratedStore, integrity, foreignKeys, userVersion, version, schema, rowCounts, dataPreserved, upgrade, lint
        /// One of the configuration's checks, by its name.
        case configured(String)
        /// A probe, by its kind.
        case probe(String)

        /// The column's heading.
        var title: String {
            switch self {
            case .fixture: "fixture verifies"
            case .stages: "stages"
            case .migratedStore: "migrated store opens"
            case .integrity: CheckKind.integrity.name
            case .foreignKeys: CheckKind.foreignKeys.name
            case .userVersion: CheckKind.userVersion.name
            case .version: "version"
            case .schema: "schema matches target"
            case .rowCounts: CheckKind.rowCounts.name
            case .dataPreserved: CheckKind.dataPreserved.name
            case .upgrade: CheckKind.upgrade.name
            case .lint: "lint"
            case .configured(let name): name
            case .probe(let kind): CheckKind.probe(kind: kind).name
            }
        }
    }

    /// The columns every matrix has, in the order the runner checks.
    static let fixedColumns: [Column] = [.fixture, .stages, .migratedStore, .integrity, .foreignKeys, .userVersion, .version, .schema, .rowCounts, .dataPreserved]

    /// The column a check of `kind` goes in.
    static func column(_ kind: CheckKind) -> Column {
        switch kind {
        case .fixtureVerifies, .copyFixture: .fixture
        case .stage, .chainOfStages: .stages
        case .openMigratedStore, .readMigratedStore, .lockMigratedStore: .migratedStore
        case .integrity: .integrity
        case .foreignKeys: .foreignKeys
        case .userVersion: .userVersion
        case .version: .version
        case .schema: .schema
        case .rowCounts: .rowCounts
        case .dataPreserved: .dataPreserved
        case .upgrade: .upgrade
        case .configured(let name): .configured(name)
        case .lint: .lint
        case .probe(let kind): .probe(kind)
        }
    }

    /// The fixed columns that some path has a result for, then the others (the
    /// configuration's checks, lint, probes) in the order they first appear.
    var columns: [Column] {
        let used = report.paths.flatMap { $0.checks.map { Self.column($0.kind) } }
        var columns = Self.fixedColumns.filter { used.contains($0) }
        for column in used where !columns.contains(column) {
            columns.append(column)
        }
        return columns
    }

    func page() -> String {
        let failed = report.failedCount
        let total = report.paths.count
        let verdict = failed == 0
            ? "every path passed (\(total))"
            : "\(failed) of \(Self.count(total, "path")) failed, \(total - failed) passed"
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <title>\(Markup.html.escape("fixturekit migrate to \(report.current): \(verdict)"))</title>
            <style>
            \(Self.css)
            \(MigrationReport.dataDiffCSS)
            \(HTML.foldedCSS)
            </style>
            </head>
            <body>

            """
        html += header(verdict: verdict)
        html += "<main>\n"
        html += grid()
        html += failures()
        html += report.connectionsHTML()
        html += report.dataDiffHTML()
        html += "</main>\n"
        html += "<footer><p>Written by fixturekit \(Markup.html.escape(FixtureKitLibrary.version)). Each path ran on temporary copies of the fixtures; the fixtures were not touched.</p></footer>\n"
        html += "</body>\n</html>\n"
        return html
    }

    // MARK: - Header

    private func header(verdict: String) -> String {
        let passed = report.passed
        let hops = report.paths.filter { $0.kind == .hop }.count
        let checks = report.paths.reduce(0) { $0 + $1.checks.count }
        let failedChecks = report.paths.reduce(0) { $0 + $1.checks.filter { !$0.passed }.count }
        var facts: [(String, String)] = []
        if let configuration { facts.append(("Configuration", configuration)) }
        facts.append(("Paths", "\(Self.count(report.paths.count - hops, "path")) to \(report.current), \(Self.count(hops, "hop"))"))
        facts.append(("Checks", "\(checks) run, \(failedChecks) failed"))
        if let shard = report.shard { facts.append(("Shard", "\(shard) of the matrix")) }
        var html = "<header>\n<p class=\"eyebrow\">fixturekit migrate</p>\n"
        html += "<h1>Migration matrix to \(Markup.html.escape(report.current))</h1>\n"
        html += "<p class=\"verdict\">\(Self.badge(passed)) <span>\(Markup.html.escape(verdict))</span></p>\n"
        html += "<dl class=\"facts\">\n"
        for (name, value) in facts {
            html += "<div><dt>\(Markup.html.escape(name))</dt><dd>\(Markup.html.escape(value))</dd></div>\n"
        }
        html += "</dl>\n</header>\n"
        return html
    }

    // MARK: - The grid

    private func grid() -> String {
        let columns = self.columns
        var html = "<section aria-labelledby=\"matrix\">\n<h2 id=\"matrix\">Matrix</h2>\n"
        html += "<p class=\"legend\">Each row is a path from a source version; each column a check. "
        html += "<span class=\"cell pass\">\(Self.passMark)</span> <span class=\"cell fail\">\(Self.failMark)</span> "
        html += "<span class=\"cell none\">\(Self.noneMark)</span> (a hop, or a check after the path failed) "
        html += "<span class=\"cell range\">\(Self.rangeMark)</span> (not in this path's range: the check's <code>from</code> leaves out its source version).</p>\n"
        html += "<div class=\"scroll\" role=\"region\" aria-labelledby=\"matrix\" tabindex=\"0\">\n<table class=\"grid\">\n<thead>\n<tr>"
        html += "<th scope=\"col\" class=\"rowhead\">Source / path</th><th scope=\"col\">result</th>"
        // `foreign_key_check` may break after its underscores, never inside a word.
        for column in columns { html += "<th scope=\"col\">\(Markup.html.escape(column.title).replacingOccurrences(of: "_", with: "_<wbr>"))</th>" }
        html += "</tr>\n</thead>\n<tbody>\n"
        for (index, path) in report.paths.enumerated() {
            html += "<tr class=\"\(path.passed ? "pass" : "fail")\">"
            html += "<th scope=\"row\" class=\"rowhead\"><span class=\"source\">\(Markup.html.escape(path.source))</span>"
            html += "<span class=\"path\">\(Markup.html.escape(Self.label(path)))</span>"
            html += "<span class=\"meta\">\(Markup.html.escape(Self.meta(path)))</span></th>"
            html += path.passed
                ? "<td class=\"cell pass\">\(Self.passMark)</td>"
                : "<td class=\"cell fail\"><a href=\"#\(Self.anchor(index))\">\(Self.failMark)</a></td>"
            for column in columns {
                if case .configured(let name) = column, (path.outOfRange ?? []).contains(name) {
                    html += "<td class=\"cell range\" title=\"\(Markup.html.escape(name)): not in this path's range (from)\">\(Self.rangeMark)</td>"
                } else {
                    html += cell(path.checks.filter { Self.column($0.kind) == column }, anchor: Self.anchor(index))
                }
            }
            html += "</tr>\n"
        }
        html += "</tbody>\n</table>\n</div>\n<p class=\"scroll-hint\">\(Self.count(columns.count + 1, "column")) of results; where the window is narrower than the grid, it scrolls sideways.</p>\n</section>\n"
        return html
    }

    /// One cell: FAIL when a check of its column failed, pass when they all passed.
    private func cell(_ checks: [CheckResult], anchor: String) -> String {
        guard !checks.isEmpty else { return "<td class=\"cell none\">\(Self.noneMark)</td>" }
        let title = Markup.html.escape(checks.map { "\($0.name): \($0.passed ? "pass" : "FAIL")" }.joined(separator: "; "))
        if checks.allSatisfy(\.passed) { return "<td class=\"cell pass\" title=\"\(title)\">\(Self.passMark)</td>" }
        return "<td class=\"cell fail\" title=\"\(title)\"><a href=\"#\(anchor)\">\(Self.failMark)</a></td>"
    }

    // MARK: - Failures

    private func failures() -> String {
        var html = "<section aria-labelledby=\"failures\">\n<h2 id=\"failures\">Failures</h2>\n"
        let failed = report.paths.enumerated().filter { !$0.element.passed }
        if failed.isEmpty {
            html += "<p class=\"none-failed\">None: every path passed every check.</p>\n"
        }
        for (index, path) in failed {
            let failedChecks = path.checks.filter { !$0.passed }
            html += "<article class=\"failure\" id=\"\(Self.anchor(index))\">\n"
            html += "<h3>\(Self.badge(false)) \(Markup.html.escape(Self.label(path)))</h3>\n"
            html += "<p class=\"meta\">\(Markup.html.escape("\(Self.meta(path)), \(failedChecks.count) of \(Self.count(path.checks.count, "check")) failed"))</p>\n"
            for check in failedChecks { html += failure(check, of: path) }
            html += "</article>\n"
        }
        html += "</section>\n"
        return html
    }

    /// A failed check: its message, the statement that failed, and for the schema
    /// and data checks the differences and findings one per line.
    private func failure(_ check: CheckResult, of path: PathResult) -> String {
        var html = "<div class=\"check\">\n<h4>\(Markup.html.escape("✗ " + check.name))</h4>\n"
        if case .schema = check.kind, !path.schemaDifferences.isEmpty {
            html += "<p class=\"label\">Schema differences from \(Markup.html.escape(path.target))</p>\n"
            html += HTML.folded(path.schemaDifferences.map { "<li><code>\(Markup.html.escape($0))</code></li>\n" }, open: "<ul class=\"diff\">\n", close: "</ul>\n", noun: "difference")
        } else if check.kind == .dataPreserved, path.preservation.contains(where: { !$0.passed }) {
            html += "<p class=\"label\">Data-preservation findings (rows matched by key)</p>\n"
            var items: [String] = []
            for finding in path.preservation where !finding.passed {
                let name = finding.column.map { "\(finding.table).\($0)" } ?? finding.table
                var counts = ["\(finding.compared) compared", "\(finding.equal) equal"]
                for (count, word) in [(finding.lost, "lost"), (finding.dropped ?? 0, "dropped"), (finding.nulled, "became NULL"), (finding.emptied, "became empty"), (finding.truncated, "truncated"), (finding.changed, "changed")] where count > 0 {
                    counts.append("\(count) \(word)")
                }
                // The finding starts with the column's name, already shown.
                var text = finding.finding ?? "not preserved"
                if text.hasPrefix(name + ": ") { text.removeFirst(name.count + 2) }
                items.append("<li><code class=\"name\">\(Markup.html.escape(name))</code> <span>\(Markup.html.escape(text))</span>"
                    + "<span class=\"counts\">\(Markup.html.escape(counts.joined(separator: " · ")))</span></li>\n")
            }
            html += HTML.folded(items, open: "<ul class=\"findings\">\n", close: "</ul>\n", noun: "finding")
        } else {
            let lines = (check.message ?? "failed").split(separator: "\n", omittingEmptySubsequences: false)
            html += HTML.folded(lines.map { Markup.html.escape(String($0)) }, open: "<pre class=\"message\">", close: "</pre>\n", separator: "\n", noun: "line")
        }
        if let statement = check.statement {
            html += "<p class=\"label\">Statement that failed</p>\n<pre class=\"statement\"><code>\(Markup.html.escape(statement))</code></pre>\n"
        }
        if let connection = check.connection {
            html += "<p class=\"label\">Connection</p>\n<pre class=\"message\">\(Markup.html.escape(connection.summary))</pre>\n"
        }
        html += "</div>\n"
        return html
    }

    // MARK: - Words

    static let passMark = "✓ pass"
    static let failMark = "✗ FAIL"
    static let noneMark = "– not run"
    static let rangeMark = "○ not in range"

    static func badge(_ passed: Bool) -> String {
        passed ? "<span class=\"badge pass\">✓ PASSED</span>" : "<span class=\"badge fail\">✗ FAILED</span>"
    }

    static func anchor(_ index: Int) -> String { "path-\(index + 1)" }

    /// `1.0.0 → 2.0.0 → 3.0.0`, `hop 1.0.0 → 2.0.0`.
    static func label(_ path: PathResult) -> String {
        (path.kind == .hop ? "hop " : "") + path.id.replacingOccurrences(of: " -> ", with: " → ")
            + (path.alsoFor.map { " (also \($0.joined(separator: ", ")))" } ?? "")
    }

    /// `2 stages, 0.12 s`.
    static func meta(_ path: PathResult) -> String {
        let stages = path.checks.filter(\.kind.isStage).count
        let hundredths = Int((path.seconds * 100).rounded())
        let fraction = String(hundredths % 100)
        return "\(count(stages, "stage")), \(hundredths / 100).\(String(repeating: "0", count: 2 - fraction.count) + fraction) s"
    }

    static func count(_ number: Int, _ singular: String) -> String {
        "\(number) \(singular)\(number == 1 ? "" : "s")"
    }

    // MARK: - Style

    static let css = """
        :root {
          color-scheme: light dark;
          --fg: #1f2328; --muted: #59636e; --bg: #ffffff; --soft: #f6f8fa; --line: #d1d9e0;
          --pass-bg: #dafbe1; --pass-fg: #116329; --fail-bg: #ffebe9; --fail-fg: #a40e26; --accent: #0969da;
        }
        @media (prefers-color-scheme: dark) {
          :root {
            --fg: #e6edf3; --muted: #9198a1; --bg: #0d1117; --soft: #151b23; --line: #3d444d;
            --pass-bg: #12361f; --pass-fg: #6fdd8b; --fail-bg: #4b1113; --fail-fg: #ff9492; --accent: #4493f8;
          }
        }
        * { box-sizing: border-box; }
        html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
        body {
          margin: 0 auto; max-width: 90rem; padding: 1.5rem 1.25rem 3rem;
          font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Helvetica Neue", Arial, sans-serif;
          color: var(--fg); background: var(--bg);
        }
        code, pre { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 0.86em; }
        h1 { font-size: 1.65rem; line-height: 1.25; margin: 0.1rem 0 0.6rem; }
        h2 { font-size: 1.2rem; margin: 2rem 0 0.6rem; padding-bottom: 0.3rem; border-bottom: 1px solid var(--line); }
        h3 { font-size: 1.05rem; margin: 0 0 0.2rem; overflow-wrap: anywhere; }
        h4 { font-size: 0.95rem; margin: 0 0 0.4rem; color: var(--fail-fg); overflow-wrap: anywhere; }
        .eyebrow { margin: 0; font-size: 0.8rem; font-weight: 600; letter-spacing: 0.06em; text-transform: uppercase; color: var(--muted); }
        .verdict { margin: 0 0 1rem; font-size: 1.05rem; display: flex; flex-wrap: wrap; align-items: center; gap: 0.6rem; }
        .badge { display: inline-block; padding: 0.15rem 0.6rem; border-radius: 999px; font-size: 0.85rem; font-weight: 700; letter-spacing: 0.02em; white-space: nowrap; }
        .badge.pass { background: var(--pass-bg); color: var(--pass-fg); border: 1px solid var(--pass-fg); }
        .badge.fail { background: var(--fail-bg); color: var(--fail-fg); border: 1px solid var(--fail-fg); }
        .facts { display: flex; flex-wrap: wrap; gap: 0.5rem 2rem; margin: 0; }
        .facts div { min-width: 0; }
        .facts dt { font-size: 0.75rem; color: var(--muted); text-transform: uppercase; letter-spacing: 0.05em; }
        .facts dd { margin: 0; overflow-wrap: anywhere; }
        .legend { color: var(--muted); margin: 0 0 0.75rem; }
        .legend .cell { display: inline-block; padding: 0 0.4rem; border-radius: 4px; }
        .scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; border: 1px solid var(--line); border-radius: 8px; }
        .scroll:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
        table.grid { border-collapse: separate; border-spacing: 0; min-width: 100%; }
        .grid th, .grid td { padding: 0.45rem 0.5rem; border-bottom: 1px solid var(--line); border-right: 1px solid var(--line); text-align: center; vertical-align: middle; white-space: nowrap; }
        .grid tr > :last-child { border-right: 0; }
        .grid tbody tr:last-child > * { border-bottom: 0; }
        .grid thead th { background: var(--soft); color: var(--muted); font-size: 0.78rem; font-weight: 600; white-space: normal; min-width: 4.75rem; max-width: 8rem; vertical-align: bottom; hyphens: manual; }
        .grid .rowhead { position: sticky; left: 0; z-index: 1; background: var(--bg); text-align: left; white-space: normal; min-width: 11rem; max-width: 15rem; box-shadow: 1px 0 0 var(--line); }
        .grid thead .rowhead { background: var(--soft); z-index: 2; }
        .rowhead .source { display: block; font-weight: 700; font-size: 1rem; }
        .rowhead .path { display: block; font-size: 0.85rem; font-weight: 500; overflow-wrap: anywhere; }
        .rowhead .meta { display: block; font-size: 0.75rem; color: var(--muted); font-weight: 400; }
        .cell { font-size: 0.85rem; }
        .cell.pass { background: var(--pass-bg); color: var(--pass-fg); }
        .cell.fail { background: var(--fail-bg); color: var(--fail-fg); font-weight: 700; }
        .cell.none { color: var(--muted); }
        .cell a { color: inherit; text-decoration: underline; text-underline-offset: 2px; }
        .failure { border: 1px solid var(--line); border-left: 4px solid var(--fail-fg); border-radius: 8px; padding: 1rem 1.1rem; margin: 0 0 1rem; }
        .failure > .meta { margin: 0 0 0.8rem; color: var(--muted); font-size: 0.85rem; }
        .check { margin: 0.9rem 0 0; padding-top: 0.8rem; border-top: 1px dashed var(--line); }
        .label { margin: 0.5rem 0 0.25rem; font-size: 0.75rem; font-weight: 600; color: var(--muted); text-transform: uppercase; letter-spacing: 0.05em; }
        pre { margin: 0; padding: 0.6rem 0.75rem; background: var(--soft); border: 1px solid var(--line); border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; }
        pre code { font-size: inherit; }
        pre.statement { border-left: 3px solid var(--fail-fg); }
        ul.diff, ul.findings { margin: 0; padding-left: 1.2rem; }
        ul.diff li, ul.findings li { margin: 0.2rem 0; overflow-wrap: anywhere; }
        .findings .name { font-weight: 700; }
        .findings .counts { display: block; font-size: 0.8rem; color: var(--muted); }
        .scroll-hint { margin: 0.4rem 0 0; font-size: 0.8rem; color: var(--muted); }
        .none-failed { color: var(--pass-fg); font-weight: 600; }
        footer { margin-top: 2.5rem; font-size: 0.8rem; color: var(--muted); }
        @media (max-width: 40rem) {
          body { padding: 1rem 0.75rem 2rem; font-size: 14px; }
          h1 { font-size: 1.35rem; }
          .grid .rowhead { min-width: 8.5rem; max-width: 11rem; }
          .failure { padding: 0.8rem; }
        }
        @page { margin: 1.2cm; }
        @media print {
          :root {
            --fg: #000000; --muted: #444c56; --bg: #ffffff; --soft: #f3f4f6; --line: #9aa4af;
            --pass-bg: #e3f6e8; --pass-fg: #0f5323; --fail-bg: #fde7e9; --fail-fg: #8a0c1f;
          }
          * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
          body { max-width: none; padding: 0; font-size: 9.5pt; }
          /* On paper nothing scrolls: the grid takes the page's width, its columns shared out. */
          .scroll { overflow: visible; border: 0; }
          table.grid { table-layout: fixed; width: 100%; min-width: 0; font-size: 7.5pt; }
          .grid th, .grid td { padding: 0.15rem 0.2rem; white-space: normal; overflow-wrap: anywhere; }
          .grid .rowhead { position: static; box-shadow: none; width: 17%; min-width: 0; max-width: none; }
          .grid thead th { min-width: 0; max-width: none; font-size: 7pt; }
          .rowhead .source { font-size: 8.5pt; }
          .rowhead .path { font-size: 7.5pt; }
          .rowhead .meta { font-size: 6.5pt; }
          .cell { font-size: 7.5pt; }
          .grid tr, .check, .badge { break-inside: avoid; }
          h2, h3, h4, .label { break-after: avoid; }
          .cell a { text-decoration: none; }
          .scroll-hint { display: none; }
          footer { margin-top: 1rem; }
        }
        """
}
