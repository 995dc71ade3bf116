import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

extension AnonymizationEngine {
    // MARK: - What a rule must keep

    /// Refuses, before anything is written, a rule that cannot keep what the
    /// column's constraints compare: a strategy that gives different values
    /// one output (`mask`, `value`) on a column that must stay unique, and any
    /// rewrite of a column compared under a collation SQLite does not define
    /// itself (fixturekit cannot tell which values it makes equal).
    /// - Throws: ``FixtureKitError`` (exit 2) naming the constraint or the collation.
    static func checkStructure(_ strategy: Strategy, column: AnonymizationSchema.Column, of table: AnonymizationSchema.Table, name: String, fail: (String, String?) -> FixtureKitError) throws(FixtureKitError) {
        switch strategy {
        case .keep, .null: return
        case .mask, .value:
            guard column.unique else { break }
            let constraint = uniqueConstraint(of: column, in: table)
            let what = strategy.name == "mask" ? "mask gives different values the same output" : "value writes one constant into every row"
            throw fail("\(name): \(what), and \(constraint) needs its values distinct", "use pseudonym, which keeps them distinct (format digits keeps lengths and separators), or null")
        default:
            break
        }
        var collations: [(String, String)] = []
        if !AnonymizationSchema.builtinCollations.contains(column.collation) {
            collations.append((column.collation, "declared on the column"))
        }
        for index in table.indexes where index.covers(column.name) {
            for key in index.keys where (key.column == nil || key.column.map(\.identifierKey) == column.name.identifierKey)
                && !AnonymizationSchema.builtinCollations.contains(key.collation) {
                collations.append((key.collation, "of \(index.label)"))
            }
        }
        if let (collation, place) = collations.first {
            throw fail(
                "\(name): collation \(collation) (\(place)) is not one of SQLite's own (BINARY, NOCASE, RTRIM): fixturekit cannot tell which values it makes equal, so it cannot keep them equal and distinct",
                "give the column \"keep\", or \"null\"")
        }
    }

    /// How a message names the constraint that makes `column` unique.
    static func uniqueConstraint(of column: AnonymizationSchema.Column, in table: AnonymizationSchema.Table) -> String {
        let key = column.name.identifierKey
        if let index = table.indexes.first(where: { $0.unique && $0.keys.count == 1 && $0.keys[0].column.map(\.identifierKey) == key }) {
            return index.label
        }
        return "the PRIMARY KEY of \(table.name)"
    }
}
