import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitArchiveIO
import FixtureKitModels

/// The rows of one table that violate a foreign key, as `PRAGMA
/// foreign_key_check` names them (GRDB's `ForeignKeyViolation` is the model):
/// the first few with their rowid, parent table and foreign key, and how many
/// there are in all.
public struct ForeignKeyViolations: Codable, Equatable, Sendable {
    public internal(set) var table: String
    /// Rows of ``table`` that violate a foreign key.
    public internal(set) var count: Int
    /// The first ``ForeignKeyFindings/shownPerTable`` of them, in the pragma's order.
    public internal(set) var rows: [Row]

    public struct Row: Codable, Equatable, Sendable {
        /// `nil` in a WITHOUT ROWID table.
        public internal(set) var rowid: Int64?
        /// The table the foreign key refers to.
        public internal(set) var parent: String
        /// The foreign key's index in `PRAGMA foreign_key_list` of ``ForeignKeyViolations/table``.
        public internal(set) var foreignKey: Int
        /// Its columns in the child table, and those they refer to (`nil`: the parent's primary key).
        public internal(set) var columns: [String]
        public internal(set) var parentColumns: [String?]
    }
}

enum ForeignKeyFindings {
    /// Rows named per table at most.
    static let shownPerTable = 5

    /// Every violation, read as the pragma returns them (never all held at
    /// once): per table, the count and the first ``shownPerTable`` rows.
    static func find(_ database: Database) throws(SQLiteError) -> [ForeignKeyViolations] {
        let statement = try database.prepare("PRAGMA foreign_key_check")
        var tables: [ForeignKeyViolations] = []
        var index: [String: Int] = [:]
        var keys: [String: [Int: (columns: [String], parentColumns: [String?])]] = [:]
        while try statement.step() {
            let table = statement.column(0).text ?? ""
            let slot = index[table] ?? {
                tables.append(ForeignKeyViolations(table: table, count: 0, rows: []))
                index[table] = tables.count - 1
                return tables.count - 1
            }()
            tables[slot].count += 1
            guard tables[slot].rows.count < shownPerTable else { continue }
            let id = Int(statement.column(3).integer ?? 0)
            if keys[table] == nil { keys[table] = try foreignKeys(of: table, in: database) }
            let key = keys[table]?[id]
            tables[slot].rows.append(ForeignKeyViolations.Row(
                rowid: statement.column(1).integer, parent: statement.column(2).text ?? "", foreignKey: id,
                columns: key?.columns ?? [], parentColumns: key?.parentColumns ?? []))
        }
        return tables
    }

    /// `PRAGMA foreign_key_list(table)`: each key's columns, by its id.
    private static func foreignKeys(of table: String, in database: Database) throws(SQLiteError) -> [Int: (columns: [String], parentColumns: [String?])] {
        var keys: [Int: (columns: [String], parentColumns: [String?])] = [:]
        for row in try database.rows("SELECT id, \"from\", \"to\" FROM pragma_foreign_key_list(?1) ORDER BY id, seq", [.text(table)]) {
            let id = Int(row[0].integer ?? 0)
            keys[id, default: ([], [])].columns.append(row[1].text ?? "")
            keys[id, default: ([], [])].parentColumns.append(row[2].text)
        }
        return keys
    }

    /// The check's message: the total, then one line per table with its first rows.
    /// - Parameter baseline: violations the store had before its migration.
    static func message(_ tables: [ForeignKeyViolations], baseline: Int = 0) -> String {
        let total = tables.reduce(0) { $0 + $1.count }
        var lines = ["\(total) \(total == 1 ? "row violates" : "rows violate") a foreign key" + (baseline > 0 ? " (\(baseline) before the migration)" : "")]
        for table in tables {
            let first = table.count > table.rows.count ? ", the first \(table.rows.count)" : ""
            lines.append("\(table.table): \(table.count) \(table.count == 1 ? "row" : "rows")\(first): " + table.rows.map(describe).joined(separator: "; "))
        }
        return lines.joined(separator: "\n")
    }

    /// `rowid 4: foreign key 0 (folder_id) -> folders(id)`.
    static func describe(_ row: ForeignKeyViolations.Row) -> String {
        let to = row.parentColumns.map { $0 ?? "<primary key>" }.joined(separator: ", ")
        return "\(row.rowid.map { "rowid \($0)" } ?? "a row without rowid"): foreign key \(row.foreignKey) (\(row.columns.joined(separator: ", "))) -> \(row.parent)(\(to))"
    }
}
