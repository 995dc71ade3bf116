import Foundation
import FixtureKitSQLite

/// A collation or SQL function a statement needs that the SQLite fixturekit runs
/// on does not have: one the app registers on its own connection
/// (`sqlite3_create_collation`, `sqlite3_create_function`), such as
/// `COLLATE unicase`. fixturekit cannot register the app's code, so a stage that
/// needs one cannot be replayed here. Learnt from SQLite's error (`no such
/// collation sequence: X`, `no such function: X`), never from the statement's text.
struct UnregisteredName: Equatable, Sendable {
    enum Kind: String, Sendable {
        case collation, function
    }

    var kind: Kind
    var name: String

    /// The name `error` says SQLite lacks; `nil` for any other error, and for a
    /// function SQLite itself brought in a later release (V001's table), which
    /// the app does not register.
    init?(_ error: SQLiteError) {
        let message = error.message
        for (kind, marker) in [(Kind.collation, "no such collation sequence: "), (.function, "no such function: ")] {
            guard let range = message.range(of: marker) else { continue }
            let name = String(message[range.upperBound...].prefix { !$0.isWhitespace })
            guard !name.isEmpty else { return nil }
            if kind == .function, LintWatcher.functions[name.identifierKey] != nil { return nil }
            (self.kind, self.name) = (kind, name)
            return
        }
        return nil
    }

    /// `collation unicase`.
    var described: String { "\(kind.rawValue) \(name)" }

    /// The line `migrate` adds to such a stage's failure.
    var hint: String {
        "not replayable here: SQLite has no \(described); the app registers it on its connection, which fixturekit cannot (or the name is misspelt)"
    }
}
