#if canImport(Glibc)
import Glibc
#endif
import CSQLite
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// What the engine did to one store.
struct EngineResult {
    var columns: [AnonymizationReport.ColumnChange]
    /// `table.column` the rules name that the store does not have.
    var absent: [String]
    var rebuiltIndexes: [String]
    /// `table.column` of each rule index, for the leak scan's report.
    var ruleNames: [String]
    var schemaText: [String]
    /// The store keeps its text in UTF-16.
    var isUTF16: Bool
    /// The output was left in WAL mode, as the store was.
    var isWAL: Bool
    /// The leak scan, started while the rows were rewritten.
    var leakScan: LeakScan
    /// Keyed outputs taken from ``KeyedPrefetch`` rather than computed on the spot.
    var prefetched = 0
}

/// Rewrites a store set through SQLite: the rules as UPDATE statements calling
/// application-defined functions, the FTS indexes rebuilt from the new text,
/// then `VACUUM INTO` a fresh file that holds nothing but the live content.
///
/// The working copy is disposable: it is written with no journal and no fsync,
/// and removed afterwards; old values left in its free pages never reach the
/// output, which `VACUUM INTO` builds page by page from the live rows.
enum AnonymizationEngine {
    /// SQLite's page cache for the working copy, in KiB (a negative cache_size).
    static let cacheKiB = 16384
    /// The page cache of `VACUUM INTO`, for the store and the output each, in KiB.
    static let vacuumCacheKiB = 2048
    /// Free space left after the prefetch's copy of the store and the output.
    static let prefetchSpareBytes: UInt64 = 256 << 20

    /// Anonymizes the store set `folder/storeName` into `output` (which must not exist).
    /// - Parameters:
    ///   - display: the store as the user named it, for messages.
    ///   - spoolFolder: where the leak scan's spool files are created (and at once unlinked).
    ///   - pristine: a folder holding the store set's files `names` as they were
    ///     copied, never opened: a second thread reads its own copy of them to
    ///     compute keyed outputs ahead (see ``KeyedPrefetch``).
    /// - Throws: ``FixtureKitError``: exit 2 for rules that do not fit the store.
    static func run(folder: String, storeName: String, output: String, rules: AnonymizationRules, key: AnonymizationKey, spoolFolder: String, display: String, pristine: (folder: String, names: [String])? = nil) throws(FixtureKitError) -> EngineResult {
        let path = folder.appendingPath(storeName)
        func sqlite(_ body: () throws(SQLiteError) -> Void) throws(FixtureKitError) {
            do { try body() } catch { throw FixtureKitError(what: "anonymize", path: display, why: error.description) }
        }
        let database: Database
        let isWAL: Bool
        do {
            database = try Database(path: path, options: .init(busyTimeout: 0))
            // The first read replays the copied WAL or rolls back a hot journal.
            _ = try database.scalar("SELECT count(*) FROM sqlite_schema")
            isWAL = try database.scalar("PRAGMA journal_mode")?.text?.lowercased() == "wal"
            try database.execute("PRAGMA journal_mode = DELETE")
            try database.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA secure_delete = ON; PRAGMA foreign_keys = OFF; PRAGMA cache_size = -\(cacheKiB)")
            try disableTriggers(database)
        } catch {
            throw FixtureKitError(what: "anonymize", path: display, why: error.description, hint: error.code == SQLITE_NOTADB ? "is it an SQLite store?" : nil)
        }
        let schema: AnonymizationSchema
        do { schema = try AnonymizationSchema(database: database) } catch {
            throw FixtureKitError(what: "anonymize", path: display, why: error.description)
        }
        let (bound, absent) = try bind(rules, to: schema, database: database, display: display)
        let spool: LeakSpool
        do { spool = try LeakSpool(folder: spoolFolder, utf16: schema.isUTF16) } catch {
            throw FixtureKitError(what: "anonymize: \(error.operation)", path: error.path, why: error.reason)
        }
        // Its second thread indexes the replaced values while they are spooled.
        let leakScan = LeakScan(spool: spool, schemaText: schema.schemaText)
        let session = AnonymizationSession(key: key, rules: bound, spool: spool)
        let prefetch = startPrefetch(session, schema: schema, key: key, storeName: storeName, pristine: pristine, folder: spoolFolder.appendingPath(".fixturekit-prefetch"))
        var rebuilt: [String] = []
        do {
            defer {
                session.attach(nil)
                prefetch?.stop()
                session.finalizeStatements()
                try? database.close()
            }
            try sqlite { () throws(SQLiteError) in try session.register(on: database) }
            let violationsBefore = try foreignKeyViolations(database, display: display)
            try sqlite { () throws(SQLiteError) in try database.execute("BEGIN") }
            try buildMaps(session, database: database, display: display)
            try runUpdates(session, database: database, display: display)
            // No value is replaced after this: the leak scan's thread looks for
            // exemptions while the output is built. A write failure is thrown by the scan.
            try? spool.finish()
            session.releaseCache()
            session.attach(nil)
            prefetch?.stop()
            rebuilt = try rebuildFullText(schema, database: database, display: display)
            try refreshStatistics(schema, database: database, display: display)
            let violationsAfter = try foreignKeyViolations(database, display: display)
            if let (table, count) = violationsAfter.first(where: { $0.value > (violationsBefore[$0.key] ?? 0) }) {
                throw FixtureKitError(
                    what: "anonymize", path: display,
                    why: "the rules break foreign keys: \(count) rows of \(table) no longer find their parent",
                    hint: "give a foreign key and the key it refers to the same pseudonym domain")
            }
            try sqlite { () throws(SQLiteError) in
                try database.execute("COMMIT")
                // VACUUM INTO gives the output the cache size of the store: a small
                // one, since both files are read and written in order anyway.
                try database.execute("PRAGMA cache_size = -\(vacuumCacheKiB); PRAGMA shrink_memory")
                let vacuum = try database.prepare("VACUUM INTO ?1")
                try vacuum.bind([.text(output)])
                _ = try vacuum.step()
            }
        }
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
        if isWAL { try keepWALMode(output, display: display) }
        let columns = bound.map { rule in
            AnonymizationReport.ColumnChange(table: rule.table, column: rule.column, strategy: rule.rule.strategy.name, rowsChanged: session.changed[rule.index])
        }
        return EngineResult(
            columns: columns, absent: absent, rebuiltIndexes: rebuilt, ruleNames: bound.map(\.name), schemaText: schema.schemaText,
            isUTF16: schema.isUTF16, isWAL: isWAL, leakScan: leakScan, prefetched: prefetch?.taken ?? 0)
    }

    /// Puts the output in WAL mode, as its store was: SQLite writes the header
    /// through the log and, closing its last connection, copies it into the
    /// main file and deletes `-wal` and `-shm`.
    private static func keepWALMode(_ output: String, display: String) throws(FixtureKitError) {
        do throws(SQLiteError) {
            let database = try Database(path: output, options: .init(busyTimeout: 0))
            guard try database.scalar("PRAGMA journal_mode = WAL")?.text?.lowercased() == "wal" else {
                throw SQLiteError(code: SQLITE_ERROR, message: "the output did not switch to WAL mode", sql: "PRAGMA journal_mode = WAL")
            }
            try database.close()
        } catch {
            throw FixtureKitError(what: "anonymize: keep WAL mode", path: display, why: error.description)
        }
        for suffix in ["-wal", "-shm"] where (try? POSIX.lstatIfPresent(output + suffix)) != nil {
            throw FixtureKitError(what: "anonymize: keep WAL mode", path: display, why: "SQLite left \(output.split(separator: "/").last ?? "")\(suffix) behind")
        }
    }

    /// Turns triggers off for the connection: an app's triggers would copy old
    /// values into audit tables or touch `updated_at` columns.
    private static func disableTriggers(_ database: Database) throws(SQLiteError) {
        var result: Int32 = 0
        let code = fixturekit_sqlite_db_config_int(database.handle, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, &result)
        guard code == SQLITE_OK else { throw SQLiteError(connection: database.handle, code: code) }
    }

    // MARK: - Binding

    /// Checks the rules against the schema and binds each to its column.
    /// - Returns: the rules that rewrite something, and the columns the store lacks.
    static func bind(_ rules: AnonymizationRules, to schema: AnonymizationSchema, database: Database, display: String) throws(FixtureKitError) -> ([BoundRule], [String]) {
        func fail(_ why: String, hint: String? = nil) -> FixtureKitError {
            FixtureKitError(what: "anonymize", path: display, why: why, hint: hint)
        }
        var bound: [BoundRule] = []
        var absent: [String] = []
        var cacheIDs: [[UInt8]: Int] = [:]
        for (tableName, columnName, rule) in rules.orderedRules {
            let name = "\(tableName).\(columnName)"
            if schema.internalTables.contains(tableName) {
                throw fail("\(name): \(tableName) is SQLite's or an FTS index's own table, which fixturekit rebuilds", hint: "name the table the index is built from")
            }
            guard let table = schema.tables[tableName], let column = table.column(columnName) else {
                absent.append(name)
                continue
            }
            guard rule.strategy != .keep else { continue }
            if column.generated { throw fail("\(name): a generated column: rewrite the columns it is computed from") }
            if table.kind == .fullText(ownContent: false) {
                throw fail("\(name): \(tableName) is an FTS index without content of its own", hint: "anonymize the table it indexes; the index is rebuilt from it")
            }
            if let whereClause = rule.whereClause, let problem = checkExpression(database, table: tableName, whereClause) {
                throw fail("\(name): \"where\" is not an expression on \(tableName): \(problem)")
            }
            let tag: DerivationTag?
            let domain: String
            var cacheKey: [UInt8] = []
            switch rule.strategy {
            case .pseudonym(let format, let domainName, let length):
                tag = .pseudonym
                domain = domainName ?? "\(tableName).\(columnName)"
                cacheKey = Array("\(format.rawValue)/\(length)".utf8)
            case .fake(let kind):
                tag = .fake
                domain = kind.rawValue
            case .shiftDate(let group, let maxDays, let unit, let domainName):
                if let group, table.column(group) == nil {
                    throw fail("\(name): \"group\" names \(group), which \(tableName) does not have")
                }
                tag = .shiftDate
                domain = domainName ?? ""
                cacheKey = Array("\(maxDays)/\(unit.rawValue)".utf8)
            case .noise:
                tag = .noise
                domain = name
            default:
                tag = nil
                domain = name
            }
            let prefix = tag.map { AnonymizationSession.derivationPrefix($0, domain: domain) } ?? []
            let cacheID = cacheIDs[prefix + [0] + cacheKey] ?? cacheIDs.count
            cacheIDs[prefix + [0] + cacheKey] = cacheID
            bound.append(BoundRule(
                index: bound.count, table: tableName, column: columnName, rule: rule, derivationPrefix: prefix,
                cacheID: cacheID, mapTable: nil, columnUnique: column.unique))
        }
        if rules.strict {
            let uncovered = try uncoveredColumns(rules, schema: schema, database: database, display: display)
            if !uncovered.isEmpty {
                let undecided = uncovered.count { $0.hasSuffix(" (TODO)") }
                throw FixtureKitError(
                    what: "anonymize", path: display,
                    why: "strict: no rule for \(uncovered.count == 1 ? "1 column" : "\(uncovered.count) columns"): \(uncovered.joined(separator: ", "))",
                    hint: undecided > 0
                        ? "decide each TODO in \(rules.path): a strategy, or \"keep\" for a column that holds nothing personal"
                        : "give each a rule in \(rules.path), or \"keep\"")
            }
        }
        // A pseudonym or fake domain that holds a UNIQUE column is mapped as a whole,
        // so that every column of the domain gets the same unique pseudonyms.
        var domains: [[UInt8]: [Int]] = [:]
        for rule in bound {
            switch rule.rule.strategy {
            case .pseudonym, .fake: domains[rule.derivationPrefix, default: []].append(rule.index)
            default: break
            }
        }
        var mapNumber = 0
        for members in domains.values.sorted(by: { $0[0] < $1[0] }) where members.contains(where: { bound[$0].columnUnique }) {
            mapNumber += 1
            for member in members { bound[member].mapTable = "fixturekit_map_\(mapNumber)" }
        }
        return (bound, absent)
    }

    /// The TEXT and BLOB columns without a rule (and those of other types that
    /// hold text or blobs all the same), as `table.column`, sorted.
    static func uncoveredColumns(_ rules: AnonymizationRules, schema: AnonymizationSchema, database: Database, display: String) throws(FixtureKitError) -> [String] {
        try textColumns(schema: schema, database: database, display: display) { table, column in rules.tables[table]?[column] == nil }
            .map { column in
                let name = "\(column.table).\(column.column)"
                if rules.undecided.contains(name) { return name + " (TODO)" }
                return column.holdsTextOnly ? "\(name) (\(column.affinity) column holding text)" : name
            }
            .sorted(by: AnonymizationRules.bytewise)
    }

    /// A column that strict mode wants a rule for.
    struct TextColumn {
        var table: String
        var column: String
        var affinity: AnonymizationSchema.Affinity
        /// Not declared TEXT or BLOB, but holding text or blobs all the same.
        var holdsTextOnly: Bool
    }

    /// The TEXT and BLOB columns of every table (FTS tables that keep their own
    /// text included), and the columns of other types that hold text or blobs,
    /// among those `include` accepts; tables bytewise, columns in their order.
    static func textColumns(schema: AnonymizationSchema, database: Database, display: String, include: (String, String) -> Bool = { _, _ in true }) throws(FixtureKitError) -> [TextColumn] {
        var found: [TextColumn] = []
        for table in schema.tables.values.sorted(by: { AnonymizationRules.bytewise($0.name, $1.name) }) {
            switch table.kind {
            case .ordinary, .fullText(ownContent: true): break
            default: continue
            }
            let candidates = table.columns.filter { !$0.generated && include(table.name, $0.name) }
            for column in candidates where column.affinity == .text || column.affinity == .blob {
                found.append(TextColumn(table: table.name, column: column.name, affinity: column.affinity, holdsTextOnly: false))
            }
            // SQLite stores text in an INTEGER column when it does not look like a number.
            let others = candidates.filter { $0.affinity != .text && $0.affinity != .blob }
            guard !others.isEmpty, table.kind == .ordinary else { continue }
            let probes = others.map { "max(typeof(\(quotedIdentifier($0.name))) IN ('text', 'blob'))" }.joined(separator: ", ")
            let row: [SQLiteValue]
            do { row = try database.rows("SELECT \(probes) FROM \(quotedIdentifier(table.name))").first ?? [] } catch {
                throw FixtureKitError(what: "anonymize", path: display, why: error.description)
            }
            for (column, value) in zip(others, row) where value.integer == 1 {
                found.append(TextColumn(table: table.name, column: column.name, affinity: column.affinity, holdsTextOnly: true))
            }
        }
        return found
    }

    /// Why `expression` is not one SQL expression on `table`, or `nil` when it is:
    /// SQLite compiles it; anything after it (a second statement) is refused.
    static func checkExpression(_ database: Database, table: String, _ expression: String) -> String? {
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let sql = "SELECT 1 FROM \(quotedIdentifier(table)) WHERE (\(expression))"
        return sql.withCString { text -> String? in
            let code = sqlite3_prepare_v3(database.handle, text, -1, 0, &statement, &tail)
            defer { sqlite3_finalize(statement) }
            guard code == SQLITE_OK else { return String(cString: sqlite3_errmsg(database.handle)) }
            if let tail, !String(cString: tail).allSatisfy({ $0.isWhitespace }) { return "it is followed by more SQL" }
            return nil
        }
    }

    // MARK: - Rewriting

    /// Fills the map of each mapped domain: every distinct original of its
    /// columns, in their sort order, gets the first of its candidates (attempt
    /// 0, 1, 2...) that no earlier value took and no row left alone holds.
    private static func buildMaps(_ session: AnonymizationSession, database: Database, display: String) throws(FixtureKitError) {
        let tables = Dictionary(grouping: session.rules.filter { $0.mapTable != nil }, by: { $0.mapTable! })
        for (table, members) in tables.sorted(by: { $0.key < $1.key }) {
            let map = "temp." + quotedIdentifier(table)
            do {
                try database.execute("CREATE TEMP TABLE \(quotedIdentifier(table)) (original UNIQUE, pseudonym UNIQUE)")
                for rule in members {
                    let column = quotedIdentifier(rule.column)
                    let source = quotedIdentifier(rule.table)
                    let filter = rule.rule.whereClause.map { " AND (\($0))" } ?? ""
                    try database.execute("INSERT OR IGNORE INTO \(map) (original) SELECT \(column) FROM \(source) WHERE \(column) IS NOT NULL AND length(\(column)) > 0\(filter)")
                    if rule.columnUnique, let whereClause = rule.rule.whereClause {
                        // Values the rule leaves alone stay in the column: no pseudonym may equal one.
                        try database.execute("INSERT OR IGNORE INTO \(map) (original, pseudonym) SELECT NULL, \(column) FROM \(source) WHERE \(column) IS NOT NULL AND NOT (\(whereClause))")
                    }
                }
            } catch {
                throw FixtureKitError(what: "anonymize", path: display, why: error.description)
            }
            let rule = members[0]
            let select: Statement
            let assign: Statement
            do {
                select = try database.prepare("SELECT rowid, original FROM \(map) WHERE original IS NOT NULL AND (?1 IS NULL OR original > ?1) ORDER BY original LIMIT 1000")
                assign = try database.prepare("UPDATE \(map) SET pseudonym = ?1 WHERE rowid = ?2")
            } catch {
                throw FixtureKitError(what: "anonymize", path: display, why: error.description)
            }
            var last: SQLiteValue = .null
            while true {
                let batch: [[SQLiteValue]]
                do {
                    try select.bind([last])
                    var rows: [[SQLiteValue]] = []
                    while try select.step() { rows.append(select.row()) }
                    batch = rows
                } catch {
                    throw FixtureKitError(what: "anonymize", path: display, why: error.description)
                }
                guard let final = batch.last else { break }
                last = final[1]
                for row in batch {
                    try assignPseudonym(session, rule: rule, rowID: row[0], original: row[1], assign: assign, display: display)
                }
            }
        }
    }

    private static func assignPseudonym(_ session: AnonymizationSession, rule: BoundRule, rowID: SQLiteValue, original: SQLiteValue, assign: Statement, display: String) throws(FixtureKitError) {
        var attempt: UInt32 = 0
        while attempt < AnonymizationSession.maximumAttempts {
            let candidate = session.candidate(rule, original, attempt: attempt)
            guard let candidate else {
                throw FixtureKitError(what: "anonymize", path: display, why: "\(rule.name): \(session.failure ?? "no pseudonym")")
            }
            do {
                try assign.bind([candidate, rowID])
                _ = try assign.step()
                return
            } catch {
                guard error.code == SQLITE_CONSTRAINT else {
                    throw FixtureKitError(what: "anonymize", path: display, why: error.description)
                }
            }
            attempt += 1
        }
        throw FixtureKitError(
            what: "anonymize", path: display,
            why: "\(rule.name): no unique pseudonym left after \(AnonymizationSession.maximumAttempts) tries: the format has too few values for this column",
            hint: "use a wider format (hex, uuid, email)")
    }

    /// The rules of each streamed UPDATE statement, in the order they run:
    /// shift-date rules first (they read group columns before any rule rewrites
    /// them), then the other streamed rules, grouped by table and `where` so that
    /// one statement rewrites several columns.
    private static func streamedStatements(_ session: AnonymizationSession) -> [[BoundRule]] {
        let streamed = session.rules.filter { $0.mapTable == nil }
        let shifts = streamed.filter { if case .shiftDate = $0.rule.strategy { true } else { false } }
        let others = streamed.filter { if case .shiftDate = $0.rule.strategy { false } else { true } }
        var statements: [[BoundRule]] = []
        for phase in [shifts, others] {
            var groups: [String: [BoundRule]] = [:]
            var order: [String] = []
            for rule in phase {
                let key = rule.table + "\0" + (rule.rule.whereClause ?? "")
                if groups[key] == nil { order.append(key) }
                groups[key, default: []].append(rule)
            }
            statements += order.compactMap { groups[$0] }
        }
        return statements
    }

    /// Starts computing keyed outputs ahead for the statements that visit every
    /// row of an ordinary table in rowid order (no `where`), when a pristine copy
    /// of the store is at hand; `nil` when nothing is worth it.
    ///
    /// The prefetch copies the store set once more: it is left out unless the
    /// file system of `folder` has room for that copy and the output, with
    /// ``prefetchSpareBytes`` to spare, so that it never takes the room the output needs.
    private static func startPrefetch(_ session: AnonymizationSession, schema: AnonymizationSchema, key: AnonymizationKey, storeName: String, pristine: (folder: String, names: [String])?, folder: String) -> KeyedPrefetch? {
        // The fast path that takes the outputs works on UTF-8 stores.
        guard let pristine, !schema.isUTF16 else { return nil }
        var bytes: UInt64 = 0
        for name in pristine.names {
            guard let info = try? POSIX.lstat(pristine.folder.appendingPath(name)) else { return nil }
            bytes += UInt64(max(info.st_size, 0))
        }
        guard let available = try? POSIX.availableSpace(at: AtomicFile.parentFolder(of: folder)),
              available >= 2 * bytes + prefetchSpareBytes else { return nil }
        var statements: [KeyedPrefetch.Statement] = []
        for members in streamedStatements(session) {
            guard let first = members.first, first.rule.whereClause == nil, schema.tables[first.table]?.kind == .ordinary else { continue }
            let keyed = members.filter { rule in
                switch rule.plan {
                case .pseudonym, .fake: true
                default: false
                }
            }
            if !keyed.isEmpty { statements.append(KeyedPrefetch.Statement(table: first.table, rules: keyed)) }
        }
        guard !statements.isEmpty, let hmac = try? key.hmac.duplicate() else { return nil }
        let prefetch = KeyedPrefetch(
            statements: statements, ruleCount: session.rules.count, hmac: hmac,
            source: pristine.folder, names: pristine.names, storeName: storeName, folder: folder)
        session.attach(prefetch)
        return prefetch
    }

    /// The UPDATE statements: the streamed ones (``streamedStatements(_:)``),
    /// then the mapped rules, a UNIQUE column in two statements.
    private static func runUpdates(_ session: AnonymizationSession, database: Database, display: String) throws(FixtureKitError) {
        func execute(_ sql: String, _ rule: BoundRule?) throws(FixtureKitError) {
            do { try database.execute(sql) } catch {
                if let failure = session.failure {
                    throw FixtureKitError(what: "anonymize", path: display, why: failure)
                }
                let why = rule.map { "\($0.name): \(error.description)" } ?? error.description
                throw FixtureKitError(what: "anonymize", path: display, why: why)
            }
        }
        for members in streamedStatements(session) {
            guard let first = members.first else { continue }
            let assignments = members.map { rule -> String in
                var call = "fixturekit_anonymize(\(rule.index), \(quotedIdentifier(rule.column))"
                if case .shiftDate(let group?, _, _, _) = rule.rule.strategy { call += ", \(quotedIdentifier(group))" }
                return "\(quotedIdentifier(rule.column)) = \(call))"
            }.joined(separator: ", ")
            let filter = first.rule.whereClause.map { " WHERE (\($0))" } ?? ""
            try execute("UPDATE \(quotedIdentifier(first.table)) SET \(assignments)\(filter)", members.count == 1 ? first : nil)
            session.finished(members)
        }
        for rule in session.rules where rule.mapTable != nil {
            let column = quotedIdentifier(rule.column)
            let filter = rule.rule.whereClause.map { " AND (\($0))" } ?? ""
            let pending = rule.columnUnique ? 1 : 0
            try execute("UPDATE \(quotedIdentifier(rule.table)) SET \(column) = fixturekit_mapped(\(rule.index), \(column), \(pending)) WHERE \(column) IS NOT NULL\(filter)", rule)
            if rule.columnUnique {
                let prefixLength = AnonymizationSession.pendingPrefix.count
                try execute("UPDATE \(quotedIdentifier(rule.table)) SET \(column) = fixturekit_unpend(\(rule.index), \(column)) WHERE typeof(\(column)) = 'text' AND substr(\(column), 1, \(prefixLength)) = char(1) || 'fixturekit:'", rule)
            }
        }
    }

    /// Rebuilds every FTS index from the text it indexes, so that no token of an
    /// old value is left in its shadow tables.
    private static func rebuildFullText(_ schema: AnonymizationSchema, database: Database, display: String) throws(FixtureKitError) -> [String] {
        var rebuilt: [String] = []
        for table in schema.tables.values.sorted(by: { AnonymizationRules.bytewise($0.name, $1.name) }) {
            guard case .fullText(let ownContent) = table.kind else { continue }
            let name = quotedIdentifier(table.name)
            do {
                try database.execute("INSERT INTO \(name)(\(name)) VALUES ('rebuild')")
            } catch {
                throw FixtureKitError(
                    what: "anonymize", path: display,
                    why: "FTS table \(table.name) cannot be rebuilt from the anonymized text\(ownContent ? "" : " (it keeps no text of its own: contentless, or its content table is gone)"): \(error.description)",
                    hint: "a contentless FTS index (content='') keeps tokens of the old values that only dropping it removes")
            }
            rebuilt.append(table.name)
        }
        return rebuilt
    }

    /// `sqlite_stat4` and `sqlite_stat3` keep samples of index keys, old values
    /// included: they are emptied, and ANALYZE recomputes what the store had.
    private static func refreshStatistics(_ schema: AnonymizationSchema, database: Database, display: String) throws(FixtureKitError) {
        do {
            for table in ["sqlite_stat3", "sqlite_stat4"] where schema.internalTables.contains(table) {
                try database.execute("DELETE FROM \(table)")
            }
            if schema.internalTables.contains("sqlite_stat1") { try database.execute("ANALYZE") }
        } catch {
            throw FixtureKitError(what: "anonymize", path: display, why: error.description)
        }
    }

    /// Rows violating a foreign key, per table.
    private static func foreignKeyViolations(_ database: Database, display: String) throws(FixtureKitError) -> [String: Int] {
        do {
            guard try database.scalar("SELECT count(*) FROM pragma_table_list AS t, pragma_foreign_key_list(t.name) WHERE t.schema = 'main'")?.integer ?? 0 > 0 else { return [:] }
            var counts: [String: Int] = [:]
            for row in try database.rows("PRAGMA foreign_key_check") {
                if let table = row[0].text { counts[table, default: 0] += 1 }
            }
            return counts
        } catch {
            throw FixtureKitError(what: "anonymize", path: display, why: error.description)
        }
    }
}

extension AnonymizationSession {
    /// The candidate pseudonym of `original` at `attempt`, as a value to store.
    func candidate(_ rule: BoundRule, _ original: SQLiteValue, attempt: UInt32) -> SQLiteValue? {
        func convert(_ input: Input) -> SQLiteValue? {
            switch transform(rule, input, group: nil, attempt: attempt) {
            case .failure(let problem):
                if failure == nil { failure = problem.description }
                return nil
            case .success(.text): return .text(String(decoding: outputBytes, as: UTF8.self))
            case .success(.blob): return .blob(outputBytes)
            case .success(.integer(let value)): return .integer(value)
            case .success(.real(let value)): return .real(value)
            case .success(.null): return .null
            case .success(.unchanged): return original
            }
        }
        switch original {
        case .null: return .null
        case .integer(let value): return convert(.integer(value))
        case .real(let value): return convert(.real(value))
        case .text(let text):
            var text = text
            return text.withUTF8 { convert(.text($0)) }
        case .blob(let bytes): return bytes.withUnsafeBufferPointer { convert(.blob($0)) }
        }
    }
}
