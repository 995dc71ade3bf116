import CSQLite
import FixtureKitSystem

extension Database {
    /// Runs every statement of `script` in order, one at a time, as SQLite's own
    /// parser splits them (`sqlite3_prepare_v3` and its tail).
    ///
    /// - Parameter willRun: sees each statement's text before it runs, for a log.
    /// - Throws: ``SQLiteError`` carrying the text of the statement that failed.
    public func executeScript(_ script: String, willRun: (String) -> Void = { _ in }) throws(SQLiteError) {
        try eachStatement(in: script, failedPrepareNames: .statement) { (statement, text) throws(SQLiteError) in
            willRun(text)
            var step = sqlite3_step(statement)
            while step == SQLITE_ROW { step = sqlite3_step(statement) }
            if step != SQLITE_DONE { throw SQLiteError(connection: handle, code: step, sql: text) }
        }
    }

    /// What the error of a statement that does not compile carries as its SQL.
    enum FailedPrepareText {
        /// The statement's text, trimmed.
        case statement
        /// The rest of the script, from the statement on.
        case restOfScript
    }

    /// Compiles the statements of `script` one at a time, as SQLite's own parser
    /// splits them (`sqlite3_prepare_v3` and its tail), and hands each to `body`
    /// with its text (trimmed); blank space and comments compile to nothing and
    /// are skipped. Each statement is finalized after `body`.
    /// - Throws: ``SQLiteError``: the first statement that does not compile
    ///   (its SQL as `failedPrepareNames` says), or what `body` throws; the
    ///   statements after it are not compiled.
    func eachStatement(
        in script: String, failedPrepareNames: FailedPrepareText, _ body: (_ statement: OpaquePointer, _ text: String) throws(SQLiteError) -> Void
    ) throws(SQLiteError) {
        let cursor = ScriptCursor(database: self, script: script)
        while true {
            let next: ScriptStatement?
            do { next = try cursor.next() } catch {
                var failure = error.error
                failure.sql = switch failedPrepareNames {
                case .statement: failure.sql?.trimmingWhitespace()
                case .restOfScript: cursor.text(error.start, cursor.count)
                }
                throw failure
            }
            guard let next else { return }
            try body(next.statement.handle, next.text)
        }
    }
}

extension String {
    /// The string without white space at either end.
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}
