import FixtureKitSQLite
import FixtureKitSystem

/// The structural differences between two schemas, in plain words:
/// `notes.created_at: TEXT here, INTEGER in 3.0.0`, `index notes_by_title: missing`.
///
/// Names are compared as SQLite resolves them (`identifierKey`: ASCII
/// letters without case): those of tables, columns, indexes, views and
/// triggers, and the names inside an index's or a foreign key's description
/// (its table, columns and collations). A name is shown as the schema spells it.
/// The statement of a view, a trigger, or a partial or expression index is
/// compared as written.
public enum SchemaDiff {
    /// Every difference of `schema` from `reference`, named after `referenceName`
    /// (`3.0.0`), in a stable order: tables, then indexes, views, triggers.
    public static func differences(_ schema: SchemaSnapshot, from reference: SchemaSnapshot, referenceName: String) -> [String] {
        var lines: [String] = []
        let ours = Dictionary(schema.tables.map { ($0.name.identifierKey, $0) }, uniquingKeysWith: { first, _ in first })
        let theirs = Dictionary(reference.tables.map { ($0.name.identifierKey, $0) }, uniquingKeysWith: { first, _ in first })
        for key in Set(ours.keys).union(theirs.keys).sorted() {
            switch (ours[key], theirs[key]) {
            case (nil, let expected?):
                lines.append("table \(expected.name): missing (\(referenceName) has it)")
            case (let table?, nil):
                lines.append("table \(table.name): extra (not in \(referenceName))")
            case let (table?, expected?):
                lines += tableDifferences(table, expected, referenceName: referenceName)
            case (nil, nil):
                break
            }
        }
        let index = { (index: SchemaSnapshot.Index) in Described(name: index.name, shown: describe(index), compared: describe(index, foldingNames: true)) }
        lines += namedDifferences("index", schema.indexes.map(index), reference.indexes.map(index), referenceName)
        let statement = { (name: String, sql: String) in Described(name: name, shown: sql, compared: sql) }
        lines += namedDifferences("view", schema.views.map { statement($0.name, $0.sql) }, reference.views.map { statement($0.name, $0.sql) }, referenceName)
        lines += namedDifferences("trigger", schema.triggers.map { statement($0.name, $0.sql) }, reference.triggers.map { statement($0.name, $0.sql) }, referenceName)
        return lines
    }

    private static func tableDifferences(_ table: SchemaSnapshot.Table, _ expected: SchemaSnapshot.Table, referenceName: String) -> [String] {
        var lines: [String] = []
        let name = table.name
        if table.kind != expected.kind { lines.append("table \(name): \(table.kind) here, \(expected.kind) in \(referenceName)") }
        if table.withoutRowID != expected.withoutRowID {
            lines.append("table \(name): \(table.withoutRowID ? "WITHOUT ROWID" : "rowid") here, \(expected.withoutRowID ? "WITHOUT ROWID" : "rowid") in \(referenceName)")
        }
        if table.strict != expected.strict {
            lines.append("table \(name): \(table.strict ? "STRICT" : "not STRICT") here, \(expected.strict ? "STRICT" : "not STRICT") in \(referenceName)")
        }
        let columns = Dictionary(table.columns.map { ($0.name.identifierKey, $0) }, uniquingKeysWith: { first, _ in first })
        let expectedColumns = Dictionary(expected.columns.map { ($0.name.identifierKey, $0) }, uniquingKeysWith: { first, _ in first })
        for column in expected.columns where columns[column.name.identifierKey] == nil {
            lines.append("\(name).\(column.name): missing (\(referenceName) has it)")
        }
        for column in table.columns {
            guard let other = expectedColumns[column.name.identifierKey] else {
                lines.append("\(name).\(column.name): extra (not in \(referenceName))")
                continue
            }
            let label = "\(name).\(column.name)"
            if column.type != other.type {
                lines.append("\(label): \(typeName(column.type)) here, \(typeName(other.type)) in \(referenceName)")
            }
            if column.notNull != other.notNull {
                lines.append("\(label): \(column.notNull ? "NOT NULL" : "nullable") here, \(other.notNull ? "NOT NULL" : "nullable") in \(referenceName)")
            }
            if column.defaultValue != other.defaultValue {
                lines.append("\(label): default \(column.defaultValue ?? "none") here, \(other.defaultValue ?? "none") in \(referenceName)")
            }
            if column.primaryKey != other.primaryKey {
                lines.append("\(label): \(keyPosition(column.primaryKey)) here, \(keyPosition(other.primaryKey)) in \(referenceName)")
            }
            if column.hidden != other.hidden {
                lines.append("\(label): \(hiddenName(column.hidden)) here, \(hiddenName(other.hidden)) in \(referenceName)")
            }
        }
        let order = table.columns.map { $0.name.identifierKey }.filter { expectedColumns[$0] != nil }
        let expectedOrder = expected.columns.map { $0.name.identifierKey }.filter { columns[$0] != nil }
        if order != expectedOrder {
            lines.append("table \(name): columns in another order (\(order.joined(separator: ", ")) here, \(expectedOrder.joined(separator: ", ")) in \(referenceName))")
        }
        let key = { (key: SchemaSnapshot.ForeignKey) in (describe(key, foldingNames: true), describe(key)) }
        let keys = Dictionary(table.foreignKeys.map(key), uniquingKeysWith: { first, _ in first })
        let expectedKeys = Dictionary(expected.foreignKeys.map(key), uniquingKeysWith: { first, _ in first })
        for (compared, shown) in expectedKeys.sorted(by: { $0.key < $1.key }) where keys[compared] == nil {
            lines.append("table \(name): foreign key \(shown) missing (\(referenceName) has it)")
        }
        for (compared, shown) in keys.sorted(by: { $0.key < $1.key }) where expectedKeys[compared] == nil {
            lines.append("table \(name): foreign key \(shown) extra (not in \(referenceName))")
        }
        return lines
    }

    /// A named object: its description as shown, and as compared.
    private struct Described {
        var name: String
        var shown: String
        var compared: String
    }

    private static func namedDifferences(_ kind: String, _ ours: [Described], _ theirs: [Described], _ referenceName: String) -> [String] {
        let mine = Dictionary(ours.map { ($0.name.identifierKey, $0) }, uniquingKeysWith: { first, _ in first })
        let expected = Dictionary(theirs.map { ($0.name.identifierKey, $0) }, uniquingKeysWith: { first, _ in first })
        var lines: [String] = []
        for key in Set(mine.keys).union(expected.keys).sorted() {
            switch (mine[key], expected[key]) {
            case (nil, let there?): lines.append("\(kind) \(there.name): missing (\(referenceName) has it)")
            case (let here?, nil): lines.append("\(kind) \(here.name): extra (not in \(referenceName))")
            case let (here?, there?) where here.compared != there.compared:
                lines.append("\(kind) \(here.name): \(here.shown) here, \(there.shown) in \(referenceName)")
            default: break
            }
        }
        return lines
    }

    /// `foldingNames`: the index's table, columns and collations as `identifierKey` gives them (to compare).
    static func describe(_ index: SchemaSnapshot.Index, foldingNames: Bool = false) -> String {
        let name = { (name: String) in foldingNames ? name.identifierKey : name }
        let columns = index.columns.map { column in
            var text = column.name.map(name) ?? "<expression>"
            if column.descending { text += " DESC" }
            if column.collation.identifierKey != "binary" { text += " COLLATE \(name(column.collation))" }
            return text
        }.joined(separator: ", ")
        var text = "\(index.unique ? "UNIQUE " : "")on \(name(index.table))(\(columns))"
        if index.partial { text += " WHERE …" }
        // Expressions and WHERE clauses are only in the statement.
        if index.partial || index.columns.contains(where: { $0.name == nil }), let sql = index.sql { text += " [\(sql)]" }
        return text
    }

    /// `foldingNames`: the key's tables and columns as `identifierKey` gives them (to compare).
    static func describe(_ key: SchemaSnapshot.ForeignKey, foldingNames: Bool = false) -> String {
        let name = { (name: String) in foldingNames ? name.identifierKey : name }
        let to = key.to.map { $0.map(name) ?? "<primary key>" }.joined(separator: ", ")
        return "(\(key.from.map(name).joined(separator: ", "))) -> \(name(key.table))(\(to)) ON UPDATE \(key.onUpdate) ON DELETE \(key.onDelete)"
    }

    private static func typeName(_ type: String) -> String { type.isEmpty ? "no type" : type }
    private static func keyPosition(_ position: Int) -> String { position == 0 ? "not in the primary key" : "primary key column \(position)" }
    private static func hiddenName(_ hidden: Int) -> String {
        switch hidden {
        case 0: "ordinary"
        case 1: "hidden"
        case 2: "generated (virtual)"
        default: "generated (stored)"
        }
    }
}
