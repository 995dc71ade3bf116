import Foundation
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitCrypto

/// The structure of a database's schema: tables with their columns, keys and
/// foreign keys, indexes, views and triggers, as SQLite's own pragmas describe
/// them (not the text of the CREATE statements, whose spacing and quoting vary).
public struct SchemaSnapshot: Codable, Equatable, Sendable {
    public struct Column: Codable, Equatable, Sendable {
        public package(set) var name: String
        /// The declared type as SQLite reports it, upper-cased: `INTEGER`, `VARCHAR(20)`.
        public package(set) var type: String
        public package(set) var notNull: Bool
        public package(set) var defaultValue: String?
        /// 1-based position in the primary key; 0 when not part of it.
        public package(set) var primaryKey: Int
        /// 0 ordinary, 1 hidden (virtual tables), 2 and 3 generated columns.
        public package(set) var hidden: Int
    }

    public struct ForeignKey: Codable, Equatable, Sendable {
        public package(set) var table: String
        public package(set) var from: [String]
        public package(set) var to: [String?]
        public package(set) var onUpdate: String
        public package(set) var onDelete: String
    }

    public struct Table: Codable, Equatable, Sendable {
        public package(set) var name: String
        /// `table` or `virtual`.
        public package(set) var kind: String
        public package(set) var withoutRowID: Bool
        public package(set) var strict: Bool
        public package(set) var columns: [Column]
        public package(set) var foreignKeys: [ForeignKey]

        /// The primary key's columns, in the key's order.
        package var primaryKey: [Column] {
            columns.filter { $0.primaryKey > 0 }.sorted { $0.primaryKey < $1.primaryKey }
        }
    }

    public struct IndexColumn: Codable, Equatable, Sendable {
        /// The column, or `nil` for an expression.
        public package(set) var name: String?
        public package(set) var descending: Bool
        public package(set) var collation: String
    }

    public struct Index: Codable, Equatable, Sendable {
        public package(set) var name: String
        public package(set) var table: String
        public package(set) var unique: Bool
        /// `c` CREATE INDEX, `u` UNIQUE constraint, `pk` PRIMARY KEY.
        public package(set) var origin: String
        public package(set) var partial: Bool
        public package(set) var columns: [IndexColumn]
        /// The CREATE INDEX statement with its spacing normalised, for expressions and WHERE clauses.
        public package(set) var sql: String?
    }

    /// A view or a trigger, compared by its statement with the spacing normalised.
    public struct Statement: Codable, Equatable, Sendable {
        public package(set) var name: String
        public package(set) var table: String
        public package(set) var sql: String
    }

    public package(set) var tables: [Table]
    public package(set) var indexes: [Index]
    public package(set) var views: [Statement]
    public package(set) var triggers: [Statement]

    /// Schema objects: tables, indexes (automatic ones included), views, triggers.
    public var objectCount: Int { tables.count + indexes.count + views.count + triggers.count }

    /// SHA-256 of the snapshot's canonical JSON: equal for structurally equal schemas.
    public var structuralHash: String {
        (try? SHA256.hash(Array(CanonicalJSON.encode(self).utf8)).hex) ?? ""
    }
}

extension SchemaSnapshot {
    /// Whether `column` is the INTEGER PRIMARY KEY of `table`, a rowid table:
    /// another name for its rowid.
    package func isRowid(_ column: String, of table: String) -> Bool {
        tables.first { $0.name.identifierKey == table.identifierKey }.map { isRowid(column, of: $0) } ?? false
    }

    private func isRowid(_ column: String, of table: Table) -> Bool {
        rowidColumn(of: table).map(\.identifierKey) == column.identifierKey
    }

    /// The column that names the rowid of `table`: the INTEGER PRIMARY KEY of a
    /// rowid table. Not one declared `INTEGER PRIMARY KEY DESC`, which SQLite
    /// keeps in an index of its own like any other key (a quirk it keeps for
    /// compatibility): that column is not the rowid and may hold NULL, in several rows.
    package func rowidColumn(of table: Table) -> String? {
        let primaryKey = table.primaryKey
        guard !table.withoutRowID, primaryKey.count == 1, primaryKey[0].type == "INTEGER",
              !indexes.contains(where: { $0.origin == "pk" && $0.table.identifierKey == table.name.identifierKey }) else { return nil }
        return primaryKey[0].name
    }

    /// Whether SQLite finds the rows of `table` with given values of `columns`
    /// through an index rather than a scan: the rowid (an INTEGER PRIMARY KEY),
    /// or a whole index (a WITHOUT ROWID table's PRIMARY KEY among them) that
    /// starts with those columns, in any order, each with the collation given
    /// (the column's own, for `column = value`).
    package func findsRows(of table: String, by columns: [String], collations: [String]) -> Bool {
        guard !columns.isEmpty, let described = tables.first(where: { $0.name.identifierKey == table.identifierKey }) else { return false }
        let wanted = Dictionary(zip(columns.map(\.identifierKey), collations.map(\.identifierKey)), uniquingKeysWith: { first, _ in first })
        if columns.count == 1, isRowid(columns[0], of: described) { return true }
        return indexes.contains { index in
            guard index.table.identifierKey == table.identifierKey, !index.partial, index.columns.count >= columns.count else { return false }
            let leading = index.columns.prefix(columns.count)
            let names = Set(leading.compactMap { $0.name.map(\.identifierKey) })
            return names.count == columns.count && names == Set(wanted.keys)
                && leading.allSatisfy { column in column.name.map { wanted[$0.identifierKey] == column.collation.identifierKey } ?? false }
        }
    }

    /// Reads the structure of the `main` schema of `database`.
    ///
    /// Internal tables (`sqlite_sequence`, `sqlite_stat1`, ...) are left out: they
    /// appear and disappear with AUTOINCREMENT and ANALYZE, not with the model.
    public init(database: Database) throws(SQLiteError) {
        var tables: [Table] = []
        let list = try database.rows("SELECT name, type, wr, strict FROM pragma_table_list WHERE schema = 'main' AND type IN ('table', 'virtual') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
        for row in list {
            guard case .text(let name) = row[0] else { continue }
            let columns = try database.rows("SELECT name, type, \"notnull\", dflt_value, pk, hidden FROM pragma_table_xinfo(?1) ORDER BY cid", [.text(name)]).map { column in
                Column(
                    name: column[0].text ?? "", type: (column[1].text ?? "").uppercased(), notNull: column[2].integer == 1,
                    defaultValue: column[3].text, primaryKey: Int(column[4].integer ?? 0), hidden: Int(column[5].integer ?? 0))
            }
            var keys: [Int64: ForeignKey] = [:]
            for key in try database.rows("SELECT id, seq, \"table\", \"from\", \"to\", on_update, on_delete FROM pragma_foreign_key_list(?1) ORDER BY id, seq", [.text(name)]) {
                let id = key[0].integer ?? 0
                var foreignKey = keys[id] ?? ForeignKey(table: key[2].text ?? "", from: [], to: [], onUpdate: key[5].text ?? "", onDelete: key[6].text ?? "")
                foreignKey.from.append(key[3].text ?? "")
                foreignKey.to.append(key[4].text)
                keys[id] = foreignKey
            }
            let foreignKeys = keys.values.sorted { CanonicalJSON.encode($0) < CanonicalJSON.encode($1) }
            tables.append(Table(
                name: name, kind: row[1].text ?? "table", withoutRowID: row[2].integer == 1, strict: row[3].integer == 1,
                columns: columns, foreignKeys: foreignKeys))
        }

        var indexes: [Index] = []
        for table in tables where table.kind == "table" {
            for index in try database.rows("SELECT name, \"unique\", origin, partial FROM pragma_index_list(?1)", [.text(table.name)]) {
                guard case .text(let name) = index[0] else { continue }
                let columns = try database.rows("SELECT name, desc, coll FROM pragma_index_xinfo(?1) WHERE key = 1 ORDER BY seqno", [.text(name)]).map { column in
                    IndexColumn(name: column[0].text, descending: column[1].integer == 1, collation: column[2].text ?? "BINARY")
                }
                let sql = try database.scalar("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?1", [.text(name)])?.text
                indexes.append(Index(
                    name: name, table: table.name, unique: index[1].integer == 1, origin: index[2].text ?? "c",
                    partial: index[3].integer == 1, columns: columns, sql: sql.map(Self.normalizedSQL)))
            }
        }
        indexes.sort { ($0.table, $0.name) < ($1.table, $1.name) }

        func statements(_ type: String) throws(SQLiteError) -> [Statement] {
            try database.rows("SELECT name, tbl_name, sql FROM sqlite_schema WHERE type = ?1 ORDER BY name", [.text(type)]).map { row in
                Statement(name: row[0].text ?? "", table: row[1].text ?? "", sql: Self.normalizedSQL(row[2].text ?? ""))
            }
        }
        self.init(tables: tables, indexes: indexes, views: try statements("view"), triggers: try statements("trigger"))
    }

    /// A statement with runs of white space made one space, outside quotes: the
    /// spacing of a CREATE statement is not structure.
    static func normalizedSQL(_ sql: String) -> String {
        var result = ""
        var quote: Character?
        var pendingSpace = false
        for character in sql {
            if let open = quote {
                result.append(character)
                if character == open || (open == "[" && character == "]") { quote = nil }
                continue
            }
            if character.isWhitespace {
                pendingSpace = !result.isEmpty
                continue
            }
            if pendingSpace { result.append(" ") }
            pendingSpace = false
            if character == "'" || character == "\"" || character == "`" || character == "[" { quote = character }
            result.append(character)
        }
        return result
    }
}
