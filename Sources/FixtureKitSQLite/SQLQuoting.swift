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
