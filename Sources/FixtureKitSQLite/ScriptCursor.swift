import CSQLite
import FixtureKitSystem

/// What SQLite's authorizer was asked while it compiled one statement
/// (<https://www.sqlite.org/c3ref/set_authorizer.html>): what the statement is,
/// learnt from SQLite's own parser rather than from its text.
package struct StatementActions: Equatable, Sendable {
    /// `BEGIN`, `COMMIT` (or `END`) and `ROLLBACK` (not `ROLLBACK TO`): `SQLITE_TRANSACTION`.
    package enum TransactionControl: String, Sendable {
        case begin = "BEGIN", commit = "COMMIT", rollback = "ROLLBACK"
    }

    /// A `PRAGMA`: `SQLITE_PRAGMA`, its name by `identifierKey`, its argument or value, its schema.
    package struct Pragma: Equatable, Sendable {
        package var name: String
        package var argument: String?
        package var schema: String?
    }

    /// An index a statement creates, on its table.
    package struct CreatedIndex: Equatable, Sendable {
        package var index: String
        package var table: String
    }

    package var transaction: TransactionControl?
    package var pragma: Pragma?
    /// The tables the statement itself inserts into (`SQLITE_INSERT`; not those of the triggers it fires).
    package var inserts: [String] = []
    /// The tables the statement itself updates (`SQLITE_UPDATE`).
    package var updates: [String] = []
    /// The tables the statement itself deletes rows of (`SQLITE_DELETE`) or drops (`SQLITE_DROP_TABLE`).
    package var removes: [String] = []
    /// The tables the statement creates (`SQLITE_CREATE_TABLE`).
    package var creates: [String] = []
    /// The tables the statement drops (`SQLITE_DROP_TABLE`).
    package var drops: [String] = []
    /// The tables the statement alters (`SQLITE_ALTER_TABLE`: a rename, an added, renamed or dropped column).
    package var alters: [String] = []
    /// The indexes the statement creates, with their table (`SQLITE_CREATE_INDEX`).
    package var createsIndex: [CreatedIndex] = []
    /// The columns the statement itself reads, by table (`SQLITE_READ`).
    package var reads: [String: [String]] = [:]
    /// The SQL functions the statement calls (`SQLITE_FUNCTION`), by `identifierKey`.
    package var functions: [String] = []

    /// Whether it is `PRAGMA foreign_key_check`.
    package var checksForeignKeys: Bool { pragma?.name == "foreign_key_check" }
}

/// A statement of a script where it failed: SQLite's error, and where in the
/// script the statement and the error are.
package struct ScriptFailure: Error, Sendable {
    package var error: SQLiteError
    /// The byte offset of the statement in the script, as SQLite's parser
    /// delimited it (blank space and comments before it included).
    package var start: Int
    /// Where SQLite stopped reading it: its end, or for one that does not compile, where the parser gave up.
    package var end: Int
    /// The byte offset of the token the error is about (`sqlite3_error_offset`), when SQLite names one.
    package var errorOffset: Int?
    /// Whether the statement compiled: `false` for a syntax error, an unknown table, ...
    package var compiled: Bool
}

/// The statements of a script, compiled one at a time as SQLite's parser splits
/// them (`sqlite3_prepare_v3` and its tail), each with what the authorizer saw
/// while it compiled and where it is in the script: the one statement-splitting
/// loop under ``Database/executeScript(_:willRun:)``, ``Database/results(of:)``
/// and the migration stages.
///
/// A statement is compiled only when asked for, after the ones before it ran:
/// a statement may name a table that an earlier one creates.
package final class ScriptCursor {
    package let database: Database
    /// The script's UTF-8 bytes, NUL-terminated.
    private let bytes: [CChar]
    /// Where the next statement starts.
    package private(set) var offset = 0

    package init(database: Database, script: String) {
        self.database = database
        bytes = Array(script.utf8CString)
    }

    /// The script's length in bytes.
    package var count: Int { bytes.count - 1 }

    /// Compiles the next statement; `nil` at the end of the script (blank space
    /// and comments compile to nothing and are skipped).
    /// - Throws: ``ScriptFailure`` when it does not compile; the cursor stays before it.
    package func next() throws(ScriptFailure) -> ScriptStatement? {
        while offset < count {
            let start = offset
            let collector = ActionCollector()
            var handle: OpaquePointer?
            var tailOffset = count
            let code = bytes.withUnsafeBufferPointer { buffer -> Int32 in
                guard let base = buffer.baseAddress else { return SQLITE_MISUSE }
                var tail: UnsafePointer<CChar>?
                let context = Unmanaged.passUnretained(collector).toOpaque()
                sqlite3_set_authorizer(database.handle, authorize, context)
                defer { sqlite3_set_authorizer(database.handle, nil, nil) }
                let code = sqlite3_prepare_v3(database.handle, base + start, Int32(count - start), 0, &handle, &tail)
                if let tail { tailOffset = tail - base }
                return code
            }
            guard code == SQLITE_OK else {
                let errorOffset = sqlite3_error_offset(database.handle)
                sqlite3_finalize(handle)
                let text = self.text(start, max(tailOffset, start))
                throw ScriptFailure(
                    error: SQLiteError(connection: database.handle, code: code, sql: text), start: start, end: max(tailOffset, start),
                    errorOffset: errorOffset >= 0 ? start + Int(errorOffset) : nil, compiled: false)
            }
            offset = max(tailOffset, start + 1)
            guard let handle else { continue }
            let statement = Statement(database: database, handle: handle, sql: text(start, offset))
            return ScriptStatement(statement: statement, start: start, end: offset, actions: collector.actions)
        }
        return nil
    }

    /// The script's bytes from `start` to `end`, as text.
    package func text(_ start: Int, _ end: Int) -> String {
        let end = min(max(end, start), count)
        return bytes.withUnsafeBufferPointer { buffer in
            String(decoding: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[start..<end]), as: UTF8.self)
        }
    }

    /// The 1-based line and column (in characters) of the byte at `offset`.
    package func position(of offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for byte in bytes[0..<min(max(offset, 0), count)] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if UInt8(bitPattern: byte) & 0xC0 != 0x80 {
                // A character's first byte (not a UTF-8 continuation byte).
                column += 1
            }
        }
        return (line, column)
    }

    /// The offset of the line on which the statement that starts at `start`
    /// (blank space and comments before it included) has its first token: the
    /// last line whose start SQLite reads as blank space and comments only.
    package func firstTokenLine(from start: Int, to end: Int) -> Int {
        var lineStart = start
        var index = start
        while index < min(end, count) {
            if bytes[index] == 0x0A {
                let boundary = index + 1
                guard compilesToNothing(start, boundary) else { break }
                lineStart = boundary
            }
            index += 1
        }
        return lineStart
    }

    /// The statement from `start` to `end` as written: from the line of its first
    /// token (the comments before it left out), without blank space at either end;
    /// `through` extends it to the end of the line that holds that offset (where a
    /// statement that does not compile went wrong).
    package func written(_ start: Int, _ end: Int, through: Int? = nil) -> String {
        var last = end
        if let through {
            last = max(last, through)
            while last < count && bytes[last] != 0x0A { last += 1 }
        }
        return text(firstTokenLine(from: start, to: end), last).trimmingWhitespace()
    }

    /// Whether SQLite reads the bytes from `start` to `end` as blank space and comments only.
    private func compilesToNothing(_ start: Int, _ end: Int) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return false }
            var handle: OpaquePointer?
            let code = sqlite3_prepare_v3(database.handle, base + start, Int32(end - start), 0, &handle, nil)
            defer { sqlite3_finalize(handle) }
            return code == SQLITE_OK && handle == nil
        }
    }
}

/// One compiled statement of a ``ScriptCursor``.
package final class ScriptStatement {
    package let statement: Statement
    /// The bytes of the script it was compiled from: blank space and comments before it included.
    package let start: Int
    package let end: Int
    package let actions: StatementActions

    init(statement: Statement, start: Int, end: Int, actions: StatementActions) {
        self.statement = statement
        self.start = start
        self.end = end
        self.actions = actions
    }

    /// Its text, without blank space at either end.
    package var text: String { statement.sql.trimmingWhitespace() }

    /// Runs it to its end, its rows read and dropped.
    /// - Throws: ``ScriptFailure`` with SQLite's error and the token it names, if any.
    package func run() throws(ScriptFailure) {
        let handle = statement.handle
        var step = sqlite3_step(handle)
        while step == SQLITE_ROW { step = sqlite3_step(handle) }
        guard step != SQLITE_DONE else { return }
        let connection = statement.database.handle
        let error = SQLiteError(connection: connection, code: step, sql: text)
        let errorOffset = sqlite3_error_offset(connection)
        sqlite3_reset(handle)
        throw ScriptFailure(error: error, start: start, end: end, errorOffset: errorOffset >= 0 ? start + Int(errorOffset) : nil, compiled: true)
    }
}

/// Collects what the authorizer is asked during one `sqlite3_prepare`.
private final class ActionCollector {
    var actions = StatementActions()
}

/// The authorizer: notes what it is asked and allows everything.
private let authorize: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32 = {
    context, action, first, second, schema, inside in
    guard let context else { return SQLITE_OK }
    let collector = Unmanaged<ActionCollector>.fromOpaque(context).takeUnretainedValue()
    let name = first.map { String(cString: $0) }
    // Actions of the triggers and views a statement reaches name them in `inside`.
    let direct = inside == nil
    switch action {
    case SQLITE_TRANSACTION:
        collector.actions.transaction = name.flatMap { StatementActions.TransactionControl(rawValue: $0.uppercased()) }
    case SQLITE_PRAGMA:
        collector.actions.pragma = StatementActions.Pragma(
            name: (name ?? "").identifierKey, argument: second.map { String(cString: $0) }, schema: schema.map { String(cString: $0) })
    case SQLITE_INSERT where direct:
        if let name, !collector.actions.inserts.contains(name) { collector.actions.inserts.append(name) }
    case SQLITE_UPDATE where direct:
        if let name, !collector.actions.updates.contains(name) { collector.actions.updates.append(name) }
    case SQLITE_DELETE where direct, SQLITE_DROP_TABLE where direct:
        // A DROP TABLE is asked about the schema table's row too (`DELETE` of sqlite_master).
        if let name, !name.hasPrefix("sqlite_"), !collector.actions.removes.contains(name) { collector.actions.removes.append(name) }
        if action == SQLITE_DROP_TABLE, let name, !collector.actions.drops.contains(name) { collector.actions.drops.append(name) }
    case SQLITE_ALTER_TABLE where direct:
        // The first argument is the schema's name, the second the table's.
        if let table = second.map({ String(cString: $0) }), !collector.actions.alters.contains(table) { collector.actions.alters.append(table) }
    case SQLITE_CREATE_TABLE where direct:
        if let name, !collector.actions.creates.contains(name) { collector.actions.creates.append(name) }
    case SQLITE_CREATE_INDEX where direct:
        if let name, let table = second.map({ String(cString: $0) }) { collector.actions.createsIndex.append(StatementActions.CreatedIndex(index: name, table: table)) }
    case SQLITE_READ where direct:
        if let name, let column = second.map({ String(cString: $0) }), !name.hasPrefix("sqlite_") {
            if !(collector.actions.reads[name]?.contains(column) ?? false) { collector.actions.reads[name, default: []].append(column) }
        }
    case SQLITE_FUNCTION:
        // The first argument is NULL, the second the function's name.
        if let function = second.map({ String(cString: $0).identifierKey }), !collector.actions.functions.contains(function) { collector.actions.functions.append(function) }
    default:
        break
    }
    return SQLITE_OK
}
