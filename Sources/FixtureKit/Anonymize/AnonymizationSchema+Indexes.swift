import FixtureKitSystem
import FixtureKitSQLite

extension AnonymizationSchema {
    /// An index of a table, as `PRAGMA index_list` and `index_xinfo` report it:
    /// UNIQUE and PRIMARY KEY constraints are indexes too (`sqlite_autoindex_…`).
    struct Index {
        struct Key {
            /// The column, or `nil` for an expression.
            var column: String?
            /// The collation SQLite compares this key with (upper case).
            var collation: String
        }

        var name: String
        var unique: Bool
        /// `c` CREATE INDEX, `u` a UNIQUE constraint, `pk` the PRIMARY KEY.
        var origin: String
        var keys: [Key]
        /// The index's terms as an `ORDER BY` list that sorts rows as the index
        /// does (equal rows are equal keys): the columns with their collations,
        /// or, for an index on expressions, the terms of its CREATE INDEX as
        /// SQLite compiles them; `nil` when they could not be found.
        var ordering: String?
        /// A partial index's condition (the expression after `WHERE`).
        var condition: String?
        /// The columns of the table the keys read (for an expression, as SQLite
        /// resolves it), as they are declared.
        var columns: [String]

        /// `UNIQUE index users_email` / `index users_lower_email`, for messages.
        var label: String {
            switch origin {
            case "pk": "PRIMARY KEY (\(name))"
            case "u": "UNIQUE constraint (\(name))"
            default: (unique ? "UNIQUE index " : "index ") + name
            }
        }

        /// Whether a key is an expression.
        var hasExpression: Bool { keys.contains { $0.column == nil } }

        /// Whether one of the keys reads `column`.
        func covers(_ column: String) -> Bool {
            let key = column.identifierKey
            return columns.contains { $0.identifierKey == key }
        }
    }

    /// The indexes of `table`, by name.
    static func indexes(of table: String, database: Database) throws(SQLiteError) -> [Index] {
        var indexes: [Index] = []
        let list = try database.rows("SELECT name, \"unique\", origin, partial FROM pragma_index_list(?1) ORDER BY name", [.text(table)])
        for row in list {
            guard let name = row[0].text else { continue }
            var keys: [Index.Key] = []
            for key in try database.rows("SELECT cid, name, coll FROM pragma_index_xinfo(?1) WHERE key = 1 ORDER BY seqno", [.text(name)]) {
                let cid = key[0].integer ?? -2
                keys.append(Index.Key(column: cid >= 0 ? key[1].text : nil, collation: (key[2].text ?? "BINARY").uppercased()))
            }
            var index = Index(
                name: name, unique: row[1].integer == 1, origin: row[2].text ?? "c", keys: keys,
                ordering: nil, condition: nil, columns: keys.compactMap(\.column))
            if index.hasExpression || row[3].integer == 1 {
                let sql = try database.scalar("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?1", [.text(name)])?.text
                if let sql, let (ordering, condition) = terms(of: sql, table: table, database: database) {
                    index.ordering = ordering
                    index.condition = condition
                    let read = (try? database.columnsRead(compiling: "SELECT 1 FROM main.\(quotedIdentifier(table)) ORDER BY \(ordering)")) ?? []
                    var columns: [String] = []
                    for (owner, column) in read where owner.identifierKey == table.identifierKey && !columns.contains(column) {
                        columns.append(column)
                    }
                    index.columns = columns
                }
            } else {
                index.ordering = keys.map { key in (key.column.map(quotedIdentifier) ?? "rowid") + " COLLATE " + key.collation }.joined(separator: ", ")
            }
            indexes.append(index)
        }
        return indexes
    }

    /// The indexed terms and the condition of a CREATE INDEX statement, found
    /// with SQLite rather than by parsing: the text between a `(` and a `)` that
    /// SQLite compiles as the `ORDER BY` list of a query on `table` (an
    /// indexed-column list is one: expressions, `COLLATE`, `ASC`, `DESC`), and
    /// after it nothing, or `WHERE` and an expression SQLite compiles on `table`.
    /// The first `(` that opens such a list is the list's: one inside a quoted
    /// name is followed by no text that compiles so.
    static func terms(of sql: String, table: String, database: Database) -> (ordering: String, condition: String?)? {
        let bytes = Array(sql.utf8)
        let opening = bytes.indices.filter { bytes[$0] == UInt8(ascii: "(") }
        let closing = bytes.indices.filter { bytes[$0] == UInt8(ascii: ")") }
        let source = "SELECT 1 FROM main.\(quotedIdentifier(table))"
        func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        for start in opening {
            for end in closing.reversed() where end > start {
                let list = text((start + 1)..<end)
                guard database.compileCheck("\(source) ORDER BY \(list)") == .oneStatement else { continue }
                let rest = String(text((end + 1)..<bytes.count).drop { $0.isWhitespace })
                if rest.allSatisfy(\.isWhitespace) { return (list, nil) }
                guard rest.utf8.count > 5, String(rest.prefix(5)).identifierKey == "where" else { continue }
                let condition = String(rest.dropFirst(5)).trimmingTrailingWhitespace()
                if database.compileCheck("\(source) WHERE \(condition)") == .oneStatement { return (list, condition) }
            }
        }
        return nil
    }
}

extension String {
    /// The text without the white space at its end.
    func trimmingTrailingWhitespace() -> String {
        var text = self
        while text.last?.isWhitespace == true { text.removeLast() }
        return text
    }
}
