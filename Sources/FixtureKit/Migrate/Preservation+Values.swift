import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// One value a finding shows: the row's key, what the source held and what
/// the migrated store holds, each as an SQL literal (`'04:02:36'`,
/// `1680408155`, `X'00FF'`, `NULL`), or `(personal)`.
public struct ValueChange: Codable, Equatable, Sendable {
    /// The row, as the finding names it: its key (`'K1'`, `7`, `'a', 2`), or
    /// `rowid 5` when the key holds personal values.
    public var key: String
    public var before: String
    /// After the migration; `no row` when a moved value's key is in no row of its new table.
    public var after: String
}

extension PreservationCheck {
    /// Characters of text, and bytes of a blob, a finding shows of a value;
    /// the rest is counted (`'Lorem ipsum ...'... (812 characters)`).
    static let shownCharacters = 40
    static let shownBytes = 20

    /// Whether a finding may show the values of `table.column` (any of the
    /// names given, as `table.column` by `identifierKey`): not a personal column, and
    /// one of ``shownValues`` when that is set.
    func showsValues(of columns: [String]) -> Bool {
        guard let personal else { return false }
        return columns.allSatisfy { column in
            !personal.contains(column.identifierKey) && (shownValues?.contains(column.identifierKey) ?? true)
        }
    }

    /// Three result columns that render `value` (an expression) as a finding
    /// shows it: the literal of its first ``shownCharacters`` characters (or
    /// ``shownBytes`` bytes), its length, and its type.
    static func rendered(_ value: String) -> [String] {
        let cut = "CASE WHEN typeof(\(value)) = 'text' AND length(\(value)) > \(shownCharacters) THEN substr(\(value), 1, \(shownCharacters))"
            + " WHEN typeof(\(value)) = 'blob' AND length(\(value)) > \(shownBytes) THEN substr(\(value), 1, \(shownBytes)) ELSE \(value) END"
        return ["quote(\(cut))", "length(\(value))", "typeof(\(value))"]
    }

    /// The value of three columns made by ``rendered(_:)``, starting at `index`
    /// of `row`: control characters escaped, what was cut counted, and
    /// ``ConfiguredChecks/hidden`` for anything but NULL and empty text when
    /// `hidden`.
    static func shown(_ row: [SQLiteValue], at index: Int, hidden: Bool) -> String {
        guard index + 2 < row.count else { return "?" }
        let literal = row[index].text ?? "NULL"
        let length = Int(row[index + 1].integer ?? 0)
        let type = row[index + 2].text ?? "null"
        if type == "null" || (type == "text" && length == 0) { return literal }
        if hidden { return ConfiguredChecks.hidden }
        var text = literal.escapingControlCharacters()
        if type == "text", length > shownCharacters { text += "... (\(length) characters)" }
        if type == "blob", length > shownBytes { text += "... (\(length) bytes)" }
        return text
    }

    /// The first ``examples`` rows of `rows` (`FROM ... WHERE ...`, over `s`
    /// and `m`) in `order`, each named by `keyText` (rows it names NULL are
    /// left out), with `before` and `after` as a finding shows them.
    /// - Parameter absent: true for a row that has no `after` at all (`no row`).
    func valueChanges(keyText: String, before: String, after: String, absent: String = "0", rows: String, order: String, hidden: Bool) throws(SQLiteError) -> [ValueChange] {
        let columns = [keyText] + Self.rendered(before) + Self.rendered(after) + [absent]
        return try database.rows("SELECT \(columns.joined(separator: ", ")) \(rows) ORDER BY \(order) LIMIT \(Self.examples)").compactMap { row in
            guard let key = row.first?.text else { return nil }
            let gone = row.last?.integer == 1
            return ValueChange(key: key, before: Self.shown(row, at: 1, hidden: hidden), after: gone ? "no row" : Self.shown(row, at: 4, hidden: hidden))
        }
    }

    /// ` (key 1: 'a' -> 'b'; key 2: 'c' -> NULL)`, or nothing when no row may
    /// be shown. A row named by its rowid reads `rowid 5: ...`.
    /// - Parameter byKey: the rows are named by their key, not by `rowid N`.
    static func valuesNote(_ changes: [ValueChange], byKey: Bool) -> String {
        guard !changes.isEmpty else { return "" }
        let word = byKey ? "key " : ""
        return " (" + changes.map { "\(word)\($0.key): \($0.before) -> \($0.after)" }.joined(separator: "; ") + ")"
    }
}
