import Foundation
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// Finds the PRAGMAs of a stage that do nothing where they stand: `PRAGMA
/// foreign_keys` inside a transaction, `journal_mode` in one that has written,
/// `page_size` and `auto_vacuum` on a store that exists (until a VACUUM, which
/// cannot run inside a transaction).
///
/// SQLite says which statement is a PRAGMA and which pragma it sets (the
/// authorizer's `SQLITE_PRAGMA`); after it ran, the setting is read back from the
/// stage's connection, and the same statement is run on an empty scratch store,
/// where it takes effect: when the two differ, the statement did nothing, and
/// what it would have done is the scratch store's value.
final class PragmaProbe {
    /// The pragmas read back, and why SQLite ignores each where it does.
    static let reasons: [String: String] = [
        "foreign_keys": "SQLite ignores it inside a transaction",
        "legacy_alter_table": "SQLite ignores it here",
        "recursive_triggers": "SQLite ignores it here",
        "journal_mode": "SQLite keeps the journal mode inside a transaction that has written",
        "page_size": "a store keeps its page size until a VACUUM, which cannot run inside a transaction",
        "auto_vacuum": "a store keeps it until a VACUUM, which cannot run inside a transaction",
        "encoding": "a store keeps the encoding it was created with",
    ]

    /// Where the scratch store is made (and removed).
    private let folder: String
    private var scratch: Database?
    private var scratchPath: String?
    /// `FILE:LINE: PRAGMA ... does nothing here: ...`, one per statement found.
    var warnings: [String] = []
    /// The same statements as values, one for each warning: the pragma's name as
    /// ``CheckResult/Finding/message``'s first word, at the statement's place.
    var ignored: [CheckResult.Finding] = []

    init(folder: String) {
        self.folder = folder
    }

    deinit { close() }

    /// The heap limits, which read back as set but do nothing in fixturekit's
    /// process: SQLite enforces them only with its memory statistics, which
    /// fixturekit turns off (``SQLiteLibrary/configured``; a process that used
    /// SQLite before keeps them, and its limits work). A limit would be the whole
    /// process' anyway, fixturekit's own checks and other paths included.
    static let heapLimits: Set<String> = ["soft_heap_limit", "hard_heap_limit"]

    /// Looks at `statement`, which just ran.
    func check(_ statement: ScriptStatement, file: String, cursor: ScriptCursor) {
        guard let pragma = statement.actions.pragma, pragma.argument != nil else { return }
        if Self.heapLimits.contains(pragma.name) {
            guard !SQLiteLibrary.keepsMemoryStatistics else { return }
            return report(statement, file: file, cursor: cursor, why: "fixturekit runs SQLite without the memory statistics that heap limits need (on a device the limit is the whole app's)")
        }
        guard let reason = Self.reasons[pragma.name] else { return }
        let database = statement.statement.database
        let read = "PRAGMA " + (pragma.schema.map { quotedIdentifier($0) + "." } ?? "") + pragma.name
        guard let held = try? database.scalar(read), let would = try? effect(of: statement.statement.sql, read: read), held != would else { return }
        report(statement, file: file, cursor: cursor, why: "\(pragma.name) stays \(held), where it would be \(would) (\(reason))")
    }

    /// Records `statement` as doing nothing where it stands, for `why`.
    private func report(_ statement: ScriptStatement, file: String, cursor: ScriptCursor, why: String) {
        let line = cursor.position(of: cursor.firstTokenLine(from: statement.start, to: statement.end)).line
        var text = cursor.written(statement.start, statement.end)
        if text.hasSuffix(";") { text.removeLast() }
        let message = "\(text) does nothing here: \(why)"
        warnings.append("\(file):\(line): " + message)
        ignored.append(CheckResult.Finding(message: message, file: file, line: line))
    }

    /// The setting `sql` gives an empty store outside a transaction.
    private func effect(of sql: String, read: String) throws -> SQLiteValue? {
        let database = try openScratch()
        _ = try database.results(of: sql)
        return try database.scalar(read)
    }

    private func openScratch() throws -> Database {
        if let scratch { return scratch }
        let path = folder.appendingPath(".pragma-probe-\(UUID().uuidString).sqlite")
        scratchPath = path
        let opened = try Database(path: path, options: .init(create: true))
        scratch = opened
        return opened
    }

    /// Closes and removes the scratch store.
    func close() {
        try? scratch?.close()
        scratch = nil
        guard let scratchPath else { return }
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: scratchPath + suffix) }
        self.scratchPath = nil
    }
}
