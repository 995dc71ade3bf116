import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// The HTML report's data diff: per path, per table and column, the values
/// equal, lost, NULLed, changed and moved, with the first keys.
@Suite struct HTMLDataDiffTests {
    @Test func thePageShowsEachColumnsCountsAndFirstKeys() throws {
        let contacts = try ContactsCorpus()
        try contacts.writeStage(ContactsCorpus.stage.replacingOccurrences(of: "WHERE phone IS NOT NULL", with: "WHERE phone IS NOT NULL AND id > 2")
            + "\nUPDATE contacts SET zip = NULL WHERE id = 4;\nUPDATE contacts SET name = 'x' WHERE id IN (5, 6);\n")
        let page = contacts.folder.url("report.html")
        let result = fixturekit("migrate", "--config", contacts.config, "--html", page)
        #expect(result.status == 1, "\(result.standardError)")
        let html = String(decoding: try contacts.folder.read("report.html"), as: UTF8.self)
        #expect(html.contains("<h2 id=\"data-diff\">Data diff</h2>\n<details class=\"data-diff\" open>\n<summary>1.0.0 -&gt; 2.0.0: 3 of 8 tables and columns differ, 1 unchecked</summary>\n"), "\(html)")
        #expect(html.contains("<th scope=\"col\">equal</th><th scope=\"col\">lost</th><th scope=\"col\">dropped</th><th scope=\"col\">NULLed</th><th scope=\"col\">changed</th><th scope=\"col\">moved</th><th scope=\"col\">first rows</th>"))
        // The rows that differ come first, in the order of the comparison.
        #expect(html.contains("<tbody>\n<tr class=\"diff-differs\"><th scope=\"row\"><code>contacts.phone → phones.number</code></th><td>4</td><td>2</td><td>-</td><td>0</td><td>0</td><td>4</td><td>1: (personal) → no row; 2: (personal) → no row</td></tr>\n"
            + "<tr class=\"diff-differs\"><th scope=\"row\"><code>contacts.fullname</code></th><td>6</td><td>0</td><td>-</td><td>0</td><td>2</td><td>-</td><td>5: (personal) → (personal); 6: (personal) → (personal)</td></tr>\n"
            + "<tr class=\"diff-differs\"><th scope=\"row\"><code>contacts.zip</code></th><td>7</td><td>0</td><td>-</td><td>1</td><td>0</td><td>-</td><td>4: &#39;50667&#39; → NULL</td></tr>\n"
            + "<tr class=\"diff-same\"><th scope=\"row\"><code>contacts (rows)</code></th><td>8</td><td>0</td><td>-</td><td>0</td><td>0</td><td>-</td><td></td></tr>\n"), "\(html)")
        // A personal column's rows are named by their ids, its values never shown.
        #expect(!html.contains("Person 5"))
        #expect(!html.contains("555 01"))
        #expect(html.contains("<tr class=\"diff-same\"><th scope=\"row\"><code>tags.name</code></th><td>2</td>"))
        // What no value of 1.0.0 stands for: the new table's own ids.
        #expect(html.contains("</table>\n<p class=\"label\">Unchecked: no value of 1.0.0 stands for these</p>\n<ul class=\"unchecked\">\n<li><code>phones.id: not in 1.0.0</code></li>\n</ul>\n</details>\n"))
    }

    @Test func aPassingPathsDiffIsFolded() throws {
        let contacts = try ContactsCorpus()
        let page = contacts.folder.url("report.html")
        #expect(fixturekit("migrate", "--config", contacts.config, "--html", page).status == 0)
        let html = String(decoding: try contacts.folder.read("report.html"), as: UTF8.self)
        #expect(html.contains("<details class=\"data-diff\">\n<summary>1.0.0 -&gt; 2.0.0: every value preserved, 1 unchecked</summary>\n"), "\(html)")
    }
}
