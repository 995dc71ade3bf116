import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

/// The logical pass of the leak scan: every value SQLite reads from a table,
/// whole however SQLite cut it over pages, searched for the patterns of a
/// ``PatternIndex``, so that a hit is named by table, column and row.
enum TableScan {
    /// Distinct values of one cell whose runs are compared to name the best.
    static let maximumCandidates = 64

    /// A value that holds a replaced value, or a run of one.
    struct Hit {
        var pattern: Int
        /// The run's length, as far as it goes in the value.
        var length: Int
        /// The whole replaced value is there, not only a piece of it.
        var whole: Bool
        /// `table.column`, as the user knows it: an FTS table's column rather
        /// than the column of its `_content` shadow table that keeps the text.
        var column: String
        var rowid: Int64?
        /// For a `WITHOUT ROWID` table: its integer key (`7, 3`), or `row N` in key order.
        var key: String?
        /// The cell's length in bytes, and its bytes right before and after the run (``LeakHit/contextBytes`` at most).
        var cellBytes: Int
        var before: [UInt8]
        var after: [UInt8]
        /// How the cell's bytes are shown.
        var form: WholeValue.Form
    }

    /// How values are judged.
    struct Judgment {
        /// Values shorter than this count only where they stand whole (``WholeValue``).
        var wholeBelow: Int
        /// Text is read as UTF-16, in the machine's byte order.
        var utf16: Bool
        /// How the store's file keeps text (its header's encoding), for the values read from its pages.
        var storeForm: WholeValue.Form = .utf8
        /// The rule index of each column the rules set to `null`, by `table.column`
        /// in lower case: its cells are never searched for its own replaced values.
        var nullColumns: [String: Int] = [:]
    }

    /// Reads every text and blob value of `table`: text as the store keeps it
    /// (UTF-16 in native byte order for a UTF-16 store, so that runs are
    /// measured in the bytes the raw pass sees), and calls `found` with the
    /// first run of each value that is not exempt. A short value's match that
    /// does not stand whole is counted in `embedded`.
    /// - Returns: whether any value held one.
    @discardableResult
    static func scan(_ database: Database, table: String, index: PatternIndex, judgment: Judgment, embedded: inout Int, _ found: (Hit) -> Void) throws(SQLiteError) -> Bool {
        let utf16 = judgment.utf16
        guard !index.isEmpty else { return false }
        let listing = try database.rows("SELECT type, wr FROM pragma_table_list WHERE schema = 'main' AND name = ?1", [.text(table)])
        guard let entry = listing.first, entry[0].text != "virtual", entry[0].text != "view" else { return false }
        let withoutRowID = entry[1].integer == 1
        let columns = try database.rows("SELECT name FROM pragma_table_xinfo(?1) ORDER BY cid", [.text(table)]).compactMap { $0[0].text }
        guard !columns.isEmpty else { return false }
        let names = try displayNames(database, table: table, columns: columns)
        var select = columns.map(quotedIdentifier)
        var identity: Identity = .ordinal
        if withoutRowID {
            let keys = try database.rows("SELECT name FROM pragma_table_info(?1) WHERE pk > 0 ORDER BY pk", [.text(table)]).compactMap { $0[0].text }
            identity = .key(keys.compactMap { columns.firstIndex(of: $0) })
        } else {
            let names = Set(columns.map { $0.identifierKey })
            if let alias = ["_rowid_", "rowid", "oid"].first(where: { !names.contains($0) }) {
                select.append(alias)
                identity = .rowid(columns.count)
            }
        }
        let statement = try database.prepare("SELECT \(select.joined(separator: ", ")) FROM \(quotedIdentifier(table))")
        var any = false
        var row = 0
        let nullColumns = names.map { judgment.nullColumns[$0.identifierKey] }
        let textForm: WholeValue.Form = utf16 ? (UInt16(1).littleEndian == 1 ? .utf16LE : .utf16BE) : .utf8
        while try statement.step() {
            row += 1
            for (place, name) in names.enumerated() {
                let column = place
                let value: UnsafeRawBufferPointer
                let isText: Bool
                switch statement.columnStorageClass(column) {
                case .blob: value = statement.columnBlob(column); isText = false
                case .text where utf16: value = statement.columnText16(column); isText = true
                case .text: value = UnsafeRawBufferPointer(statement.columnText(column)); isText = true
                default: continue
                }
                let count = value.count
                guard value.baseAddress != nil, count >= PatternIndex.minimumBytes else { continue }
                // The first run of each value found here; the longest is reported (several
                // replaced values may share their first bytes: the whole one is named).
                var candidates: [Int: (pattern: Int, run: PatternIndex.Run)] = [:]
                index.search(value, through: count - 1) { pattern, run in
                    guard candidates.count < Self.maximumCandidates, !index.isExempt(pattern, run: run, wholeBelow: judgment.wholeBelow) else { return }
                    // A column set to null keeps only what the rules left in it on purpose.
                    if let own = nullColumns[column], index.isValue(pattern, of: own) { return }
                    let source = index.origin(of: pattern).longValue.map { -1 - $0 } ?? pattern
                    guard candidates[source] == nil else { return }
                    if index.isJudgedWhole(pattern, below: judgment.wholeBelow) {
                        // Text in the form the cell is read in, on a character's first byte; a blob's bytes whole.
                        let form = index.form(of: pattern)
                        guard !isText || form == .blob || form == textForm && run.start % form.unit == 0 else { return }
                        let range = run.start..<(run.start + run.length)
                        let whole = isText ? WholeValue.isWhole(value, range, form: form, value: 0..<count) : range == 0..<count
                        guard whole else {
                            embedded += 1
                            return
                        }
                    }
                    candidates[source] = (pattern, run)
                }
                var best: Hit?
                for (pattern, run) in candidates.values {
                    let full = index.fullRun(pattern, in: value, at: run)
                    let context = LeakHit.contextBytes * (isText ? textForm.unit : 1)
                    let hit = Hit(
                        pattern: pattern, length: full.length, whole: full.whole, column: name, rowid: identity.rowid(statement), key: identity.key(statement, row: row),
                        cellBytes: count, before: Array(value[max(0, full.start - context)..<full.start]),
                        after: Array(value[(full.start + full.length)..<min(count, full.start + full.length + context)]), form: isText ? textForm : .blob)
                    if let current = best, (current.whole ? 1 : 0, current.length, -current.pattern) >= (hit.whole ? 1 : 0, hit.length, -hit.pattern) { continue }
                    best = hit
                }
                guard let best else { continue }
                any = true
                found(best)
            }
        }
        return any
    }

    /// `table.column` of each column; for the `_content` shadow table of an
    /// FTS table (`id, c0, c1` in FTS5, `docid, c0title, c1body` in FTS3/4),
    /// the FTS table's own columns, in order.
    private static func displayNames(_ database: Database, table: String, columns: [String]) throws(SQLiteError) -> [String] {
        let plain = columns.map { "\(table).\($0)" }
        guard table.hasSuffix("_content") else { return plain }
        let base = String(table.dropLast("_content".count))
        let shadows = Set(try database.rows("SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'shadow'").compactMap { $0[0].text })
        guard shadows.contains(table), shadows.contains(base + "_config") || shadows.contains(base + "_segdir") else { return plain }
        let own = try database.rows("SELECT name FROM pragma_table_xinfo(?1) WHERE hidden = 0 ORDER BY cid", [.text(base)]).compactMap { $0[0].text }
        return zip(columns, plain).map { column, name in
            guard column.hasPrefix("c"), let number = Int(column.dropFirst().prefix(while: \.isNumber)), own.indices.contains(number) else { return name }
            return "\(base).\(own[number])"
        }
    }

    /// How a row is named.
    private enum Identity {
        /// The rowid, selected after the columns at this place.
        case rowid(Int)
        /// The primary key of a `WITHOUT ROWID` table: the places of its columns.
        case key([Int])
        /// Only the row's place (a rowid table whose every rowid alias is a column's name).
        case ordinal

        func rowid(_ statement: Statement) -> Int64? {
            guard case .rowid(let place) = self else { return nil }
            return statement.columnInt64(place)
        }

        /// The key when it is made of integers (never text: it could be the personal data itself).
        func key(_ statement: Statement, row: Int) -> String? {
            switch self {
            case .rowid: return nil
            case .ordinal: return "row \(row)"
            case .key(let places):
                guard !places.isEmpty, places.allSatisfy({ statement.columnStorageClass($0) == .integer }) else { return "row \(row)" }
                return places.map { String(statement.columnInt64($0)) }.joined(separator: ", ")
            }
        }
    }
}
