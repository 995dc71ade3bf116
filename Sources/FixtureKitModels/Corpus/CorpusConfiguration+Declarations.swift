import FixtureKitSystem
import FixtureKitSQLite

/// What `fixturekit.json` declares about the data's way through a migration:
/// the value of a `changes` entry, `renames`, and the checks' own keys.
public enum ChangeDeclaration: Codable, Equatable, Sendable {
    /// `"derived"`, `"dropped"`, `"unordered"`, `"excluded"` (checked by ``CorpusConfiguration/validateDeclarations(_:)``).
    case named(String)
    /// `{"movedTo": "phones.number", "key": "phones.contact_id"}`: the column's
    /// values went to another table's column, each in the row whose `key`
    /// holds the source row's key.
    case moved(Move)

    public struct Move: Codable, Equatable, Sendable {
        /// `table.column` the values went to.
        public var movedTo: String
        /// `table.column` of the same table that holds the source row's key.
        public var key: String
    }

    /// The keys a move object takes.
    static let moveKeys: Set<String> = ["movedTo", "key"]

    var declared: DeclaredChange? {
        if case .named(let name) = self { return DeclaredChange(rawValue: name) }
        return nil
    }

    public var move: Move? {
        if case .moved(let move) = self { return move }
        return nil
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let name = try? container.decode(String.self) {
            self = .named(name)
        } else {
            self = .moved(try container.decode(Move.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .named(let name): try container.encode(name)
        case .moved(let move): try container.encode(move)
        }
    }
}

extension CorpusConfiguration {
    /// The keys a check takes: any other is refused.
    static let checkEntryKeys: Set<String> = ["name", "sql", "expect", "expectSQL", "from"]

    /// Refuses unknown keys inside `checks` entries and inside move objects of
    /// `changes`, before decoding, so a misspelt key cannot silently disable a check.
    static func checkDeclarationKeys(_ dictionary: [String: Any], _ fail: (String) -> FormatError) throws(FormatError) {
        for (index, entry) in ((dictionary["checks"] as? [Any]) ?? []).enumerated() {
            guard let entry = entry as? [String: Any] else { throw fail("checks[\(index)] must be an object") }
            if let unknown = entry.keys.filter({ !checkEntryKeys.contains($0) }).sorted().first {
                throw fail("checks[\(index)]: unknown key \"\(unknown)\" (one of \(checkEntryKeys.sorted().joined(separator: ", ")))")
            }
        }
        for (name, value) in ((dictionary["changes"] as? [String: Any]) ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let move = value as? [String: Any] else { continue }
            if let unknown = move.keys.filter({ !ChangeDeclaration.moveKeys.contains($0) }).sorted().first {
                throw fail("changes[\"\(name)\"]: unknown key \"\(unknown)\" (one of key, movedTo)")
            }
        }
    }

    /// Checks the shapes the decoder cannot: each check expects one way, runs
    /// from supported versions; each change is known; moves and renames name
    /// `table.column` as they must.
    func validateDeclarations(_ fail: (String) -> FormatError) throws(FormatError) {
        for (index, check) in (checks ?? []).enumerated() {
            guard (check.expect == nil) != (check.expectSQL == nil) else {
                throw fail("checks[\(index)] needs exactly one of \"expect\" and \"expectSQL\"")
            }
            for version in check.from ?? [] where !supported.contains(version) {
                throw fail("checks[\(index)].from: \"\(version)\" is not a supported version")
            }
            if check.from?.isEmpty == true { throw fail("checks[\(index)].from is empty: name the versions, or leave it out for every path") }
        }
        for (name, change) in (changes ?? [:]).sorted(by: { $0.key < $1.key }) {
            switch change {
            case .named(let value) where DeclaredChange(rawValue: value) == nil:
                throw fail("changes[\"\(name)\"] is \"\(value)\"; it must be derived, dropped, unordered or excluded, or a move {\"movedTo\": \"table.column\", \"key\": \"table.column\"}")
            case .moved(let move):
                guard Self.columnName(name) != nil else { throw fail("changes[\"\(name)\"]: a move names a column, table.column") }
                guard let to = Self.columnName(move.movedTo) else { throw fail("changes[\"\(name)\"].movedTo is \"\(move.movedTo)\"; it must be table.column") }
                guard let key = Self.columnName(move.key), key.table.identifierKey == to.table.identifierKey else {
                    throw fail("changes[\"\(name)\"].key is \"\(move.key)\"; it must be a column of \(to.table), \(to.table).column")
                }
            default:
                continue
            }
        }
        for (old, new) in (renames ?? [:]).sorted(by: { $0.key < $1.key }) {
            if let column = Self.columnName(old) {
                guard let renamed = Self.columnName(new),
                      [column.table.identifierKey, renamedTable(column.table)?.identifierKey].contains(renamed.table.identifierKey)
                else { throw fail("renames[\"\(old)\"] is \"\(new)\"; a column's new name is \(renamedTable(column.table) ?? column.table).column") }
            } else if new.isEmpty || new.contains(".") {
                throw fail("renames[\"\(old)\"] is \"\(new)\"; a table's new name is a table name")
            }
        }
    }

    /// `("contacts", "phone")` for `contacts.phone`; `nil` unless both parts are there.
    package static func columnName(_ text: String) -> (table: String, column: String)? {
        guard let dot = text.firstIndex(of: "."), dot != text.startIndex, text.index(after: dot) != text.endIndex else { return nil }
        let column = String(text[text.index(after: dot)...])
        guard !column.contains(".") else { return nil }
        return (String(text[..<dot]), column)
    }

    /// The new name of a table declared renamed.
    func renamedTable(_ table: String) -> String? {
        (renames ?? [:]).first { $0.key.identifierKey == table.identifierKey && !$0.key.contains(".") }?.value
    }

    /// The new name of a column declared renamed (of `table`, by its old name).
    func renamedColumn(_ table: String, _ column: String) -> String? {
        renames?.value(forName: "\(table).\(column)").flatMap { Self.columnName($0)?.column }
    }

    /// The declared moves, by `table.column` of the source (by `identifierKey`).
    package var declaredMoves: [String: ChangeDeclaration.Move] {
        Dictionary((changes ?? [:]).compactMap { key, value in value.move.map { (key.identifierKey, $0) } }, uniquingKeysWith: { first, _ in first })
    }
}

extension CorpusConfiguration {
    /// The declared renames as ``PreservationCheck`` takes them: the new name
    /// (a table's, or a column's without its table), by the old `table` or
    /// `table.column` (by `identifierKey`).
    package var renameMap: [String: String] {
        Dictionary((renames ?? [:]).map { old, new in (old.identifierKey, old.contains(".") ? (Self.columnName(new)?.column ?? new) : new) }, uniquingKeysWith: { first, _ in first })
    }

    /// The tables' new names, by the old name (by `identifierKey`).
    package var renamedTables: [String: String] {
        renameMap.filter { !$0.key.contains(".") }
    }
}
