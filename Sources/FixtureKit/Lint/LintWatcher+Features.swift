import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// V001: what a statement needs of SQLite that is newer than the oldest SQLite
/// the app supports (`minimumSQLite`), learnt from what SQLite reports of it:
/// the functions the authorizer is asked about (`SQLITE_FUNCTION`; the JSON
/// operators `->` and `->>` are functions to it), a writing statement that returns
/// columns (RETURNING), and the schema after it (a column dropped or renamed, a
/// generated column, a STRICT table). docs/commands/lint.md has the table, with
/// SQLite's release log as its source.
extension LintWatcher {
    /// A feature and the SQLite release that brought it.
    struct Feature {
        var name: String
        var since: String
    }

    /// Functions by name (by `identifierKey`), with the release that brought them.
    static let functions: [String: String] = {
        var table: [String: String] = [:]
        for name in windowOnly { table[name] = "3.25.0" }
        table["iif"] = "3.32.0"
        for name in ["acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "ceiling", "cos", "cosh", "degrees", "exp", "floor", "ln", "log", "log10", "log2", "mod", "pi", "pow", "power", "radians", "sin", "sinh", "sqrt", "tan", "tanh", "trunc"] {
            table[name] = "3.35.0"
        }
        for name in ["->", "->>", "unixepoch", "format"] { table[name] = "3.38.0" }
        table["unhex"] = "3.41.0"
        for name in ["octet_length", "timediff"] { table[name] = "3.43.0" }
        for name in ["concat", "concat_ws", "string_agg"] { table[name] = "3.44.0" }
        return table
    }()

    /// The features `statement`, which just ran, needs; `before` the tables it altered as they were.
    func features(of statement: ScriptStatement, altered before: [String: TableBefore]) -> [Feature] {
        let actions = statement.actions
        var found = actions.functions.compactMap { name in Self.functions[name].map { Feature(name: name.hasPrefix("-") ? "the \(name) operator" : "\(name)()", since: $0) } }
        let writes = !(actions.inserts + actions.updates + actions.removes).isEmpty
        if writes, actions.pragma == nil, statement.statement.columnCount > 0 { found.append(Feature(name: "RETURNING", since: "3.35.0")) }
        for (table, old) in before {
            guard let now = columns(of: table) else { continue }
            if now.count < old.columns.count { found.append(Feature(name: "ALTER TABLE ... DROP COLUMN", since: "3.35.0")) }
            if now.count == old.columns.count, now.map({ $0.identifierKey }) != old.columns.map({ $0.identifierKey }) {
                found.append(Feature(name: "ALTER TABLE ... RENAME COLUMN", since: "3.25.0"))
            }
        }
        found += programFeatures(of: statement)
        for table in actions.creates + actions.alters {
            let generated = (try? database.scalar("SELECT count(*) FROM pragma_table_xinfo(?1, 'main') WHERE hidden IN (2, 3)", [.text(table)])) ?? nil
            if (generated?.integer ?? 0) > 0 { found.append(Feature(name: "generated columns", since: "3.31.0")) }
            let strict = (try? database.scalar("SELECT strict FROM pragma_table_list(?1) WHERE schema = 'main'", [.text(table)])) ?? nil
            if strict?.integer == 1 { found.append(Feature(name: "STRICT tables", since: "3.37.0")) }
        }
        return found
    }

    /// Notes each feature `statement` needs that is newer than the oldest SQLite
    /// the app supports (`minimumSQLite`, or the oldest the `platforms` bundle).
    func checkFeatures(_ statement: ScriptStatement, at place: StagePlace, altered before: [String: TableBefore]) {
        guard let (minimum, source) = configuration.oldestSQLite, let oldest = Version(minimum) else { return }
        var seen: Set<String> = []
        for feature in features(of: statement, altered: before) where seen.insert(feature.name).inserted {
            guard let since = Version(feature.since), oldest < since else { continue }
            observe(.newerSQLite, place, "\(feature.name) needs SQLite \(feature.since); the oldest the app supports is \(minimum) (\(source))")
        }
    }
}
