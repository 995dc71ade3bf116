import Foundation
import FixtureKitSystem

/// Quotes an SQL identifier: `"name"`, with inner quotes doubled.
package func quotedIdentifier(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// Quotes an SQL string literal: `'text'`, with inner quotes doubled.
package func quotedLiteral(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
}

extension String {
    /// The name as SQLite compares identifiers (tables, columns, indexes,
    /// collations, functions): ASCII letters folded to lower case, every other
    /// character as it is, quoted or not (`Users`, `users` and `"USERS"` name
    /// one table; `É` and `é` two). See `sqlite3StrICmp` in SQLite's sources.
    /// Every comparison of names goes through it: Swift's `lowercased()` folds
    /// every letter, and would merge names SQLite keeps apart.
    package var identifierKey: String {
        String(decoding: utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}

extension Dictionary where Key == String {
    /// The value under the key that names what `name` names, as SQLite matches
    /// names (``Swift/String/identifierKey``): for a configuration's tables and
    /// columns, written as users spell them. The exact spelling wins where two
    /// keys fold to one name.
    package func value(forName name: String) -> Value? {
        if let value = self[name] { return value }
        let key = name.identifierKey
        return first { $0.key.identifierKey == key }?.value
    }
}
