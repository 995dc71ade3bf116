import CSQLite
import FixtureKitSystem

/// A setting of a connection that changes what SQL does on it: the settings a
/// migration stage runs with (see `ConnectionSettings`).
package enum ConnectionFlag: String, CaseIterable, Sendable {
    /// `PRAGMA foreign_keys`: foreign keys are enforced.
    case foreignKeys = "foreign_keys"
    /// `PRAGMA legacy_alter_table`: `ALTER TABLE ... RENAME` leaves the references to the table alone.
    case legacyAlterTable = "legacy_alter_table"
    /// `PRAGMA recursive_triggers`: a trigger may fire triggers, itself included.
    case recursiveTriggers = "recursive_triggers"
    /// `SQLITE_DBCONFIG_DEFENSIVE`: no SQL may corrupt the database (`writable_schema`, shadow tables).
    case defensive
    /// `PRAGMA trusted_schema`: SQL functions and virtual tables may be used by the schema (views, triggers).
    case trustedSchema = "trusted_schema"
    /// `SQLITE_DBCONFIG_DQS_DML`: a double-quoted string that names no column is a string literal in DML.
    case dqsDML = "dqs_dml"
    /// `SQLITE_DBCONFIG_DQS_DDL`: the same in DDL (`CREATE TABLE`, `CREATE INDEX`, ...).
    case dqsDDL = "dqs_ddl"

    /// Its `sqlite3_db_config` option; `nil` for `recursive_triggers`, which only a PRAGMA sets.
    private var option: Int32? {
        switch self {
        case .foreignKeys: SQLITE_DBCONFIG_ENABLE_FKEY
        case .legacyAlterTable: SQLITE_DBCONFIG_LEGACY_ALTER_TABLE
        case .recursiveTriggers: nil
        case .defensive: SQLITE_DBCONFIG_DEFENSIVE
        case .trustedSchema: SQLITE_DBCONFIG_TRUSTED_SCHEMA
        case .dqsDML: SQLITE_DBCONFIG_DQS_DML
        case .dqsDDL: SQLITE_DBCONFIG_DQS_DDL
        }
    }

    /// Sets it on `database`, and gives back what the connection holds then.
    fileprivate func set(_ database: Database, _ value: Int32) throws(SQLiteError) -> Bool {
        guard let option else {
            if value >= 0 { try database.execute("PRAGMA \(rawValue) = \(value)") }
            return try database.scalar("PRAGMA \(rawValue)")?.integer == 1
        }
        var result: Int32 = 0
        let code = fixturekit_sqlite_db_config_int(database.handle, option, value, &result)
        guard code == SQLITE_OK else { throw SQLiteError(connection: database.handle, code: code) }
        return result == 1
    }
}

extension Database {
    /// Turns `flag` on or off (`sqlite3_db_config`, or its PRAGMA), outside a
    /// transaction: SQLite ignores `PRAGMA foreign_keys` inside one.
    /// - Returns: what the connection holds afterwards.
    @discardableResult
    package func set(_ flag: ConnectionFlag, _ on: Bool) throws(SQLiteError) -> Bool {
        try flag.set(self, on ? 1 : 0)
    }

    /// Whether `flag` is on.
    package func setting(_ flag: ConnectionFlag) throws(SQLiteError) -> Bool {
        try flag.set(self, -1)
    }

    /// Whether the connection is outside any transaction (`sqlite3_get_autocommit`).
    package var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// The most arguments an SQL function may take on this connection
    /// (`SQLITE_LIMIT_FUNCTION_ARG`): SQLite lowers it when set, never raises
    /// it above the limit it was built with (127 by default).
    package var functionArgumentLimit: Int {
        get { Int(sqlite3_limit(handle, SQLITE_LIMIT_FUNCTION_ARG, -1)) }
        set { sqlite3_limit(handle, SQLITE_LIMIT_FUNCTION_ARG, Int32(clamping: max(newValue, 0))) }
    }
}
