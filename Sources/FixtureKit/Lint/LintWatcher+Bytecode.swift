import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// V001's features that only the statement's program shows: SQLite is asked
/// for the statement's bytecode (`EXPLAIN`) and its query plan (`EXPLAIN QUERY
/// PLAN`) after it ran, and what they hold is read, never the statement's text.
extension LintWatcher {
    /// The functions that are window functions only: an aggregate seen in a window (`AggValue`) that is not one of them is an aggregate used as a window function.
    static let windowOnly: Set<String> = ["row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead", "first_value", "last_value", "nth_value"]

    /// What the statement's program shows it needs: an aggregate used as a window
    /// function (an `AggValue` of it: only windows compute a value before the
    /// end), `NULLS FIRST`/`LAST` against the default (a sort key SQLite marks
    /// `N.` in its `KeyInfo`), UPSERT's `DO UPDATE` (the authorizer's `SQLITE_UPDATE`
    /// of the table an INSERT writes), `UPDATE ... FROM` (an UPDATE whose plan
    /// loops over more than one table at its top level), `RIGHT` and `FULL JOIN`
    /// (a `RIGHT-JOIN` step of the plan).
    func programFeatures(of statement: ScriptStatement) -> [Feature] {
        let actions = statement.actions
        guard actions.transaction == nil, actions.pragma == nil, (actions.creates + actions.drops + actions.alters).isEmpty, actions.createsIndex.isEmpty else { return [] }
        var found: [Feature] = []
        // A CREATE of a view or trigger inserts and updates its row of sqlite_schema: not an UPSERT.
        let inserted = Set(actions.inserts.map { $0.identifierKey }.filter { !$0.hasPrefix("sqlite_") })
        if !inserted.isDisjoint(with: actions.updates.map { $0.identifierKey }) {
            found.append(Feature(name: "UPSERT (ON CONFLICT ... DO UPDATE)", since: "3.24.0"))
        }
        let sql = statement.statement.sql
        if let program = try? database.rows("EXPLAIN " + sql) {
            for instruction in program where instruction.count > 5 {
                let opcode = instruction[1].text ?? "", p4 = instruction[5].text ?? ""
                if opcode == "AggValue", let name = p4.split(separator: "(").first.map(String.init), !Self.windowOnly.contains(name.identifierKey) {
                    found.append(Feature(name: "\(name)() as a window function (OVER)", since: "3.25.0"))
                }
                if p4.hasPrefix("k("), p4.split(separator: ",").dropFirst().contains(where: { $0.hasPrefix("N.") || $0.hasPrefix("-N.") }) {
                    found.append(Feature(name: "NULLS FIRST or NULLS LAST", since: "3.30.0"))
                }
            }
        }
        if let plan = try? database.rows("EXPLAIN QUERY PLAN " + sql) {
            let steps = plan.filter { $0.count > 3 }.map { (parent: $0[1].integer ?? -1, detail: $0[3].text ?? "") }
            if steps.contains(where: { $0.detail.hasPrefix("RIGHT-JOIN ") }) { found.append(Feature(name: "RIGHT JOIN or FULL JOIN", since: "3.39.0")) }
            let loops = steps.filter { $0.parent == 0 && ($0.detail.hasPrefix("SCAN ") || $0.detail.hasPrefix("SEARCH ")) }
            // A view updated through its INSTEAD OF trigger loops over the view's own tables: only a table's UPDATE counts.
            let tables = !actions.updates.isEmpty && actions.inserts.isEmpty && actions.updates.allSatisfy(exists)
            if tables, loops.count > 1 { found.append(Feature(name: "UPDATE ... FROM", since: "3.33.0")) }
        }
        return found
    }
}
