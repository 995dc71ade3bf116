import CSQLite
import FixtureKitSystem

extension Database {
    /// Runs every statement of `script` in order, one at a time, as SQLite's own
    /// parser splits them (`sqlite3_prepare_v3` and its tail).
    ///
    /// - Parameter willRun: sees each statement's text before it runs, for a log.
    /// - Throws: ``SQLiteError`` carrying the text of the statement that failed.
    public func executeScript(_ script: String, willRun: (String) -> Void = { _ in }) throws(SQLiteError) {
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
                    failure = SQLiteError(connection: handle, code: code, sql: text)
                    sqlite3_finalize(statement)
                    return
                }
                cursor = tail ?? end
                // Blank space and comments compile to no statement.
                guard let statement else { continue }
                willRun(text)
                var step = sqlite3_step(statement)
                while step == SQLITE_ROW { step = sqlite3_step(statement) }
                if step != SQLITE_DONE {
                    failure = SQLiteError(connection: handle, code: step, sql: text)
                    sqlite3_finalize(statement)
                    return
                }
                sqlite3_finalize(statement)
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
