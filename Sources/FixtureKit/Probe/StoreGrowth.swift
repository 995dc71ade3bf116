import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// A store's tables grown to `factor` times their rows, for the `size` probe:
/// each table's rows copied `factor - 1` times from the original (attached
/// read-only as `original`), each copy `k` with new keys that keep every
/// UNIQUE constraint and FOREIGN KEY:
///
/// - a key column (one of the primary key, of a UNIQUE constraint or index,
///   or a foreign key's child or parent column) gets, in copy `k`, an integer
///   or real value plus `k × offset`, a text value `~k` appended, a blob the
///   bytes of `~k` appended; NULL stays NULL (UNIQUE lets NULLs repeat);
/// - the columns a foreign key joins share one offset (its "domain": the
///   columns joined by foreign keys, transitively), larger than the spread of
///   every numeric value in them, so a child copied in round `k` points at its
///   parent's copy `k`, and no copy meets another's keys; a composite key is
///   unique since each of its columns is shifted;
/// - an `INTEGER PRIMARY KEY` (the rowid) is a key column as any other; a
///   rowid that is not a column is left for SQLite to assign; `AUTOINCREMENT`
///   moves `sqlite_sequence` on by itself, as SQLite does for an explicit rowid;
///   a table `WITHOUT ROWID` is copied by its primary key the same way;
/// - other columns are copied as they are; generated columns are computed again.
///
/// Triggers are dropped while the rows are copied and made again from their SQL
/// (the copies are the original rows again, not new user actions), and foreign
/// keys are not enforced meanwhile. What cannot be grown is left as it is and
/// said: virtual tables and their shadow tables, SQLite's own tables, a table
/// whose keys would overflow a 64-bit integer, a table SQLite refuses a copy of
/// (a CHECK constraint on a key, a UNIQUE index on an expression, a text key
/// that already ends in `~k`), and the children of a table not grown.
struct StoreGrowth {
    /// The tables grown and their rows after; the tables not grown, and why.
    struct Outcome: Equatable {
        var rows: [String: Int] = [:]
        var notGrown: [String: String] = [:]
    }

    private struct Table {
        var name: String
        var columns: [String]
        /// Column names that are keys, by `identifierKey`.
        var keys: Set<String>
        /// (parent table, child columns, parent columns).
        var references: [(table: String, from: [String], to: [String])]
    }

    static let schema = "original"

    /// Grows the tables of `database` (a copy of the store at `original`) to
    /// `factor` times their rows, in one transaction.
    static func grow(_ database: Database, original: String, factor: Int) throws(SQLiteError) -> Outcome {
        try database.execute("ATTACH DATABASE \(quotedLiteral(ConfiguredChecks.readOnlyURI(original))) AS \(schema)")
        defer { try? database.execute("DETACH DATABASE \(schema)") }
        let enforced = try database.scalar("PRAGMA foreign_keys")?.integer == 1
        try database.execute("PRAGMA foreign_keys = OFF")
        defer { if enforced { try? database.execute("PRAGMA foreign_keys = ON") } }
        return try database.inTransaction(.immediate) { () throws(SQLiteError) in try growTables(database, factor: factor) }
    }

    private static func growTables(_ database: Database, factor: Int) throws(SQLiteError) -> Outcome {
        var outcome = Outcome()
        var tables: [Table] = []
        for row in try database.rows("SELECT name, type FROM pragma_table_list WHERE schema = 'main' ORDER BY name") {
            guard let name = row[0].text, let type = row[1].text, type != "view" else { continue }
            if name.identifierKey.hasPrefix("sqlite_") { continue }
            // A virtual table's shadow tables are its own: said with it.
            if type == "shadow" { continue }
            if type == "virtual" {
                outcome.notGrown[name] = "a virtual table"
                continue
            }
            tables.append(try table(name, database))
        }
        // The key columns joined by foreign keys share an offset.
        var domains = Domains()
        for table in tables {
            for key in table.keys { domains.add(table.name, key) }
            for reference in table.references {
                for (from, to) in zip(reference.from, reference.to) { domains.join((table.name, from.identifierKey), (reference.table, to.identifierKey)) }
            }
        }
        var spans: [String: (low: Double, high: Double)] = [:]
        var members: [String: [(table: String, column: String)]] = [:]
        for table in tables {
            for column in table.columns where table.keys.contains(column.identifierKey) {
                let quoted = quotedIdentifier(column)
                let range = try database.rows(
                    "SELECT min(\(quoted)), max(\(quoted)) FROM \(schema).\(quotedIdentifier(table.name)) WHERE typeof(\(quoted)) IN ('integer', 'real')")
                guard let low = range.first?[0].number, let high = range.first?[1].number else { continue }
                let domain = domains.root(table.name, column.identifierKey)
                let known = spans[domain] ?? (low, high)
                spans[domain] = (min(known.low, low), max(known.high, high))
                members[domain, default: []].append((table.name, column))
            }
        }
        var numbering: [String: NumericKeys] = [:]
        for (domain, span) in spans.sorted(by: { $0.key < $1.key }) {
            numbering[domain] = try numericKeys(domain, span: span, members: members[domain] ?? [], factor: factor, database: database, index: numbering.count)
        }
        let triggers = try database.rows("SELECT name, sql FROM main.sqlite_schema WHERE type = 'trigger' AND sql IS NOT NULL")
        for trigger in triggers { if let name = trigger[0].text { try database.execute("DROP TRIGGER main.\(quotedIdentifier(name))") } }
        for table in parentsFirst(tables) {
            if let parent = table.references.map(\.table).first(where: { $0.identifierKey != table.name.identifierKey && outcome.notGrown[$0] != nil }) {
                outcome.notGrown[table.name] = "its parent \(parent) is not grown"
                continue
            }
            let key = table.columns.first { column in
                guard table.keys.contains(column.identifierKey), case .none? = numbering[domains.root(table.name, column.identifierKey)] else { return false }
                return true
            }
            if let key {
                outcome.notGrown[table.name] = "its key \(key) leaves no room for new keys in a 64-bit integer"
                continue
            }
            let columns = table.columns.map(quotedIdentifier).joined(separator: ", ")
            let copied = try database.attemptInSavepoint("grow") { () throws(SQLiteError) in
                for round in 1..<max(factor, 1) {
                    let values = table.columns.map { column -> String in
                        let quoted = quotedIdentifier(column)
                        guard table.keys.contains(column.identifierKey) else { return quoted }
                        let number = numbering[domains.root(table.name, column.identifierKey)].map { $0.expression(quoted, round: round) } ?? quoted
                        return "CASE typeof(\(quoted)) WHEN 'integer' THEN \(number) WHEN 'real' THEN \(number) "
                            + "WHEN 'text' THEN \(quoted) || '~\(round)' WHEN 'blob' THEN \(quoted) || CAST('~\(round)' AS BLOB) ELSE \(quoted) END"
                    }
                    try database.execute(
                        "INSERT INTO main.\(quotedIdentifier(table.name)) (\(columns)) SELECT \(values.joined(separator: ", ")) FROM \(schema).\(quotedIdentifier(table.name))")
                }
            }
            if case .failure(let error) = copied {
                outcome.notGrown[table.name] = "SQLite refuses a copy of its rows: \(error.message)"
            }
        }
        for table in tables where outcome.notGrown[table.name] == nil {
            outcome.rows[table.name] = Int(try database.scalar("SELECT count(*) FROM main.\(quotedIdentifier(table.name))")?.integer ?? 0)
        }
        for trigger in triggers { if let sql = trigger[1].text { try database.execute(sql) } }
        for case .mapped(let table, _, _)? in numbering.values { try database.execute("DROP TABLE temp.\(table)") }
        return outcome
    }

    /// How the numbers of a domain's copies are made.
    private enum NumericKeys {
        /// The value plus `round × offset`: the offset is beyond the domain's spread.
        case shift(Int64)
        /// The value's rank among the domain's distinct numbers (from 0), plus
        /// `base + round × stride`: below the smallest, or above the largest,
        /// when the spread leaves no room for a shift (keys up to 2^63 - 1).
        case mapped(table: String, base: Int64, stride: Int64)
        /// Neither fits in a 64-bit integer.
        case none

        func expression(_ column: String, round: Int) -> String {
            switch self {
            case .shift(let offset): "\(column) + \(offset * Int64(round))"
            case .mapped(let table, let base, let stride): "(SELECT \(base + Int64(round) * stride) + rank FROM temp.\(table) WHERE old = \(column))"
            case .none: column
            }
        }
    }

    /// Chooses a domain's ``NumericKeys``: a shift when the last copy's values
    /// stay below 2^63, else ranks below the smallest value or above the largest.
    private static func numericKeys(
        _ domain: String, span: (low: Double, high: Double), members: [(table: String, column: String)], factor: Int, database: Database, index: Int
    ) throws(SQLiteError) -> NumericKeys {
        let limit = 9.2e18, copies = Double(factor - 1)
        let offset = (span.high - span.low).rounded(.down) + 1
        if span.high + copies * offset < limit, span.low > -limit { return .shift(Int64(offset)) }
        let table = "fixturekit_grow_\(index)"
        let values = members.map { member in
            let quoted = quotedIdentifier(member.column)
            return "SELECT \(quoted) AS value FROM \(schema).\(quotedIdentifier(member.table)) WHERE typeof(\(quoted)) IN ('integer', 'real')"
        }
        try database.execute("CREATE TEMP TABLE \(table) (old NUMERIC PRIMARY KEY, rank INTEGER)")
        try database.execute("INSERT INTO temp.\(table) (old, rank) SELECT value, row_number() OVER (ORDER BY value) - 1 FROM (\(values.joined(separator: " UNION ")))")
        let count = Double(try database.scalar("SELECT count(*) FROM temp.\(table)")?.integer ?? 0)
        let low = span.low.rounded(.down), high = span.high.rounded(.up)
        if low - (copies + 1) * count > -limit { return .mapped(table: table, base: Int64(low), stride: -Int64(count)) }
        if high + (copies + 1) * count < limit { return .mapped(table: table, base: Int64(high) + 1 - Int64(count), stride: Int64(count)) }
        try database.execute("DROP TABLE temp.\(table)")
        return .none
    }

    /// A table's insertable columns, its key columns and its foreign keys.
    private static func table(_ name: String, _ database: Database) throws(SQLiteError) -> Table {
        let info = try database.rows("SELECT name, pk FROM pragma_table_xinfo(?1, 'main') WHERE hidden = 0 ORDER BY cid", [.text(name)])
        let columns = info.compactMap { $0[0].text }
        let primaryKey = info.filter { ($0[1].integer ?? 0) > 0 }.sorted { ($0[1].integer ?? 0) < ($1[1].integer ?? 0) }.compactMap { $0[0].text }
        var keys = Set(primaryKey.map { $0.identifierKey })
        let unique = try database.rows(
            "SELECT ii.name FROM pragma_index_list(?1, 'main') il, pragma_index_info(il.name, 'main') ii WHERE il.\"unique\" = 1 AND ii.name IS NOT NULL", [.text(name)])
        for row in unique { if let column = row[0].text { keys.insert(column.identifierKey) } }
        var references: [Int64: (table: String, from: [String], to: [String?])] = [:]
        for row in try database.rows("SELECT id, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?1, 'main') ORDER BY id, seq", [.text(name)]) {
            guard let id = row[0].integer, let parent = row[1].text, let from = row[2].text else { continue }
            references[id, default: (parent, [], [])].from.append(from)
            references[id, default: (parent, [], [])].to.append(row[3].text)
        }
        var resolved: [(table: String, from: [String], to: [String])] = []
        for (_, reference) in references.sorted(by: { $0.key < $1.key }) {
            var to = reference.to.compactMap { $0 }
            // REFERENCES parent, without columns: the parent's primary key.
            if to.count != reference.from.count {
                to = try database.rows("SELECT name FROM pragma_table_info(?1, 'main') WHERE pk > 0 ORDER BY pk", [.text(reference.table)]).compactMap { $0[0].text }
            }
            for column in reference.from { keys.insert(column.identifierKey) }
            resolved.append((reference.table, reference.from, to))
        }
        return Table(name: name, columns: columns, keys: keys, references: resolved)
    }

    /// The tables, each after the tables its foreign keys point at (a cycle in the order met).
    private static func parentsFirst(_ tables: [Table]) -> [Table] {
        var placed: Set<String> = [], ordered: [Table] = []
        func place(_ table: Table, _ visiting: Set<String>) {
            let name = table.name.identifierKey
            guard !placed.contains(name), !visiting.contains(name) else { return }
            for reference in table.references {
                if let parent = tables.first(where: { $0.name.identifierKey == reference.table.identifierKey }) { place(parent, visiting.union([name])) }
            }
            if placed.insert(name).inserted { ordered.append(table) }
        }
        for table in tables { place(table, []) }
        return ordered
    }

    /// Columns joined by foreign keys, by `table\0column` (the table by `identifierKey`; union-find).
    private struct Domains {
        private var parent: [String: String] = [:]

        private static func name(_ table: String, _ column: String) -> String { table.identifierKey + "\u{0}" + column }

        mutating func add(_ table: String, _ column: String) {
            let name = Self.name(table, column)
            if parent[name] == nil { parent[name] = name }
        }

        func root(_ table: String, _ column: String) -> String {
            var name = Self.name(table, column)
            while let up = parent[name], up != name { name = up }
            return name
        }

        mutating func join(_ first: (String, String), _ second: (String, String)) {
            add(first.0, first.1)
            add(second.0, second.1)
            let (a, b) = (root(first.0, first.1), root(second.0, second.1))
            if a != b { parent[a] = b }
        }
    }
}

extension SQLiteValue {
    /// An integer or a real as a `Double`; `nil` for the other classes.
    fileprivate var number: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .real(let value): value
        default: nil
        }
    }
}
