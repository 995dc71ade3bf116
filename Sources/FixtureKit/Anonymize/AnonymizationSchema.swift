import FixtureKitSystem
import FixtureKitSQLite

/// What anonymization needs to know of a store's schema, as SQLite's pragmas
/// tell it: tables and their columns, which columns must stay unique, and the
/// full-text indexes to rebuild. No SQL is parsed here.
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

    struct Column {
        var name: String
        var affinity: Affinity
        /// Generated (`hidden` 2 or 3 in `table_xinfo`): computed from other columns.
        var generated: Bool
        /// Alone in a UNIQUE index or the PRIMARY KEY: its values must stay distinct.
        var unique: Bool
    }

    struct Table {
        enum Kind: Equatable {
            case ordinary
            /// An FTS3/4/5 table; `ownContent` when it keeps its text in its own
            /// `_content` table, rather than in an external table or nowhere.
            case fullText(ownContent: Bool)
            /// Another virtual table (R*Tree, a module fixturekit does not know).
            case otherVirtual
        }

        var name: String
        var kind: Kind
        var columns: [Column]

        func column(_ name: String) -> Column? { columns.first { $0.name == name } }
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
                // both keep `_content` unless the text is external or nowhere.
                let isFullText = names["\(name)_config"] == "shadow" && names["\(name)_data"] == "shadow"
                    || names["\(name)_segdir"] == "shadow" && names["\(name)_segments"] == "shadow"
                kind = isFullText ? .fullText(ownContent: names["\(name)_content"] == "shadow") : .otherVirtual
            default:
                continue
            }
            var unique: Set<String> = []
            if kind == .ordinary {
                for index in try database.rows("SELECT name, \"unique\" FROM pragma_index_list(?1)", [.text(name)]) where index[1].integer == 1 {
                    guard let indexName = index[0].text else { continue }
                    let columns = try database.rows("SELECT name FROM pragma_index_info(?1)", [.text(indexName)])
                    if columns.count == 1, let column = columns[0][0].text { unique.insert(column) }
                }
                let keys = try database.rows("SELECT name FROM pragma_table_info(?1) WHERE pk > 0", [.text(name)])
                if keys.count == 1, let column = keys[0][0].text { unique.insert(column) }
            }
            let columns = try database.rows("SELECT name, type, hidden FROM pragma_table_xinfo(?1) ORDER BY cid", [.text(name)]).compactMap { row -> Column? in
                guard let column = row[0].text else { return nil }
                let hidden = row[2].integer ?? 0
                // Hidden columns of virtual tables (FTS's own name, `rank`) hold no data.
                if hidden == 1 { return nil }
                return Column(name: column, affinity: Affinity(declaredType: row[1].text ?? ""), generated: hidden >= 2, unique: unique.contains(column))
            }
            tables[name] = Table(name: name, kind: kind, columns: columns)
        }
        self.tables = tables
        self.internalTables = internalTables
        schemaText = try database.rows("SELECT name, tbl_name, coalesce(sql, '') FROM sqlite_schema").flatMap { row in row.compactMap(\.text) }
    }

    /// Whether text is stored as UTF-16.
    var isUTF16: Bool { encoding.hasPrefix("UTF-16") }
}
