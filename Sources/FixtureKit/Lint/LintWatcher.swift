import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// Watches the SQL stages of one fixture's copy as they run, statement by
/// statement, with SQLite's own instruments: what the authorizer saw while a
/// statement compiled (``StatementActions``: the tables it drops, alters,
/// reads and writes, the indexes it creates, the pragmas it sets), the error
/// SQLite gives, and the schema, `PRAGMA table_xinfo`, `foreign_key_list` and
/// `sqlite_sequence` before and after. Never the statement's text.
///
/// What it sees is a list of ``LintObservation``s for this fixture; the lint
/// gathers them across the fixtures (``LintReport``).
final class LintWatcher: StatementWatcher {
    /// A table as it was just before a statement dropped or altered it.
    struct TableBefore {
        var place: StagePlace
        /// Its columns (hidden ones left out), as declared.
        var columns: [String]
        /// How many rows hold a value in each column, in the order of ``columns``
        /// (0 for a column not counted, see ``LintWatcher/snapshot(_:place:skipping:countingRows:)``).
        var held: [Int]
        /// Its rows (0 when not counted).
        var rows: Int
        /// Child rows that refer to it: `(child, column, count)`.
        var children: [(table: String, column: String, count: Int)]
        /// Whether the connection enforced foreign keys when it was dropped.
        var foreignKeysOn: Bool
        /// Whether it takes part in a foreign key (has one, or is referred to).
        var related: Bool
    }

    let version: String
    let configuration: CorpusConfiguration
    /// The stage's connection: opened again after a program stage closed it.
    private let connection: () -> Database?
    /// Whether a statement failed (and a rule said why).
    var sawFailure = false
    /// The statement that needs a collation or function the app registers (X001), and which.
    var unreplayable: (place: StagePlace, name: UnregisteredName)?
    /// What this fixture's run showed.
    private(set) var observations: [LintObservation] = []
    /// Every place that ran on this fixture: a finding elsewhere counts 0 here.
    private(set) var ran: Set<StagePlace> = []

    // MARK: One stage's state

    /// `sqlite_sequence` when the stage started, by table (by `identifierKey`).
    var sequenceAtStart: [String: Int] = [:]
    /// Where each table's sequence last fell below its start.
    var sequenceFell: [String: StagePlace] = [:]
    /// The tables whose sequence is below its start after the last statement.
    var sequenceBelow: Set<String> = []
    /// The tables dropped by the stage, as they were, by name (by `identifierKey`).
    private var dropped: [String: TableBefore] = [:]
    /// The tables altered by the statement running, as they were (their values
    /// counted only when the statement can drop a column).
    private var altered: [String: TableBefore] = [:]
    /// The columns the stage read, by table (by `identifierKey`).
    private var read: [String: Set<String>] = [:]
    /// Where a statement read a table to write another (a rebuild's copy), by the table read.
    private var copied: [String: StagePlace] = [:]
    /// The statement count at which `PRAGMA foreign_key_check` last ran, and the count now.
    private var checkedForeignKeys: Int?
    private var statements = 0
    /// The statement count at each drop, by table.
    private var droppedAt: [String: Int] = [:]
    /// The rows of the store that violate a foreign key at the stage's end, when
    /// they were counted (``storeViolations()``): `migrate`'s check of the
    /// path's last stage takes this count rather than count again.
    private(set) var violationsAtEnd: Int?
    /// Whether the store's violations are to be counted at the stage's end in
    /// any case: `migrate` sets it for a path's last stage when it checks the
    /// path, which counts them then (so the count costs nothing more), and a
    /// count of 0 spares C001 its look at each table.
    var countsStoreAtEnd = false
    /// What the stage did to tables and their views, triggers and indexes (C001, L001, A001).
    var stageSchema = StageSchema()

    /// - Parameter connection: the connection the stages run on.
    init(version: String, configuration: CorpusConfiguration, connection: @escaping () -> Database?) {
        self.version = version
        self.configuration = configuration
        self.connection = connection
    }

    /// The connection the stage runs on: set by each entry point (the statement's
    /// own connection, or the copy's between stages) before anything reads it.
    private(set) var database: Database!

    /// Runs `stage` on `copy` under the watcher: what the stage's statements show,
    /// the PRAGMAs SQLite ignored in it, and, when it fails before a statement ran
    /// (it does not compile, its program fails), that it fails. The stage's failure, if any.
    func run(_ stage: CorpusConfiguration.Stage, on copy: MigrationCopy, configuration: CorpusConfiguration, log: inout [String]) -> StageRunner.Failure? {
        let file = stage.sql ?? stage.folder
        beginStage()
        let failed = sawFailure
        let failure = copy.run(stage, configuration: configuration, log: &log)
        for ignored in copy.stages.ignored {
            observe(.ignoredPragma, ignored.file.map { StagePlace(file: $0, line: ignored.line ?? 0) }, ignored.message)
        }
        endStage(passed: failure == nil)
        if let failure, sawFailure == failed {
            observe(.stageFails, file.map { StagePlace(file: $0, line: 0) }, "the stage \(stage.from) -> \(stage.to) fails: \(failure.message.split(separator: "\n").first ?? "")")
        }
        return failure
    }

    /// A stage is about to run.
    func beginStage() {
        database = connection()
        sequenceAtStart = database.map { _ in sequence() ?? [:] } ?? [:]
        sequenceFell = [:]
        sequenceBelow = []
        dropped = [:]
        read = [:]
        copied = [:]
        checkedForeignKeys = nil
        statements = 0
        droppedAt = [:]
        violationsAtEnd = nil
        stageSchema = StageSchema()
    }

    // MARK: - StatementWatcher

    func willRun(_ statement: ScriptStatement, file: String, line: Int) {
        database = statement.statement.database
        let place = StagePlace(file: file, line: line)
        ran.insert(place)
        checkDoubleQuotes(statement, at: place)
        statements += 1
        let actions = statement.actions
        for table in actions.drops {
            // The rules that read these counts at the stage's end (rebuilt, gone)
            // never ask for a column the stage read from the table already, nor
            // for the rows of a table it copied or that the configuration drops.
            let key = table.identifierKey
            let rows = copied[key] == nil && !declaresDrop(table, nil)
            if let before = snapshot(table, place: place, skipping: read[key] ?? [], countingRows: rows) { dropped[key] = before }
            droppedAt[key] = statements
        }
        altered = [:]
        let counting = Self.mayDropColumn(statement.statement.sql)
        for table in actions.alters {
            if let before = counting ? snapshot(table, place: place) : columnsBefore(table, place: place) { altered[table.identifierKey] = before }
        }
        for (table, columns) in actions.reads {
            read[table.identifierKey, default: []].formUnion(columns.map { $0.identifierKey })
            let writes = Set((actions.inserts + actions.updates).map { $0.identifierKey })
            if !writes.isEmpty, !writes.contains(table.identifierKey), copied[table.identifierKey] == nil { copied[table.identifierKey] = place }
        }
        if actions.checksForeignKeys { checkedForeignKeys = statements }
        watchSchema(statement, at: place)
    }

    func didRun(_ statement: ScriptStatement, file: String, line: Int, error: SQLiteError?) {
        database = statement.statement.database
        let place = StagePlace(file: file, line: line)
        if let error {
            sawFailure = true
            if !notReplayable(error, at: place) { failed(statement, at: place, error) }
            return
        }
        noteRenames(statement, at: place)
        for table in statement.actions.drops {
            guard let before = dropped[table.identifierKey], before.foreignKeysOn else { continue }
            // With foreign keys on, the drop's implicit DELETE took the child rows with it (ON DELETE CASCADE or SET NULL).
            let count = before.children.reduce(0) { $0 + $1.count }
            if count > 0 { observe(.droppedParent, place, "DROP TABLE \(table) with foreign_keys on changes the rows of \(names(before.children)) that refer to it (ON DELETE actions)", count: count) }
        }
        for (table, before) in altered { droppedColumns(table, before, at: place) }
        checkFeatures(statement, at: place, altered: altered)
        altered = [:]
        trackSequence(at: place)
    }

    /// A stage ended; `passed` when it did not fail.
    func endStage(passed: Bool) {
        guard passed, let database = connection() else { return }
        self.database = database
        for (table, before) in dropped {
            if exists(table) { rebuilt(table, before) } else { gone(table, before) }
        }
        checkAddedForeignKeys()
        checkReferences()
        for (table, start) in sequenceAtStart where exists(table) {
            let now = sequence()?[table] ?? 0
            if now < start {
                let place = sequenceFell[table]
                observe(.sequence, place, "sqlite_sequence of \(table) goes back: new rows may take ids that rows had before (copy its sqlite_sequence row over)", detail: "from \(start) to \(now)", count: start - now)
            }
        }
    }
}

// MARK: - What the rules see

extension LintWatcher {
    /// A statement failed: the rule that says why, with what this fixture holds.
    private func failed(_ statement: ScriptStatement, at place: StagePlace, _ error: SQLiteError) {
        if explainsFailure(statement, at: place, error) { return }
        let probe = ConstraintProbe(database: database, configuration: configuration)
        if error.isUniqueViolation, let (table, columns) = ConstraintProbe.constraint(error.message) {
            let collations = indexCollations(statement, table: table, columns: columns) ?? columns.map { (try? database.collation(of: $0, in: table)) ?? "BINARY" }
            let found = probe.uniqueKeys(statement: statement, table: table, columns: columns, collations: collations)
            let under = collations.contains { $0.uppercased() != "BINARY" } ? " under COLLATE \(collations.joined(separator: ", "))" : ""
            observe(.uniqueDuplicates, place, "UNIQUE on \(table)(\(columns.joined(separator: ", ")))\(under) fails: keys held by more than one row",
                    detail: found.map { $0.shown.joined(separator: "; ") }, count: found?.count)
        } else if error.isNotNullViolation, let (table, columns) = ConstraintProbe.constraint(error.message) {
            observe(.notNull, place, "NOT NULL on \(table).\(columns[0]) fails: rows would hold NULL", count: probe.nullRows(statement: statement, table: table, column: columns[0]))
        } else if error.message.contains("Cannot add a NOT NULL column with default value NULL"), let table = statement.actions.alters.first {
            let rows = Int((try? database.scalar("SELECT count(*) FROM main.\(quotedIdentifier(table))"))??.integer ?? 0)
            observe(.notNull, place, "ADD COLUMN ... NOT NULL without a DEFAULT fails on \(table), which has rows (give it a DEFAULT)", count: rows)
        } else if error.isForeignKeyViolation, let table = statement.actions.drops.first, let before = dropped[table.identifierKey] {
            observe(.droppedParent, place, "DROP TABLE \(table) fails with foreign_keys on: rows of \(names(before.children)) refer to it", count: before.children.reduce(0) { $0 + $1.count })
        } else {
            observe(.stageFails, place, "fails: SQLite error \(error.code): \(error.message)")
        }
    }

    /// The columns an ALTER TABLE took away from `table` (a DROP COLUMN), with the values they held.
    private func droppedColumns(_ table: String, _ before: TableBefore, at place: StagePlace) {
        guard let after = columns(of: table), after.count < before.columns.count else { return }
        let kept = Set(after.map { $0.identifierKey })
        for (column, held) in zip(before.columns, before.held) where !kept.contains(column.identifierKey) && held > 0 {
            guard !declaresDrop(table, column) else { continue }
            observe(.undeclaredDrop, place, "DROP COLUMN \(table).\(column) drops values a fixture holds, and \"changes\" does not declare \"\(table).\(column)\": \"dropped\"", count: held)
        }
    }

    /// A dropped table that a table of the same name replaced by the stage's end: a rebuild.
    private func rebuilt(_ table: String, _ before: TableBefore) {
        let place = copied[table] ?? before.place
        if let now = columns(of: table) {
            let kept = Set(now.map { $0.identifierKey })
            // A column counts as read when the stage read it from the old table, under its name or another it gave the table on the way.
            let gone = Set(dropped.keys).union(read.keys.filter { !exists($0) })
            for (column, held) in zip(before.columns, before.held) where kept.contains(column.identifierKey) && held > 0 {
                let wasRead = gone.union([table]).contains { read[$0]?.contains(column.identifierKey) ?? false }
                if !wasRead {
                    observe(.forgottenColumn, place, "the rebuild of \(table) never reads \(table).\(column), which the new table keeps: its values are lost", count: held)
                }
            }
        }
        let related = before.related || (try? database.scalar("SELECT count(*) FROM pragma_foreign_key_list(?1)", [.text(table)]))??.integer ?? 0 > 0
        if related, (checkedForeignKeys ?? 0) <= (droppedAt[table] ?? 0) {
            observe(.rebuildWithoutCheck, place, "the rebuild of \(table), which takes part in foreign keys, is not followed by PRAGMA foreign_key_check", count: storeViolations() ?? 0)
        }
    }

    /// The rows of the store that violate a foreign key now, at the stage's end,
    /// counted as `migrate`'s check counts them, once per stage end.
    func storeViolations() -> Int? {
        if violationsAtEnd == nil {
            violationsAtEnd = (try? SchemaSnapshot(database: database)).flatMap { try? StoreContents.countForeignKeyViolations(database, schema: $0) }
        }
        return violationsAtEnd
    }

    /// A dropped table that is gone at the stage's end.
    private func gone(_ table: String, _ before: TableBefore) {
        let children = before.children.reduce(0) { $0 + $1.count }
        if !before.foreignKeysOn, children > 0 {
            observe(.droppedParent, before.place, "DROP TABLE \(table) leaves the rows of \(names(before.children)) that refer to it orphans", count: children)
        }
        guard before.rows > 0, copied[table] == nil, !declaresDrop(table, nil) else { return }
        observe(.undeclaredDrop, before.place, "DROP TABLE \(table) drops rows a fixture holds, and neither \"counts\" nor \"changes\" declares \"\(table)\" dropped", count: before.rows)
    }

    /// Whether the configuration declares the table (or its column) dropped.
    private func declaresDrop(_ table: String, _ column: String?) -> Bool {
        let declared = configuration.declaredChanges
        if [.dropped, .excluded].contains(declared[table.identifierKey]) { return true }
        if let rule = configuration.counts?.value(forName: table), column == nil, rule != .preserved { return true }
        guard let column else { return false }
        return configuration.changes?.value(forName: "\(table).\(column)") != nil
    }

    /// `notes.folder_id (3 rows)`.
    private func names(_ children: [(table: String, column: String, count: Int)]) -> String {
        children.filter { $0.count > 0 }.map { "\($0.table).\($0.column)" }.joined(separator: ", ")
    }

    func observe(_ rule: LintRule, _ place: StagePlace?, _ subject: String, detail: String? = nil, count: Int? = nil) {
        observations.append(LintObservation(rule: rule, file: place?.file, line: place?.line, subject: subject, detail: detail, count: count))
    }
}
