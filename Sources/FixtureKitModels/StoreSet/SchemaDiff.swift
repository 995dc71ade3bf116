import FixtureKitSystem

/// The structural differences between two schemas, in plain words:
/// `notes.created_at: TEXT here, INTEGER in 3.0.0`, `index notes_by_title: missing`.
public enum SchemaDiff {
    /// Every difference of `schema` from `reference`, named after `referenceName`
    /// (`3.0.0`), in a stable order: tables, then indexes, views, triggers.
    public static func differences(_ schema: SchemaSnapshot, from reference: SchemaSnapshot, referenceName: String) -> [String] {
        var lines: [String] = []
        let ours = Dictionary(schema.tables.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let theirs = Dictionary(reference.tables.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for name in Set(ours.keys).union(theirs.keys).sorted() {
            switch (ours[name], theirs[name]) {
            case (nil, .some):
                lines.append("table \(name): missing (\(referenceName) has it)")
            case (.some, nil):
                lines.append("table \(name): extra (not in \(referenceName))")
            case let (table?, expected?):
                lines += tableDifferences(table, expected, referenceName: referenceName)
            case (nil, nil):
                break
            }
        }
        lines += namedDifferences("index", schema.indexes.map { ($0.name, describe($0)) }, reference.indexes.map { ($0.name, describe($0)) }, referenceName)
        lines += namedDifferences("view", schema.views.map { ($0.name, $0.sql) }, reference.views.map { ($0.name, $0.sql) }, referenceName)
        lines += namedDifferences("trigger", schema.triggers.map { ($0.name, $0.sql) }, reference.triggers.map { ($0.name, $0.sql) }, referenceName)
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
        let columns = Dictionary(table.columns.map { ($0.name.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        let expectedColumns = Dictionary(expected.columns.map { ($0.name.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        for column in expected.columns where columns[column.name.lowercased()] == nil {
            lines.append("\(name).\(column.name): missing (\(referenceName) has it)")
        }
        for column in table.columns {
            guard let other = expectedColumns[column.name.lowercased()] else {
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
        let order = table.columns.map { $0.name.lowercased() }.filter { expectedColumns[$0] != nil }
        let expectedOrder = expected.columns.map { $0.name.lowercased() }.filter { columns[$0] != nil }
        if order != expectedOrder {
            lines.append("table \(name): columns in another order (\(order.joined(separator: ", ")) here, \(expectedOrder.joined(separator: ", ")) in \(referenceName))")
        }
        let keys = Set(table.foreignKeys.map(describe))
        let expectedKeys = Set(expected.foreignKeys.map(describe))
        for key in expectedKeys.subtracting(keys).sorted() { lines.append("table \(name): foreign key \(key) missing (\(referenceName) has it)") }
        for key in keys.subtracting(expectedKeys).sorted() { lines.append("table \(name): foreign key \(key) extra (not in \(referenceName))") }
        return lines
    }

    private static func namedDifferences(_ kind: String, _ ours: [(String, String)], _ theirs: [(String, String)], _ referenceName: String) -> [String] {
        let mine = Dictionary(ours, uniquingKeysWith: { first, _ in first })
        let expected = Dictionary(theirs, uniquingKeysWith: { first, _ in first })
        var lines: [String] = []
        for name in Set(mine.keys).union(expected.keys).sorted() {
            switch (mine[name], expected[name]) {
            case (nil, .some): lines.append("\(kind) \(name): missing (\(referenceName) has it)")
            case (.some, nil): lines.append("\(kind) \(name): extra (not in \(referenceName))")
            case let (here?, there?) where here != there: lines.append("\(kind) \(name): \(here) here, \(there) in \(referenceName)")
            default: break
            }
        }
        return lines
    }

    static func describe(_ index: SchemaSnapshot.Index) -> String {
        let columns = index.columns.map { column in
            var text = column.name ?? "<expression>"
            if column.descending { text += " DESC" }
            if column.collation != "BINARY" { text += " COLLATE \(column.collation)" }
            return text
        }.joined(separator: ", ")
        var text = "\(index.unique ? "UNIQUE " : "")on \(index.table)(\(columns))"
        if index.partial { text += " WHERE …" }
        // Expressions and WHERE clauses are only in the statement.
        if index.partial || index.columns.contains(where: { $0.name == nil }), let sql = index.sql { text += " [\(sql)]" }
        return text
    }

    static func describe(_ key: SchemaSnapshot.ForeignKey) -> String {
        let to = key.to.map { $0 ?? "<primary key>" }.joined(separator: ", ")
        return "(\(key.from.joined(separator: ", "))) -> \(key.table)(\(to)) ON UPDATE \(key.onUpdate) ON DELETE \(key.onDelete)"
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
