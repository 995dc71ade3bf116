import Foundation
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// The rows behind a UNIQUE or NOT NULL failure of a stage's statement: the
/// keys that would be held twice, or the rows whose column would be NULL, at
/// most ``shown`` of them with their count.
///
/// SQLite names the constraint's columns (`UNIQUE constraint failed: users.email`)
/// but not the rows. The statement is run again inside a savepoint, with a
/// temporary `BEFORE INSERT` (and `BEFORE UPDATE`) trigger on the table that
/// copies each row the statement would write into a temporary table and skips
/// it (`RAISE(IGNORE)`); the rows are then grouped with those already in the
/// table, and the savepoint is rolled back: nothing of it stays. A statement
/// that writes no row (`CREATE UNIQUE INDEX`) finds the rows already there.
struct ConstraintProbe {
    /// How many keys or rows a finding names.
    static let shown = 5
    static let savepoint = "fixturekit_constraint_probe"
    static let rows = "temp.fixturekit_constraint_rows"

    let database: Database
    /// Its business keys (`keys`) name rows; its anonymization rules' personal columns are not shown.
    let configuration: CorpusConfiguration

    /// The lines that name the rows behind `error`, which `statement` raised
    /// while the connection is still in the state it failed in; none when it is
    /// not a UNIQUE, NOT NULL or (of a DELETE or DROP TABLE) foreign key failure,
    /// or the rows cannot be found.
    func describe(_ error: SQLiteError, statement: ScriptStatement) -> [String] {
        if error.isForeignKeyViolation { return (try? references(to: statement.actions.removes)) ?? [] }
        let unique = error.isUniqueViolation
        guard unique || error.isNotNullViolation, let (table, columns) = Self.constraint(error.message) else { return [] }
        do {
            return try database.inSavepoint(Self.savepoint, end: .rollback) { () throws(SQLiteError) in
                let info = try database.rows("SELECT name, pk FROM pragma_table_info(?1)", [.text(table)])
                let withoutRowID = try database.scalar("SELECT wr FROM pragma_table_list(?1) WHERE schema = 'main'", [.text(table)])?.integer == 1
                let primaryKey = info.filter { ($0[1].integer ?? 0) > 0 }.sorted { ($0[1].integer ?? 0) < ($1[1].integer ?? 0) }.compactMap { $0[0].text }
                let declared = configuration.keys?.value(forName: table)
                let naming = unique ? columns : (declared ?? primaryKey)
                try capture(table, naming, nullIn: unique ? nil : columns.first, statement: statement, withoutRowID: withoutRowID)
                // Read only now: a failure is rare, the rules file is read for it alone.
                let personal = configuration.personalColumns
                return try unique ? duplicates(table, columns, withoutRowID: withoutRowID, personal: personal) : nulls(table, columns[0], naming, personal: personal)
            }
        } catch {
            return []
        }
    }

    /// `("users", ["email"])` of `UNIQUE constraint failed: users.email`.
    static func constraint(_ message: String) -> (table: String, columns: [String])? {
        guard let colon = message.range(of: "constraint failed: ") else { return nil }
        let names = message[colon.upperBound...].components(separatedBy: ", ").compactMap(CorpusConfiguration.columnName)
        guard let table = names.first?.table, names.allSatisfy({ $0.table == table }) else { return nil }
        return (table, names.map(\.column))
    }

    /// Runs the statement again, each row it would write copied into ``rows``
    /// (`old` the rowid an update would change) and skipped. With `nullIn`, only
    /// the rows that hold NULL there are copied.
    func capture(_ table: String, _ columns: [String], nullIn: String?, statement: ScriptStatement, withoutRowID: Bool) throws(SQLiteError) {
        let names = columns.indices.map { "c\($0)" }
        try database.execute("CREATE TEMP TABLE \(Self.rows) (old, \(names.joined(separator: ", ")))")
        let target = "main.\(quotedIdentifier(table))"
        func copy(_ old: String) -> String {
            let values = columns.map { "NEW.\(quotedIdentifier($0))" }.joined(separator: ", ")
            let filter = nullIn.map { " WHERE NEW.\(quotedIdentifier($0)) IS NULL" } ?? ""
            // A trigger's INSERT names its table unqualified: a temporary trigger finds the temporary table first.
            return "INSERT INTO \(Self.rows.dropFirst("temp.".count)) SELECT \(old), \(values)\(filter); SELECT RAISE(IGNORE);"
        }
        let writes = statement.actions.inserts.contains(table) || statement.actions.updates.contains(table)
        guard writes else { return }
        try database.execute("CREATE TEMP TRIGGER fixturekit_probe_insert BEFORE INSERT ON \(target) BEGIN \(copy("NULL")) END")
        if !withoutRowID {
            try database.execute("CREATE TEMP TRIGGER fixturekit_probe_update BEFORE UPDATE ON \(target) BEGIN \(copy("OLD.rowid")) END")
        }
        let again = try database.prepare(statement.statement.sql)
        while try again.step() {}
    }

    /// `users.email: 2 keys held by more than one row: 'a@x' (2 rows); 'b@x' (3 rows)`.
    private func duplicates(_ table: String, _ columns: [String], withoutRowID: Bool, personal: Set<String>?) throws(SQLiteError) -> [String] {
        let found = try duplicateKeys(table, columns, collations: nil, withoutRowID: withoutRowID, personal: personal)
        guard found.count > 0 else { return [] }
        let name = columns.map { "\(table).\($0)" }.joined(separator: ", ")
        return ["\(name): \(Self.count(found.count, "key")) held by more than one row\(found.count > Self.shown ? ", the first \(Self.shown)" : ""): \(found.shown.joined(separator: "; "))"]
    }

    /// The keys held by more than one row, once the rows ``capture(_:_:nullIn:statement:withoutRowID:)``
    /// copied are added: their count and the first ``shown`` (`'a@x' (2 rows)`),
    /// grouped under `collations` (one for each column; `BINARY` when `nil`).
    func duplicateKeys(_ table: String, _ columns: [String], collations: [String]?, withoutRowID: Bool, personal: Set<String>?) throws(SQLiteError) -> (count: Int, shown: [String]) {
        let names = columns.indices.map { "c\($0)" }
        let grouping = names.indices.map { index in names[index] + (collations.map { " COLLATE " + quotedIdentifier($0[index]) } ?? "") }
        let kept = withoutRowID ? "" : " WHERE rowid NOT IN (SELECT old FROM \(Self.rows) WHERE old IS NOT NULL)"
        let rows = "SELECT \(columns.map(quotedIdentifier).joined(separator: ", ")) FROM main.\(quotedIdentifier(table))\(kept) UNION ALL SELECT \(names.joined(separator: ", ")) FROM \(Self.rows)"
        // NULLs are never duplicates: UNIQUE lets any number of them be.
        let grouped = "WITH r(\(names.joined(separator: ", "))) AS (\(rows)) SELECT \(names.joined(separator: ", ")), count(*) AS n FROM r WHERE \(names.map { "\($0) IS NOT NULL" }.joined(separator: " AND ")) GROUP BY \(grouping.joined(separator: ", ")) HAVING n > 1"
        let count = Int(try database.scalar("SELECT count(*) FROM (\(grouped))")?.integer ?? 0)
        guard count > 0 else { return (0, []) }
        let hidden = columns.contains { Self.isPersonal(table, $0, personal) }
        let first = try database.rows("SELECT * FROM (\(grouped)) ORDER BY \(grouping.joined(separator: ", ")) LIMIT \(Self.shown)").map { row in
            let key = hidden ? ConfiguredChecks.hidden : Self.key(Array(row.dropLast()))
            return "\(key) (\(row.last?.integer ?? 0) rows)"
        }
        return (count, first)
    }

    /// `notes.title: 7 rows would hold NULL, the first 5: id 3; id 9; ...`, named by their key.
    private func nulls(_ table: String, _ column: String, _ naming: [String], personal: Set<String>?) throws(SQLiteError) -> [String] {
        let count = Int(try database.scalar("SELECT count(*) FROM \(Self.rows)")?.integer ?? 0)
        guard count > 0 else { return [] }
        let rows = try database.rows("SELECT * FROM \(Self.rows) LIMIT \(Self.shown)").map { row -> String in
            if let old = row.first?.integer { return "rowid \(old)" }
            guard !naming.isEmpty else { return "a row without a key" }
            if naming.contains(where: { Self.isPersonal(table, $0, personal) }) { return ConfiguredChecks.hidden }
            return zip(naming, row.dropFirst()).map { "\($0) \(Self.key([$1]))" }.joined(separator: ", ")
        }
        return ["\(table).\(column): \(Self.count(count, "row")) would hold NULL\(count > Self.shown ? ", the first \(Self.shown)" : ""): \(rows.joined(separator: "; "))"]
    }

    /// `notes.folder_id -> folders(id): 12 rows refer to folders`: each foreign key
    /// of one column that refers to a table whose rows the statement removes, and
    /// how many rows refer to them. SQLite says only `FOREIGN KEY constraint failed`.
    private func references(to parents: [String]) throws(SQLiteError) -> [String] {
        var lines: [String] = []
        for parent in parents {
            for child in try Self.children(of: parent, in: database) where child.count > 0 {
                lines.append("\(child.table).\(child.column) -> \(parent)(\(child.parentColumn)): \(Self.count(child.count, "row")) \(child.count == 1 ? "refers" : "refer") to \(parent)")
            }
        }
        return lines
    }

    /// A foreign key of one column of `table` that refers to a parent, and how many of its rows refer to a row the parent holds.
    struct ChildKey {
        var table: String
        var column: String
        var parentColumn: String
        var count: Int
    }

    /// Each foreign key of one column that refers to `parent` (a key of several
    /// columns is left out: counted by one column, it would count wrongly), with
    /// the rows that refer to a row `parent` holds.
    static func children(of parent: String, in database: Database) throws(SQLiteError) -> [ChildKey] {
        let keys = try database.rows("""
            SELECT m.name, f.id, f."from", f."to" FROM main.sqlite_schema AS m, pragma_foreign_key_list(m.name, 'main') AS f
            WHERE m.type = 'table' AND f."table" = ?1 COLLATE NOCASE ORDER BY m.name, f.id
            """, [.text(parent)])
        let primaryKey = try database.rows("SELECT name FROM pragma_table_info(?1, 'main') WHERE pk > 0", [.text(parent)]).compactMap { $0.first?.text }
        var found: [ChildKey] = []
        for row in keys where keys.filter({ $0[0] == row[0] && $0[1] == row[1] }).count == 1 {
            guard let child = row[0].text, let from = row[2].text, let to = row[3].text ?? (primaryKey.count == 1 ? primaryKey[0] : nil) else { continue }
            let count = try database.scalar("""
                SELECT count(*) FROM main.\(quotedIdentifier(child)) WHERE \(quotedIdentifier(from)) IN (SELECT \(quotedIdentifier(to)) FROM main.\(quotedIdentifier(parent)))
                """)?.integer ?? 0
            found.append(ChildKey(table: child, column: from, parentColumn: to, count: Int(count)))
        }
        return found
    }

    /// `1 row`, `2 rows`.
    static func count(_ number: Int, _ singular: String) -> String {
        "\(number) \(singular)\(number == 1 ? "" : "s")"
    }

    static func isPersonal(_ table: String, _ column: String, _ personal: Set<String>?) -> Bool {
        personal.map { $0.contains("\(table).\(column)".identifierKey) } ?? true
    }

    /// `'a@x'`, `3`, `(1, 'x')`: a key as an SQL literal.
    static func key(_ values: [SQLiteValue]) -> String {
        let literals = values.map { value -> String in
            switch value {
            case .null: "NULL"
            case .text(let text): quotedLiteral(text)
            case .blob(let bytes): "<\(bytes.count) bytes>"
            default: value.description
            }
        }
        return literals.count == 1 ? literals[0] : "(" + literals.joined(separator: ", ") + ")"
    }
}
