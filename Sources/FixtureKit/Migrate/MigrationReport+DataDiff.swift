import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

extension MigrationReport {
    /// The HTML report's data diff: per path, per table and column, how many
    /// values were equal, lost, NULLed, changed (emptied and truncated values
    /// included) and moved to another table, with the first keys of those
    /// that were not equal. Paths without a value-level comparison are left out.
    func dataDiffHTML() -> String {
        var html = "<section aria-labelledby=\"data-diff\">\n<h2 id=\"data-diff\">Data diff</h2>\n"
        let compared = paths.filter { !$0.preservation.isEmpty }
        if compared.isEmpty { html += "<p class=\"none-failed\">No path got as far as comparing values.</p>\n" }
        for path in compared {
            let differing = path.preservation.filter { !$0.passed }.count
            let summary = differing == 0 ? "every value preserved" : "\(differing) of \(path.preservation.count) tables and columns differ"
            html += "<details class=\"data-diff\"\(differing > 0 ? " open" : "")>\n"
            html += "<summary>\(HTML.escape((path.kind == .hop ? "hop " : "") + path.id)): \(HTML.escape(summary))</summary>\n"
            html += "<table class=\"data-diff\">\n<thead><tr><th scope=\"col\">table.column</th><th scope=\"col\">equal</th><th scope=\"col\">lost</th>"
            html += "<th scope=\"col\">NULLed</th><th scope=\"col\">changed</th><th scope=\"col\">moved</th><th scope=\"col\">first keys</th></tr></thead>\n<tbody>\n"
            for column in path.preservation {
                var name = column.column.map { "\(column.table).\($0)" } ?? "\(column.table) (rows)"
                if let movedTo = column.movedTo { name += " → \(movedTo)" }
                let changed = column.changed + column.emptied + column.truncated
                let cells = [column.equal, column.lost, column.nulled, changed].map { "<td>\($0)</td>" }.joined()
                let moved = column.moved.map { "<td>\($0)</td>" } ?? "<td>-</td>"
                html += "<tr class=\"diff-\(column.passed ? "same" : "differs")\"><th scope=\"row\"><code>\(HTML.escape(name))</code></th>\(cells)\(moved)"
                html += "<td>\(HTML.escape(column.exampleKeys.joined(separator: "; ")))</td></tr>\n"
            }
            html += "</tbody>\n</table>\n</details>\n"
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
        """
}
