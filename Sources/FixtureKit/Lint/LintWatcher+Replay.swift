import Foundation
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// Q001 and X001: what a stage needs of the SQLite it runs on beyond what SQLite
/// builds as it recommends: double-quoted string literals (Q001), and collations
/// or functions only the app registers (X001, "not replayable here").
extension LintWatcher {
    /// Q001: compiles `statement` again, before it runs, with `SQLITE_DBCONFIG_DQS_DML`
    /// and `SQLITE_DBCONFIG_DQS_DDL` off, and notes it when SQLite then finds no
    /// such column where, with them on, it took a double-quoted name for a string.
    /// An ALTER TABLE, which makes SQLite parse the schema's views and triggers again
    /// only when it runs, is also run so, inside a savepoint rolled back. The
    /// settings are back as they were before the statement itself runs.
    func checkDoubleQuotes(_ statement: ScriptStatement, at place: StagePlace) {
        guard let database else { return }
        let (dml, ddl) = ((try? database.setting(.dqsDML)) ?? false, (try? database.setting(.dqsDDL)) ?? false)
        guard dml || ddl else { return }
        defer {
            _ = try? database.set(.dqsDML, dml)
            _ = try? database.set(.dqsDDL, ddl)
        }
        guard (try? database.set(.dqsDML, false)) != nil, (try? database.set(.dqsDDL, false)) != nil else { return }
        do {
            let again = try database.prepare(statement.statement.sql)
            if !statement.actions.alters.isEmpty { try runRolledBack(again) }
        } catch {
            guard let range = error.message.range(of: "no such column: ") else { return }
            let name = String(error.message[range.upperBound...])
            observe(.doubleQuotedString, place, "\"\(name)\" names no column and is taken as a string only while double-quoted strings are on: SQLite built as it recommends (SQLITE_DQS=0) fails with no such column: \(name) (write '\(name)')")
        }
    }

    /// Runs `statement` to its end inside a savepoint, and rolls it back.
    private func runRolledBack(_ statement: Statement) throws(SQLiteError) {
        try database.inSavepoint("fixturekit_lint_quotes", end: .rollback) { () throws(SQLiteError) in
            defer { statement.reset() }
            while try statement.step() {}
        }
    }

    /// X001: notes that the statement at `place` needs a collation or function the
    /// app registers, when `error` says so.
    /// - Returns: whether it did.
    func notReplayable(_ error: SQLiteError, at place: StagePlace) -> Bool {
        guard let missing = UnregisteredName(error) else { return false }
        unreplayable = (place, missing)
        observe(.notReplayable, place, "needs \(missing.described), which SQLite does not have here: the app registers it on its connection, so the stage is not replayable here, and the rest of the fixture's chain is not linted")
        return true
    }

    /// The statement at `file:line` did not compile: X001 when it needs a name the app registers.
    func didNotCompile(file: String, line: Int, error: SQLiteError) {
        if notReplayable(error, at: StagePlace(file: file, line: line)) { sawFailure = true }
    }

    /// After a stage that is not replayable here: each of `stages` (the rest of the
    /// fixture's chain) noted as not linted on this fixture, and why.
    func notLinted(_ stages: some Sequence<CorpusConfiguration.Stage>) {
        guard let (place, missing) = unreplayable else { return }
        for stage in stages {
            guard let path = stage.sql ?? stage.folder else { continue }
            observe(.notReplayable, StagePlace(file: path, line: 0), "not linted on this fixture: \(place.file):\(place.line) needs \(missing.described), which the app registers (not replayable here)")
        }
    }
}
