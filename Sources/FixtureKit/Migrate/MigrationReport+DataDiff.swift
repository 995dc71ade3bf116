import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitArchiveIO
import FixtureKitModels

extension MigrationReport {
    /// The HTML report's data diff: per path, per table and column, how many
    /// values were equal, lost, dropped with their column or table, NULLed,
    /// changed (emptied and truncated values included) and moved to another
    /// table, with the first rows of those that were not equal (their values
    /// where the findings show them); those that differ come first. Then what
    /// the value checks could not see (``PathResult/unchecked``). Paths without
    /// a value-level comparison are left out.
    func dataDiffHTML() -> String {
        var html = "<section aria-labelledby=\"data-diff\">\n<h2 id=\"data-diff\">Data diff</h2>\n"
        let compared = paths.filter { !$0.preservation.isEmpty }
        if compared.isEmpty { html += "<p class=\"none-failed\">No path got as far as comparing values.</p>\n" }
        for path in compared {
            let differing = path.preservation.filter { !$0.passed }.count
            let unchecked = path.unchecked ?? []
            var summary = differing == 0 ? "every value preserved" : "\(differing) of \(path.preservation.count) tables and columns differ"
            if !unchecked.isEmpty { summary += ", \(unchecked.count) unchecked" }
            html += "<details class=\"data-diff\"\(differing > 0 ? " open" : "")>\n"
            html += "<summary>\(Markup.html.escape((path.kind == .hop ? "hop " : "") + path.id)): \(Markup.html.escape(summary))</summary>\n"
            var rows: [String] = []
            for column in path.preservation.filter({ !$0.passed }) + path.preservation.filter(\.passed) {
                var name = column.column.map { "\(column.table).\($0)" } ?? "\(column.table) (rows)"
                if let movedTo = column.movedTo { name += " → \(movedTo)" }
                let changed = column.changed + column.emptied + column.truncated
                let cells = [column.equal, column.lost].map { "<td>\($0)</td>" }.joined() + "<td>\(column.dropped.map(String.init) ?? "-")</td>"
                    + [column.nulled, changed].map { "<td>\($0)</td>" }.joined()
                let moved = column.moved.map { "<td>\($0)</td>" } ?? "<td>-</td>"
                let first = column.exampleValues.map { $0.map { "\($0.key): \($0.before) → \($0.after)" } } ?? column.exampleKeys
                rows.append("<tr class=\"diff-\(column.passed ? "same" : "differs")\"><th scope=\"row\"><code>\(Markup.html.escape(name))</code></th>\(cells)\(moved)"
                    + "<td>\(Markup.html.escape(first.joined(separator: "; ")))</td></tr>\n")
            }
            let head = "<table class=\"data-diff\">\n<thead><tr><th scope=\"col\">table.column</th><th scope=\"col\">equal</th><th scope=\"col\">lost</th><th scope=\"col\">dropped</th>"
                + "<th scope=\"col\">NULLed</th><th scope=\"col\">changed</th><th scope=\"col\">moved</th><th scope=\"col\">first rows</th></tr></thead>\n<tbody>\n"
            html += HTML.folded(rows, open: head, close: "</tbody>\n</table>\n", noun: "table or column", plural: "tables and columns")
            if !unchecked.isEmpty {
                html += "<p class=\"label\">Unchecked: no value of \(Markup.html.escape(path.source)) stands for these</p>\n"
                html += HTML.folded(unchecked.map { "<li><code>\(Markup.html.escape($0.line))</code></li>\n" }, open: "<ul class=\"unchecked\">\n", close: "</ul>\n", noun: "unchecked", plural: "unchecked")
            }
            html += "</details>\n"
        }
        html += "</section>\n"
        return html
    }

    /// The data diff's own style, added to the page's.
    static let dataDiffCSS = """
        table.data-diff { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.9rem; }
        table.data-diff th, table.data-diff td { border: 1px solid #8884; padding: 0.2rem 0.5rem; text-align: right; }
        table.data-diff th[scope=row], table.data-diff td:last-child { text-align: left; }
        tr.diff-differs { background: #d2222214; }
        details.data-diff summary { cursor: pointer; margin: 0.3rem 0; }
        ul.unchecked { margin: 0 0 1rem; padding-left: 1.2rem; }
        """
}

extension HTML {
    /// `items` between `open` and `close`, the first ``MigrationReport/shownLines``
    /// shown and the others folded in a `<details>` of their own, whose summary
    /// counts them (`199 more findings`): a long list stays one screen until asked.
    /// - Parameters:
    ///   - separator: between two items (`\n` for the lines of a `<pre>`).
    ///   - noun: what an item is, in the summary; `plural` when not `noun` + `s`.
    static func folded(_ items: [String], open: String, close: String, separator: String = "", noun: String, plural: String? = nil) -> String {
        let shown = MigrationReport.shownLines
        var html = open + items.prefix(shown).joined(separator: separator) + close
        guard items.count > shown else { return html }
        let more = items.count - shown
        let words = more == 1 ? noun : plural ?? noun + "s"
        html += "<details class=\"more\">\n<summary>\(more) more \(Markup.html.escape(words))</summary>\n"
        html += open + items.dropFirst(shown).joined(separator: separator) + close + "</details>\n"
        return html
    }

    /// The style of what ``folded(_:open:close:separator:noun:plural:)`` folds,
    /// and of a grid cell whose check is not in its path's range.
    static let foldedCSS = """
        details.more { margin: 0.3rem 0 0.6rem; }
        details.more > summary { cursor: pointer; color: var(--accent); font-size: 0.85rem; }
        .cell.range { color: var(--muted); font-style: italic; }
        """
}
