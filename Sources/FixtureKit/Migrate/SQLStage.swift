import Foundation
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// An SQL stage's files run on fixturekit's connection, statement by statement
/// as SQLite's parser splits them (``ScriptCursor``), in the transactions the
/// stage declares: each file in one of its own (a file that holds its own `BEGIN`
/// and `COMMIT` runs as written, outside any of fixturekit's, as the app's tool
/// runs it when told not to wrap it), or the whole stage in one.
///
/// A statement that fails is named by its file, line and column; a PRAGMA that
/// does nothing where it stands is a warning (``PragmaProbe``); a UNIQUE or NOT
/// NULL failure names its rows (``ConstraintProbe``).
struct SQLStage {
    /// One file: its path as the configuration names it, and what `record` writes for it.
    struct File {
        var path: String
        var absolute: String
        var recorded: String?
    }

    /// How a file that was run in fixturekit's transaction ended.
    private enum Ending {
        case done
        /// It controls its own transaction: it is run again as written.
        case holdsItsOwnTransaction
    }

    let database: Database
    let files: [File]
    let transaction: StageTransaction
    let record: StageRecord?
    let probe: ConstraintProbe
    var pragmas: PragmaProbe
    /// Told of each statement before and after it runs (``LintWatcher``).
    var watcher: StatementWatcher? = nil
    /// Every statement run, in order.
    var log: [String] = []
    /// The virtual-machine operations its statements ran (``Statement/virtualMachineSteps``).
    var steps = 0

    /// Runs the files.
    /// - Throws: ``StageRunner/Failure`` naming the file, line and column of the statement that failed.
    mutating func run() throws(StageRunner.Failure) {
        guard transaction == .eachFile else {
            try database.inTransaction(.immediate, wrapping: Self.failure) { () throws(StageRunner.Failure) in
                for file in files {
                    let script = try read(file)
                    if try skipsRecorded(file) { continue }
                    _ = try runFile(file, script, wrapped: true, canRunAsWritten: false)
                    try write(file)
                }
            }
            return
        }
        for file in files {
            let script = try read(file)
            if try skipsRecorded(file) { continue }
            let (warnings, logged) = (pragmas.warnings.count, log.count)
            let ending = try database.transaction(.immediate, wrapping: Self.failure) { () throws(StageRunner.Failure) -> Database.TransactionCompletion in
                guard try runFile(file, script, wrapped: true, canRunAsWritten: true) == .done else { return .rollback }
                try write(file)
                return .commit
            }
            guard ending == .rollback else { continue }
            // The file holds its own BEGIN and COMMIT: what it did in fixturekit's
            // transaction is undone, and it runs again as written.
            pragmas.warnings.removeSubrange(warnings...)
            pragmas.ignored.removeSubrange(warnings...)
            log.removeSubrange(logged...)
            log.append("-- \(file.path) holds its own BEGIN and COMMIT: run as written, outside a transaction of fixturekit's")
            do throws(StageRunner.Failure) {
                _ = try runFile(file, script, wrapped: false, canRunAsWritten: true)
                try write(file)
            } catch {
                // The file's own transaction, left open by the statement that failed.
                if !database.isAutocommit { try? database.execute("ROLLBACK") }
                throw error
            }
        }
    }

    /// Whether `record`'s table already holds the file, which is then logged and not run.
    private mutating func skipsRecorded(_ file: File) throws(StageRunner.Failure) -> Bool {
        guard try isRecorded(file) else { return false }
        log.append("-- \(file.path): recorded in \(record?.table ?? ""): not run")
        return true
    }

    /// Runs one file's statements; inside fixturekit's transaction when `wrapped`.
    private mutating func runFile(_ file: File, _ script: String, wrapped: Bool, canRunAsWritten: Bool) throws(StageRunner.Failure) -> Ending {
        let cursor = ScriptCursor(database: database, script: script)
        while true {
            let statement: ScriptStatement
            do {
                guard let next = try cursor.next() else { break }
                statement = next
            } catch {
                if let watcher {
                    watcher.didNotCompile(file: file.path, line: cursor.position(of: cursor.firstTokenLine(from: error.start, to: error.end)).line, error: error.error)
                }
                throw failure(error, in: file, cursor: cursor, statement: nil)
            }
            if wrapped, let control = statement.actions.transaction {
                if canRunAsWritten { return .holdsItsOwnTransaction }
                let line = cursor.position(of: cursor.firstTokenLine(from: statement.start, to: statement.end)).line
                throw StageRunner.Failure(
                    .invalid(nil),
                    "\(file.path):\(line): \(control.rawValue) cannot run here: the stage runs in one transaction (\"transaction\": \"whole stage\"), and SQLite does not nest transactions; with \"each file\", a file that holds its own BEGIN and COMMIT runs as written",
                    statement: cursor.written(statement.start, statement.end))
            }
            log.append(statement.text)
            let line = watcher.map { _ in cursor.position(of: cursor.firstTokenLine(from: statement.start, to: statement.end)).line } ?? 0
            watcher?.willRun(statement, file: file.path, line: line)
            do { try statement.run() } catch {
                watcher?.didRun(statement, file: file.path, line: line, error: error.error)
                throw failure(error, in: file, cursor: cursor, statement: statement)
            }
            watcher?.didRun(statement, file: file.path, line: line, error: nil)
            steps += statement.statement.virtualMachineSteps
            pragmas.check(statement, file: file.path, cursor: cursor)
        }
        if !wrapped && !database.isAutocommit {
            throw StageRunner.Failure(.invalid(nil), "\(file.path): ends inside the transaction it opened (BEGIN without COMMIT)")
        }
        return .done
    }

    /// A failed statement as the report names it: `FILE:LINE:COLUMN: SQLite error
    /// N: message` (the column when SQLite names the token), the statement as
    /// written, and for a UNIQUE or NOT NULL failure the rows behind it.
    private func failure(_ failure: ScriptFailure, in file: File, cursor: ScriptCursor, statement: ScriptStatement?) -> StageRunner.Failure {
        let error = failure.error
        let at: String
        if let offset = failure.errorOffset {
            let (line, column) = cursor.position(of: offset)
            at = "\(file.path):\(line):\(column)"
        } else {
            at = "\(file.path):\(cursor.position(of: cursor.firstTokenLine(from: failure.start, to: failure.end)).line)"
        }
        let rows = (statement.map { probe.describe(error, statement: $0) } ?? []) + (UnregisteredName(error).map { [$0.hint] } ?? [])
        return StageRunner.Failure(
            Self.reason(error),
            ([StageRunner.describe(at: at, error)] + rows).joined(separator: "\n"),
            statement: cursor.written(failure.start, failure.end, through: failure.compiled ? nil : failure.errorOffset))
    }

    /// A statement's error as the stage's failure: the machine's when SQLite ran
    /// out of disk, hit an I/O error or could not open a file, else the statement's.
    static func reason(_ error: SQLiteError) -> StageRunner.Failure.Reason {
        [.full, .ioError, .cantOpen].contains(error.resultCode) ? .machine(error) : .statement(error)
    }

    private func read(_ file: File) throws(StageRunner.Failure) -> String {
        do { return String(decoding: try POSIX.readFile(file.absolute), as: UTF8.self) } catch {
            throw StageRunner.Failure(.invalid(error), "cannot read \(file.path): \(error.reason)")
        }
    }

    /// A failure of fixturekit's own `BEGIN`, `COMMIT` or `ROLLBACK` as the stage's.
    private static func failure(_ error: SQLiteError) -> StageRunner.Failure {
        StageRunner.Failure(reason(error), StageRunner.describe(at: nil, error), statement: error.sql)
    }

    // MARK: - The app's bookkeeping table

    /// Whether `record`'s table already holds the file: the app's tool would not run it again.
    private func isRecorded(_ file: File) throws(StageRunner.Failure) -> Bool {
        guard let record, let value = file.recorded else { return false }
        let sql = "SELECT 1 FROM \(quotedIdentifier(record.table)) WHERE \(quotedIdentifier(record.column)) = ?1 LIMIT 1"
        do { return try database.scalar(sql, [.text(value)]) != nil } catch {
            throw StageRunner.Failure(.statement(error), "record: \(StageRunner.describe(at: nil, error)) (the app's migration tool creates its table before the first migration; so must the fixture)", statement: sql)
        }
    }

    /// Records the file in `record`'s table, in its transaction.
    private mutating func write(_ file: File) throws(StageRunner.Failure) {
        guard let record, let value = file.recorded else { return }
        let sql = "INSERT INTO \(quotedIdentifier(record.table)) (\(quotedIdentifier(record.column))) VALUES (?1)"
        log.append(sql.replacingOccurrences(of: "?1", with: quotedLiteral(value)))
        do { _ = try database.rows(sql, [.text(value)]) } catch {
            throw StageRunner.Failure(.statement(error), "record \(file.path): \(StageRunner.describe(at: nil, error))", statement: sql)
        }
    }
}
