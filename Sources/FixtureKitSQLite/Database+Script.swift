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
        var utf8 = Array(script.utf8CString)
        let count = utf8.count
        var failure: SQLiteError?
        utf8.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var cursor = UnsafePointer<CChar>(base)
            let end = UnsafePointer<CChar>(base) + count - 1
            while cursor < end {
                var statement: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let code = sqlite3_prepare_v3(handle, cursor, Int32(end - cursor), 0, &statement, &tail)
                let text = Self.text(from: cursor, to: tail ?? end)
                guard code == SQLITE_OK else {
                    let sql = switch failedPrepareNames {
                    case .statement: text
                    case .restOfScript: String(cString: cursor)
                    }
                    failure = SQLiteError(connection: handle, code: code, sql: sql)
                    sqlite3_finalize(statement)
                    return
                }
                cursor = tail ?? end
                // Blank space and comments compile to no statement.
                guard let statement else { continue }
                defer { sqlite3_finalize(statement) }
                do throws(SQLiteError) { try body(statement, text) } catch {
                    failure = error
                    return
                }
            }
        }
        if let failure { throw failure }
    }

    private static func text(from start: UnsafePointer<CChar>, to end: UnsafePointer<CChar>) -> String {
        let bytes = UnsafeRawBufferPointer(start: start, count: max(0, end - start))
        return String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
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
