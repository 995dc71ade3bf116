import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

extension AnonymizationEngine {
    // MARK: - Rewriting

    /// Fills the map of each mapped domain: every distinct fold (see
    /// ``TextShape``) of the originals of its columns, in their sort order, gets
    /// the first attempt (0, 1, 2...) whose output's fold no earlier fold took
    /// and no row left alone holds. Values of one fold share their attempt, so
    /// that outputs stay equal and unequal under `NOCASE` and `trim()` as they were.
    static func buildMaps(_ session: AnonymizationSession, database: Database, display: String) throws(FixtureKitError) {
        let tables = Dictionary(grouping: session.rules.filter { $0.mapTable != nil }, by: { $0.mapTable! })
        if session.rules.contains(where: { $0.mapTable != nil && $0.columnUnique }) {
            do { try database.execute("CREATE TEMP TABLE fixturekit_pending (id INTEGER PRIMARY KEY, value)") } catch {
                throw FixtureKitError(what: "anonymize", path: display, why: error.description, cause: error)
            }
        }
        for (table, members) in tables.sorted(by: { $0.key < $1.key }) {
            let map = "temp." + quotedIdentifier(table)
            do {
                try database.execute("CREATE TEMP TABLE \(quotedIdentifier(table)) (original UNIQUE, attempt INTEGER, canon UNIQUE)")
                for rule in members {
                    let column = quotedIdentifier(rule.column)
                    let source = quotedIdentifier(rule.table)
                    let filter = rule.rule.whereClause.map { " AND (\($0))" } ?? ""
                    try database.execute("INSERT OR IGNORE INTO \(map) (original) SELECT fixturekit_fold(\(column)) FROM \(source) WHERE \(column) IS NOT NULL AND length(\(column)) > 0\(filter)")
                    if rule.columnUnique, let whereClause = rule.rule.whereClause {
                        // Values the rule leaves alone stay in the column: no output may equal one.
                        try database.execute("INSERT OR IGNORE INTO \(map) (original, canon) SELECT NULL, fixturekit_fold(\(column)) FROM \(source) WHERE \(column) IS NOT NULL AND NOT (\(whereClause))")
                    }
                }
            } catch {
                throw FixtureKitError(what: "anonymize", path: display, why: error.description, cause: error)
            }
            let rule = members[0]
            let select: Statement
            let assign: Statement
            do {
                select = try database.prepare("SELECT rowid, original FROM \(map) WHERE original IS NOT NULL AND (?1 IS NULL OR original > ?1) ORDER BY original LIMIT 1000")
                assign = try database.prepare("UPDATE \(map) SET attempt = ?1, canon = ?2 WHERE rowid = ?3")
            } catch {
                throw FixtureKitError(what: "anonymize", path: display, why: error.description, cause: error)
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
                    throw FixtureKitError(what: "anonymize", path: display, why: error.description, cause: error)
                }
                guard let final = batch.last else { break }
                last = final[1]
                for row in batch {
                    try assignAttempt(session, rule: rule, rowID: row[0], original: row[1], assign: assign, display: display)
                }
            }
        }
    }

    /// Gives a fold of a map the first attempt whose output's fold is free.
    static func assignAttempt(_ session: AnonymizationSession, rule: BoundRule, rowID: SQLiteValue, original: SQLiteValue, assign: Statement, display: String) throws(FixtureKitError) {
        var attempt: UInt32 = 0
        while attempt < AnonymizationSession.maximumAttempts {
            let candidate = session.candidate(rule, original, attempt: attempt)
            guard let candidate else {
                throw FixtureKitError(what: "anonymize", path: display, why: "\(rule.name): \(session.failure ?? "no pseudonym")")
            }
            var canon = candidate
            if case .text(var text) = candidate { canon = text.withUTF8 { AnonymizationSession.fold(.text($0)) } }
            do {
                try assign.bind([.integer(Int64(attempt)), canon, rowID])
                _ = try assign.step()
                return
            } catch {
                guard error.isConstraintViolation else {
                    throw FixtureKitError(what: "anonymize", path: display, why: error.description, cause: error)
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
    static func streamedStatements(_ rules: [BoundRule]) -> [[BoundRule]] {
        let streamed = rules.filter { $0.mapTable == nil }
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
    static func startPrefetch(_ rules: [BoundRule], schema: AnonymizationSchema, key: AnonymizationKey, storeName: String, pristine: (folder: String, names: [String])?, folder: String) -> KeyedPrefetch? {
        // The fast path that takes the outputs works on UTF-8 stores.
        guard let pristine, !schema.isUTF16 else { return nil }
        var bytes: UInt64 = 0
        for name in pristine.names {
            guard let info = try? POSIX.lstat(pristine.folder.appendingPath(name)) else { return nil }
            bytes += UInt64(max(info.size, 0))
        }
        guard let available = try? POSIX.availableSpace(at: AtomicFile.parentFolder(of: folder)),
              available >= 2 * bytes + prefetchSpareBytes else { return nil }
        var statements: [KeyedPrefetch.Statement] = []
        for members in streamedStatements(rules) {
            guard let first = members.first, first.rule.whereClause == nil, schema.tables[first.table]?.kind == .ordinary else { continue }
            let keyed = members.filter(\.isKeyedText)
            if !keyed.isEmpty { statements.append(KeyedPrefetch.Statement(table: first.table, rules: keyed)) }
        }
        guard !statements.isEmpty, let hmac = try? key.hmac.duplicate() else { return nil }
        return KeyedPrefetch(
            statements: statements, ruleCount: rules.count, hmac: hmac,
            source: pristine.folder, names: pristine.names, storeName: storeName, folder: folder)
    }

    /// The UPDATE statements: the streamed ones (``streamedStatements(_:)``),
    /// then the mapped rules, a UNIQUE column in two statements.
    static func runUpdates(_ session: AnonymizationSession, database: Database, display: String) throws(FixtureKitError) {
        func execute(_ sql: String, _ rules: [BoundRule]) throws(FixtureKitError) {
            do { try database.execute(sql) } catch {
                if let failure = session.failure {
                    throw FixtureKitError(what: "anonymize", path: display, why: failure)
                }
                if error.isUniqueViolation, let unequal = uniqueViolation(rules, error: error) {
                    throw FixtureKitError(what: "anonymize", path: display, why: unequal.why, hint: unequal.hint)
                }
                let why = rules.count == 1 ? "\(rules[0].name): \(error.description)" : error.description
                throw FixtureKitError(what: "anonymize", path: display, why: why)
            }
        }
        for members in streamedStatements(session.rules) {
            guard let first = members.first else { continue }
            let assignments = members.map { rule -> String in
                var call = "fixturekit_anonymize(\(rule.index), \(quotedIdentifier(rule.column))"
                if case .shiftDate(let group?, _, _, _) = rule.rule.strategy { call += ", \(quotedIdentifier(group))" }
                return "\(quotedIdentifier(rule.column)) = \(call))"
            }.joined(separator: ", ")
            let filter = first.rule.whereClause.map { " WHERE (\($0))" } ?? ""
            try execute("UPDATE \(quotedIdentifier(first.table)) SET \(assignments)\(filter)", members)
            session.finished(members)
        }
        for rule in session.rules where rule.mapTable != nil {
            let column = quotedIdentifier(rule.column)
            let filter = rule.rule.whereClause.map { " AND (\($0))" } ?? ""
            let pending = rule.columnUnique ? 1 : 0
            try execute("UPDATE \(quotedIdentifier(rule.table)) SET \(column) = fixturekit_mapped(\(rule.index), \(column), \(pending)) WHERE \(column) IS NOT NULL\(filter)", [rule])
            if rule.columnUnique {
                let prefixLength = AnonymizationSession.pendingPrefix.count
                try execute("UPDATE \(quotedIdentifier(rule.table)) SET \(column) = fixturekit_unpend(\(rule.index), \(column)) WHERE typeof(\(column)) = 'text' AND substr(\(column), 1, \(prefixLength)) = char(1) || 'fixturekit:'", [rule])
            }
        }
    }

}

extension AnonymizationEngine {
    /// What to say when the rewrite of `rules` made two rows' keys equal under
    /// a UNIQUE constraint or PRIMARY KEY (SQLite's message names its columns or
    /// index): a `mask` or `value` among them on a constraint of several columns,
    /// which ``checkStructure(_:column:of:name:fail:)`` cannot refuse beforehand
    /// (the other columns may keep the rows apart); `nil` for other rules.
    static func uniqueViolation(_ rules: [BoundRule], error: SQLiteError) -> (why: String, hint: String)? {
        let collapsing = rules.filter { rule in
            switch rule.rule.strategy {
            case .mask, .value: true
            default: false
            }
        }
        guard !collapsing.isEmpty else { return nil }
        let names = collapsing.map { "\($0.name) (\($0.rule.strategy.name))" }.joined(separator: ", ")
        return ("\(names): gave two rows one key, which SQLite refused: \(error.message); nothing was written",
                "mask and value give different values one output: use pseudonym, which keeps them distinct, or null")
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
