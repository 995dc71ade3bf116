import CSQLite
import FixtureKitSystem

extension Database {
    /// What compiling a piece of SQL as exactly one statement found.
    package enum CompileCheck: Equatable {
        case oneStatement
        /// SQLite's message.
        case error(String)
        /// It compiled, and more SQL follows it.
        case followedByMore
    }

    /// Compiles `sql` without running it, and tells whether it is one statement.
    package func compileCheck(_ sql: String) -> CompileCheck {
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        return sql.withCString { text -> CompileCheck in
            let code = sqlite3_prepare_v3(handle, text, -1, 0, &statement, &tail)
            defer { sqlite3_finalize(statement) }
            guard code == SQLITE_OK else { return .error(String(cString: sqlite3_errmsg(handle))) }
            if let tail, !String(cString: tail).allSatisfy({ $0.isWhitespace }) { return .followedByMore }
            return .oneStatement
        }
    }

    /// Turns the connection's triggers on or off (`SQLITE_DBCONFIG_ENABLE_TRIGGER`).
    package func setTriggersEnabled(_ enabled: Bool) throws(SQLiteError) {
        var result: Int32 = 0
        let code = fixturekit_sqlite_db_config_int(handle, SQLITE_DBCONFIG_ENABLE_TRIGGER, enabled ? 1 : 0, &result)
        guard code == SQLITE_OK else { throw SQLiteError(connection: handle, code: code) }
    }
}

extension SQLiteError {
    /// `SQLITE_ERROR`: the generic error.
    package static let genericError: Int32 = SQLITE_ERROR
    /// `SQLITE_CONSTRAINT`: a UNIQUE, NOT NULL, CHECK or foreign key constraint failed.
    package var isConstraintViolation: Bool { code == SQLITE_CONSTRAINT }
    /// `SQLITE_CONSTRAINT_UNIQUE` or `SQLITE_CONSTRAINT_PRIMARYKEY` (macros Swift
    /// cannot import: `SQLITE_CONSTRAINT | (8<<8)`, `| (6<<8)`): a row would repeat another's key.
    package var isUniqueViolation: Bool { extendedCode == SQLITE_CONSTRAINT | (8 << 8) || extendedCode == SQLITE_CONSTRAINT | (6 << 8) }
    /// `SQLITE_CONSTRAINT_NOTNULL` (`SQLITE_CONSTRAINT | (5<<8)`): a NOT NULL column would hold NULL.
    package var isNotNullViolation: Bool { extendedCode == SQLITE_CONSTRAINT | (5 << 8) }
    /// `SQLITE_CONSTRAINT_FOREIGNKEY` (`SQLITE_CONSTRAINT | (3<<8)`): a row would refer to no row.
    package var isForeignKeyViolation: Bool { extendedCode == SQLITE_CONSTRAINT | (3 << 8) }
    /// `SQLITE_CONSTRAINT_CHECK` (`SQLITE_CONSTRAINT | (1<<8)`): a row fails a CHECK
    /// constraint; an ADD COLUMN that existing rows fail says `CHECK constraint failed`
    /// with `SQLITE_ERROR`.
    package var isCheckViolation: Bool {
        extendedCode == SQLITE_CONSTRAINT | (1 << 8) || message.hasPrefix("CHECK constraint failed")
    }
    /// `SQLITE_CONSTRAINT_DATATYPE` (`SQLITE_CONSTRAINT | (12<<8)`): a STRICT table cannot store a value in a column's type.
    package var isDatatypeViolation: Bool { extendedCode == SQLITE_CONSTRAINT | (12 << 8) }
    /// `SQLITE_NOTADB`: the file is not an SQLite database.
    package var isNotADatabase: Bool { code == SQLITE_NOTADB }
}
