import FixtureKitSystem
import FixtureKitSQLite

/// What anonymization needs to know of a store's schema, as SQLite's pragmas
/// tell it: tables and their columns, which columns must stay unique, the
/// collations and indexes that compare their values, and the full-text
/// indexes to rebuild. No SQL is parsed here (see AnonymizationSchema+Indexes.swift
/// for the one piece of an index's SQL that SQLite compiles for us).
struct AnonymizationSchema {
    /// SQLite's type affinity of a declared column type
    /// (<https://www.sqlite.org/datatype3.html#determination_of_column_affinity>).
    enum Affinity {
        case integer, text, blob, real, numeric

        init(declaredType: String) {
            let type = declaredType.uppercased()
            if type.contains("INT") { self = .integer }
            else if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") { self = .text }
            else if type.contains("BLOB") || type.isEmpty { self = .blob }
            else if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") { self = .real }
            else { self = .numeric }
        }
    }

    /// The collating sequences SQLite defines itself: fixturekit keeps values
    /// equal and unequal under each of them (and under `lower`, `upper`, `trim`).
    static let builtinCollations: Set<String> = ["BINARY", "NOCASE", "RTRIM"]

    struct Column {
        var name: String
        var affinity: Affinity
        /// Generated (`hidden` 2 or 3 in `table_xinfo`): computed from other columns.
        var generated: Bool
        /// Alone in a UNIQUE index or the PRIMARY KEY: its values must stay distinct.
        var unique: Bool
        /// The collation it was declared with (upper case): `BINARY` when none.
        var collation = "BINARY"
        /// An INTEGER PRIMARY KEY of a rowid table: the rowid itself.
        var isRowid = false
    }

    struct Table {
        enum Kind: Equatable {
            case ordinary
            /// An FTS3/4/5 table; `ownContent` when it keeps its text in its own
            /// `_content` table, rather than in an external table or nowhere.
            case fullText(ownContent: Bool)
            /// An R*Tree: its last `auxiliary` columns (`+owner`) hold any value a user writes.
            case rtree(auxiliary: Int)
            /// Another virtual table (a module fixturekit does not know).
            case otherVirtual
        }

        var name: String
        var kind: Kind
        var columns: [Column]
        /// Its indexes (UNIQUE and PRIMARY KEY constraints included), by name; ordinary tables only.
        var indexes: [Index] = []

        /// The column SQLite resolves `name` to: names compare without regard to ASCII case.
        func column(_ name: String) -> Column? {
            let key = name.identifierKey
            return columns.first { $0.name.identifierKey == key }
        }

        /// The columns a user can write text into: those of an ordinary table or
        /// of an FTS table that keeps its own text, an R*Tree's auxiliary columns;
        /// never a generated one.
        var writableColumns: [Column] {
            switch kind {
            case .ordinary, .fullText(ownContent: true): columns.filter { !$0.generated }
            case .rtree(let auxiliary): Array(columns.suffix(auxiliary))
            default: []
            }
        }
    }

    /// Ordinary and virtual tables, by name; shadow and internal tables aside.
    var tables: [String: Table]
    /// FTS shadow tables and `sqlite_` tables: never the subject of a rule.
    var internalTables: Set<String>
    /// Every name and CREATE statement of the schema: text that is in the file
    /// whatever the data, which the leak scan does not count as a leak.
    var schemaText: [String]
    /// The text encoding: `UTF-8`, `UTF-16le` or `UTF-16be`.
    var encoding: String

    init(database: Database) throws(SQLiteError) {
        encoding = try database.scalar("PRAGMA encoding")?.text ?? "UTF-8"
        let list = try database.rows("SELECT name, type FROM pragma_table_list WHERE schema = 'main' ORDER BY name")
        var names: [String: String] = [:]
        for row in list { if let name = row[0].text, let type = row[1].text { names[name] = type } }
        func isShadow(_ name: String, _ suffixes: String...) -> Bool { suffixes.allSatisfy { names[name + $0] == "shadow" } }
        var tables: [String: Table] = [:]
        var internalTables: Set<String> = []
        for (name, type) in names {
            if name.hasPrefix("sqlite_") || type == "shadow" {
                internalTables.insert(name)
                continue
            }
            let kind: Table.Kind
            switch type {
            case "table":
                kind = .ordinary
            case "virtual":
                // FTS5 keeps `_config` and `_data`, FTS3/4 `_segdir` and `_segments`;
                // both keep `_content` unless the text is external or nowhere. An
                // R*Tree keeps `_node`, `_parent` and `_rowid`, whose columns after
                // `rowid` and `nodeno` hold its auxiliary columns.
                if isShadow(name, "_config", "_data") || isShadow(name, "_segdir", "_segments") {
                    kind = .fullText(ownContent: names["\(name)_content"] == "shadow")
                } else if isShadow(name, "_node", "_parent", "_rowid") {
                    let stored = try database.rows("SELECT count(*) FROM pragma_table_info(?1)", [.text(name + "_rowid")]).first?.first?.integer ?? 2
                    kind = .rtree(auxiliary: max(0, Int(stored) - 2))
                } else {
                    kind = .otherVirtual
                }
            default:
                continue
            }
            var unique: Set<String> = []
            var indexes: [Index] = []
            var rowid: String?
            if kind == .ordinary {
                indexes = try Self.indexes(of: name, database: database)
                for index in indexes where index.unique && index.keys.count == 1 {
                    if let column = index.keys[0].column { unique.insert(column.identifierKey) }
                }
                let keys = try database.rows("SELECT name, upper(type) FROM pragma_table_info(?1) WHERE pk > 0", [.text(name)])
                if keys.count == 1, let column = keys[0][0].text {
                    unique.insert(column.identifierKey)
                    // Without an index of its own, an INTEGER primary key is the rowid.
                    if keys[0][1].text == "INTEGER", !indexes.contains(where: { $0.origin == "pk" }) { rowid = column.identifierKey }
                }
            }
            var columns: [Column] = []
            for row in try database.rows("SELECT name, type, hidden FROM pragma_table_xinfo(?1) ORDER BY cid", [.text(name)]) {
                guard let column = row[0].text else { continue }
                let hidden = row[2].integer ?? 0
                // Hidden columns of virtual tables (FTS's own name, `rank`) hold no data.
                if hidden == 1 { continue }
                var entry = Column(name: column, affinity: Affinity(declaredType: row[1].text ?? ""), generated: hidden >= 2, unique: unique.contains(column.identifierKey))
                if kind == .ordinary { entry.collation = try database.collation(of: column, in: name).uppercased() }
                entry.isRowid = column.identifierKey == rowid
                columns.append(entry)
            }
            tables[name] = Table(name: name, kind: kind, columns: columns, indexes: indexes)
        }
        self.tables = tables
        self.internalTables = internalTables
        schemaText = try database.rows("SELECT name, tbl_name, coalesce(sql, '') FROM sqlite_schema").flatMap { row in row.compactMap(\.text) }
    }

    /// The table SQLite resolves `name` to: names compare without regard to ASCII case.
    func table(_ name: String) -> Table? {
        if let table = tables[name] { return table }
        let key = name.identifierKey
        return tables.values.first { $0.name.identifierKey == key }
    }

    /// Whether `name` is one of SQLite's own tables or an FTS or R*Tree shadow table.
    func isInternal(_ name: String) -> Bool {
        let key = name.identifierKey
        return internalTables.contains { $0.identifierKey == key }
    }

    /// Whether text is stored as UTF-16.
    var isUTF16: Bool { encoding.hasPrefix("UTF-16") }
}
