import FixtureKitSQLite

/// Told of each statement of an SQL stage as it runs, with its place: `lint`
/// watches the stages with one (``LintWatcher``), on the connection that runs
/// them, before and after each statement.
protocol StatementWatcher: AnyObject {
    /// `statement`, at `file:line`, is about to run.
    func willRun(_ statement: ScriptStatement, file: String, line: Int)
    /// `statement` ran; `error` is SQLite's when it failed (the connection still in the state it failed in).
    func didRun(_ statement: ScriptStatement, file: String, line: Int, error: SQLiteError?)
    /// The statement at `file:line` did not compile: `error` is SQLite's (a syntax error, a missing table, collation or function).
    func didNotCompile(file: String, line: Int, error: SQLiteError)
}

extension StatementWatcher {
    func didNotCompile(file: String, line: Int, error: SQLiteError) {}
}
