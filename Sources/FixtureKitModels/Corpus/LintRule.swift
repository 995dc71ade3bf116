/// How much a lint finding matters: an `error` fails `lint` (exit status 1) and
/// `migrate`'s lint check; a `warning` and a `note` are reported only; `off`
/// turns the rule off.
public enum LintSeverity: String, Codable, Sendable, CaseIterable {
    case error, warning, note, off
}

/// A lint rule of `fixturekit lint`: its stable code, what it finds in one
/// line, and the severity it has unless the configuration's `lint.rules` says
/// otherwise. The catalogue is ``all``; docs/commands/lint.md lists each rule
/// with an example finding and how to fix it.
public struct LintRule: Hashable, Sendable {
    /// The stable code, `U001`.
    public var code: String
    /// What the rule finds, on one line.
    public var summary: String
    public var defaultSeverity: LintSeverity
    /// What its counts count, per fixture: `keys`, `rows`, `ids`; `nil` when it counts nothing.
    public var unit: String?

    /// A new UNIQUE index or constraint where a fixture holds duplicates under its collation.
    public static let uniqueDuplicates = LintRule(code: "U001", summary: "a new UNIQUE index or constraint where a fixture holds duplicate keys", defaultSeverity: .error, unit: "keys")
    /// NOT NULL added where a fixture holds NULLs, or a NOT NULL column without a default added to a table with rows.
    public static let notNull = LintRule(code: "N001", summary: "NOT NULL added where a fixture holds NULLs or the table has rows", defaultSeverity: .error, unit: "rows")
    /// A PRAGMA that does nothing where it stands: `foreign_keys` or `legacy_alter_table` inside a transaction.
    public static let ignoredPragma = LintRule(code: "P001", summary: "a PRAGMA that SQLite ignores where it stands (foreign_keys, legacy_alter_table inside a transaction)", defaultSeverity: .warning, unit: nil)
    /// DROP TABLE or DROP COLUMN of data a fixture holds, not declared in `changes` or `counts`.
    public static let undeclaredDrop = LintRule(code: "D001", summary: "DROP TABLE or DROP COLUMN of data a fixture holds, not declared in \"changes\" or \"counts\"", defaultSeverity: .error, unit: "rows")
    /// An AUTOINCREMENT table whose `sqlite_sequence` row is lost or goes backwards.
    public static let sequence = LintRule(code: "S001", summary: "an AUTOINCREMENT table whose sqlite_sequence row is lost or goes backwards", defaultSeverity: .warning, unit: "ids")
    /// A table rebuild whose copy forgets a column the new table keeps.
    public static let forgottenColumn = LintRule(code: "R001", summary: "a table rebuild that never reads a column the new table keeps", defaultSeverity: .error, unit: "rows")
    /// A table rebuild not followed by `PRAGMA foreign_key_check`.
    public static let rebuildWithoutCheck = LintRule(code: "FK001", summary: "a rebuild of a table with foreign keys not followed by PRAGMA foreign_key_check", defaultSeverity: .warning, unit: "rows")
    /// A DROP of a parent table whose children hold rows that refer to it.
    public static let droppedParent = LintRule(code: "FK002", summary: "a DROP of a parent table whose child rows would be deleted, blocked or left orphans", defaultSeverity: .error, unit: "rows")
    /// A CHECK or FOREIGN KEY added (by ADD COLUMN or a rebuild) that rows a fixture holds violate.
    public static let violatedConstraint = LintRule(code: "C001", summary: "a CHECK or FOREIGN KEY added that rows a fixture holds violate", defaultSeverity: .error, unit: "rows")
    /// A view, trigger or index of a rebuilt or renamed table broken, dropped, or left on the old table, under either `legacy_alter_table` setting.
    public static let staleReference = LintRule(code: "L001", summary: "a view, trigger or index of a rebuilt or renamed table broken, dropped or left on the old table (either legacy_alter_table)", defaultSeverity: .error, unit: nil)
    /// A type or affinity change (STRICT included) across a rebuild that changes stored values or that STRICT refuses.
    public static let affinityChange = LintRule(code: "A001", summary: "a column's type affinity changed (or made STRICT) by a rebuild, changing or refusing stored values", defaultSeverity: .error, unit: "rows")
    /// A stage file of a shipped version edited, removed or reordered since the lock.
    public static let historyChange = LintRule(code: "H001", summary: "a shipped stage changed since fixturekit.lock recorded it", defaultSeverity: .error, unit: nil)
    /// Syntax or a function newer than the oldest SQLite the app supports (`minimumSQLite`, `platforms`).
    public static let newerSQLite = LintRule(code: "V001", summary: "syntax or a function newer than the oldest SQLite the app supports (\"minimumSQLite\", \"platforms\")", defaultSeverity: .error, unit: nil)
    /// A statement that fails on a fixture for a reason no other rule names.
    public static let stageFails = LintRule(code: "F001", summary: "a statement that fails on a fixture (no other rule says why)", defaultSeverity: .error, unit: nil)

    /// A double-quoted string literal: the stage works only while SQLite takes a double-quoted name of no column as a string (`SQLITE_DBCONFIG_DQS_*`).
    public static let doubleQuotedString = LintRule(code: "Q001", summary: "a double-quoted string literal, which SQLite built as it recommends (SQLITE_DQS=0) refuses", defaultSeverity: .warning, unit: nil)
    /// A stage that needs a collation or SQL function the app registers: not replayable here.
    public static let notReplayable = LintRule(code: "X001", summary: "a stage that needs a collation or function the app registers: not replayable here, and the rest of the chain not linted", defaultSeverity: .warning, unit: nil)

    /// Every rule, in the order the documentation lists them.
    public static let all: [LintRule] = [uniqueDuplicates, notNull, ignoredPragma, undeclaredDrop, sequence, forgottenColumn, rebuildWithoutCheck, droppedParent, violatedConstraint, staleReference, affinityChange, historyChange, newerSQLite, stageFails, doubleQuotedString, notReplayable]

    /// The rule of `code`, when there is one.
    public static func named(_ code: String) -> LintRule? { all.first { $0.code == code } }
}
