import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// L001: the views, triggers and indexes of a table that a stage rebuilds or
/// renames, as SQLite sees them before the stage's first DROP or ALTER TABLE
/// and at its end: the tables each view and trigger reaches when SQLite compiles
/// it (the authorizer, ``Database/references(compiling:)``: a view by `SELECT *
/// FROM` it, a trigger by the INSERT, UPDATE and DELETE that fire it, never run),
/// whether it still compiles, and the indexes and triggers a DROP TABLE takes with it.
///
/// `legacy_alter_table` changes what a RENAME does to them: off, SQLite rewrites
/// every reference to the renamed table (and refuses a rename while a view or
/// trigger names a table that is not there); on (Android since API level 30),
/// it leaves them naming the old name. A stage that renames a table under a view
/// or trigger is run a second time on a fresh copy under the other setting
/// (``MigrationRunner/otherLegacyObservations(_:stage:legacy:cancellation:)``).
extension LintWatcher {
    /// The schema objects of the main schema at one moment.
    struct SchemaObjects {
        /// Each index, trigger and view by name (by `identifierKey`): its type, its table (by `identifierKey`).
        var objects: [String: (type: String, table: String)] = [:]
        /// The tables each view and trigger reaches, by name (by `identifierKey`).
        var references: [String: Set<String>] = [:]
        /// The views and triggers that do not compile, with SQLite's error.
        var broken: [String: String] = [:]

        var hasViewsOrTriggers: Bool { objects.values.contains { $0.type != "index" } }
    }

    /// What one stage did to tables and their schema objects, for C001, L001 and A001.
    struct StageSchema {
        /// Statements seen so far in the stage.
        var order = 0
        /// Where each table (by `identifierKey`) was first dropped or altered, and when.
        var touched: [String: (order: Int, place: StagePlace)] = [:]
        /// Where a statement read a table to write another: by the table read (by `identifierKey`).
        var copies: [String: (target: String, place: StagePlace)] = [:]
        /// Where rows were first copied into each table (by `identifierKey`).
        var copiedInto: [String: StagePlace] = [:]
        /// Tables renamed, old name to new (by `identifierKey`).
        var renamed: [String: String] = [:]
        /// Where each table that kept its name was first altered (ADD COLUMN, ...).
        var alteredAt: [String: StagePlace] = [:]
        /// The foreign key violations of each table when the stage first touched it, by foreign key.
        var foreignKeysBefore: [String: [String: Int]] = [:]
        /// The tables before an ALTER TABLE, to name what it renamed to.
        var tablesBeforeAlter: Set<String> = []
        /// The schema objects before the stage's first DROP or ALTER TABLE.
        var start: SchemaObjects?
        /// The connection's `legacy_alter_table` then.
        var legacy = false
        /// The indexes and triggers a DROP TABLE took with it: what, on which table at the start, dropped where.
        var carried: [(type: String, name: String, origin: String, dropped: String, place: StagePlace)] = []
        /// Whether a table was renamed (or a rename refused for a view or trigger).
        var renames = false
        /// The affinity of each declared type, as SQLite stores values under it.
        var affinities: [String: String] = [:]
    }

    /// When the stage renamed a table under a view or trigger: the `legacy_alter_table`
    /// it ran with, the one the second run turns over.
    var renamedUnderReferences: Bool? {
        guard stageSchema.renames, stageSchema.start?.hasViewsOrTriggers == true else { return nil }
        return stageSchema.legacy
    }

    /// Before a statement runs: what the rules of the schema need to know of it.
    func watchSchema(_ statement: ScriptStatement, at place: StagePlace) {
        let actions = statement.actions
        stageSchema.order += 1
        let changing = actions.drops + actions.alters
        if !changing.isEmpty, stageSchema.start == nil {
            stageSchema.start = schemaObjects()
            stageSchema.legacy = (try? database.setting(.legacyAlterTable)) ?? false
        }
        for table in changing {
            let name = table.identifierKey
            if stageSchema.touched[name] == nil { stageSchema.touched[name] = (stageSchema.order, place) }
            if stageSchema.foreignKeysBefore[name] == nil { stageSchema.foreignKeysBefore[name] = foreignKeyViolations(table) }
        }
        let writes = actions.inserts + actions.updates
        if let target = writes.first {
            for table in actions.reads.keys where !writes.contains(where: { $0.identifierKey == table.identifierKey }) {
                stageSchema.copies[table.identifierKey] = (target, place)
                if stageSchema.copiedInto[target.identifierKey] == nil { stageSchema.copiedInto[target.identifierKey] = place }
            }
        }
        for table in actions.drops {
            let carried = (try? database.rows(
                "SELECT type, name FROM main.sqlite_schema WHERE tbl_name = ?1 COLLATE NOCASE AND type IN ('index', 'trigger') AND name NOT LIKE 'sqlite_autoindex_%'",
                [.text(table)])) ?? []
            for row in carried {
                guard let type = row[0].text, let name = row[1].text else { continue }
                let origin = stageSchema.start?.objects[name.identifierKey]?.table ?? table.identifierKey
                stageSchema.carried.append((type, name, origin, table, place))
            }
            if let copy = stageSchema.copies[table.identifierKey] { compareAffinity(of: table, with: copy.target, at: copy.place) }
        }
        if !actions.alters.isEmpty { stageSchema.tablesBeforeAlter = tables() }
    }

    /// After a statement ran without error: the tables an ALTER TABLE renamed.
    func noteRenames(_ statement: ScriptStatement, at place: StagePlace) {
        for table in statement.actions.alters {
            let name = table.identifierKey
            if exists(table) {
                if stageSchema.alteredAt[name] == nil { stageSchema.alteredAt[name] = place }
            } else {
                stageSchema.renames = true
                if let new = tables().subtracting(stageSchema.tablesBeforeAlter).first { stageSchema.renamed[name] = new }
            }
        }
    }

    /// A rename SQLite refused because a view or trigger names a table that is not
    /// there (`error in view v: no such table: main.users`, with `legacy_alter_table` off).
    func refusedRename(_ statement: ScriptStatement, at place: StagePlace, _ error: SQLiteError) -> Bool {
        guard let table = statement.actions.alters.first, error.message.hasPrefix("error in ") else { return false }
        stageSchema.renames = true
        let legacy = (try? database.setting(.legacyAlterTable)) ?? false
        observe(.staleReference, place, "ALTER TABLE \(table) fails: \(error.message) (legacy_alter_table \(legacy ? "ON" : "OFF"))")
        return true
    }

    /// At the stage's end: the views and triggers it broke or left on an old
    /// table, and the indexes and triggers it dropped with a table it recreated.
    func checkReferences() {
        guard let start = stageSchema.start else { return }
        let end = schemaObjects()
        let setting = "legacy_alter_table \(stageSchema.legacy ? "ON" : "OFF")"
        for (name, message) in end.broken.sorted(by: { $0.key < $1.key }) where start.broken[name] == nil {
            guard let object = start.objects[name] else { continue }
            observe(.staleReference, firstTouched(start.references[name] ?? []), "\(object.type) \(name) no longer compiles: \(message) (\(setting))")
        }
        for (name, referred) in start.references.sorted(by: { $0.key < $1.key }) where end.broken[name] == nil {
            // A trigger's own table (its NEW and OLD) moves with it: the rename of that table is the next loop's.
            guard let object = start.objects[name], let moved = end.objects[name], let reached = end.references[name] else { continue }
            let (before, after) = (referred.subtracting([object.table]), reached.subtracting([moved.table]))
            let now = after.subtracting(before)
            for table in before.subtracting(after).sorted() where exists(table) && !now.isEmpty {
                observe(.staleReference, stageSchema.touched[table]?.place,
                        "\(object.type) \(name) refers to \(now.sorted().joined(separator: ", ")), no longer to \(table), which the stage created again: the RENAME rewrote it (\(setting))")
            }
        }
        for (name, object) in start.objects.sorted(by: { $0.key < $1.key }) where object.type != "view" {
            guard let now = end.objects[name], now.table != object.table, exists(object.table) else { continue }
            observe(.staleReference, stageSchema.touched[object.table]?.place, "\(object.type) \(name) is on \(now.table) now, no longer on \(object.table), which the stage created again")
        }
        for lost in stageSchema.carried where end.objects[lost.name.identifierKey] == nil && exists(lost.origin) {
            observe(.staleReference, lost.place, "\(lost.type) \(lost.name) of \(lost.origin) goes with DROP TABLE \(lost.dropped), and the stage does not create it again")
        }
    }

    /// The place of the earliest statement that dropped or altered one of `tables`.
    private func firstTouched(_ tables: Set<String>) -> StagePlace? {
        tables.compactMap { stageSchema.touched[$0] }.min { $0.order < $1.order }?.place
    }

    /// The tables of the main schema, by `identifierKey`.
    func tables() -> Set<String> {
        let rows = (try? database.rows("SELECT lower(name) FROM main.sqlite_schema WHERE type = 'table'")) ?? []
        return Set(rows.compactMap { $0.first?.text })
    }

    /// The indexes, triggers and views now, what each view and trigger reaches, and which do not compile.
    func schemaObjects() -> SchemaObjects {
        var found = SchemaObjects()
        let rows = (try? database.rows("SELECT type, name, tbl_name FROM main.sqlite_schema WHERE type IN ('index', 'trigger', 'view') AND name NOT LIKE 'sqlite_autoindex_%'")) ?? []
        var triggered: [String: [String]] = [:]
        for row in rows {
            guard let type = row[0].text, let name = row[1].text, let table = row[2].text else { continue }
            found.objects[name.identifierKey] = (type, table.identifierKey)
            if type == "view" {
                do { found.references.merge(try database.references(compiling: "SELECT * FROM main.\(quotedIdentifier(name))")) { $0.union($1) } } catch {
                    found.broken[name.identifierKey] = error.message
                }
            }
            if type == "trigger" { triggered[table, default: []].append(name) }
        }
        for (table, triggers) in triggered.sorted(by: { $0.key < $1.key }) {
            for sql in firing(table) {
                do { found.references.merge(try database.references(compiling: sql)) { $0.union($1) } } catch {
                    // A view without an INSTEAD OF trigger for this statement cannot be written: not a trigger's fault.
                    guard !error.message.hasPrefix("cannot modify") else { continue }
                    for (trigger, message) in brokenTriggers(triggers, firedBy: sql) { found.broken[trigger.identifierKey] = message }
                }
            }
        }
        return found
    }

    /// The statements that fire every trigger of `table`: an INSERT, an UPDATE of every column, a DELETE.
    private func firing(_ table: String) -> [String] {
        let target = "main.\(quotedIdentifier(table))"
        let columns = ((try? database.rows("SELECT name FROM pragma_table_xinfo(?1, 'main') WHERE hidden = 0", [.text(table)])) ?? []).compactMap { $0.first?.text }
        let update = columns.isEmpty ? [] : ["UPDATE \(target) SET \(columns.map { "\(quotedIdentifier($0)) = \(quotedIdentifier($0))" }.joined(separator: ", "))"]
        return ["INSERT INTO \(target) DEFAULT VALUES"] + update + ["DELETE FROM \(target)"]
    }

    /// Which of `triggers` (of one table) make `sql` fail to compile: each compiled
    /// alone, every other trigger (those it would fire in turn included) dropped
    /// inside a savepoint that is rolled back.
    private func brokenTriggers(_ triggers: [String], firedBy sql: String) -> [(String, String)] {
        let savepoint = "fixturekit_lint_triggers"
        let others = ((try? database.rows("SELECT name FROM main.sqlite_schema WHERE type = 'trigger'")) ?? []).compactMap { $0.first?.text }
        var broken: [(String, String)] = []
        for trigger in triggers {
            do {
                try database.inSavepoint(savepoint, end: .rollback) { () throws(SQLiteError) in
                    for other in others where other.identifierKey != trigger.identifierKey { try database.execute("DROP TRIGGER main.\(quotedIdentifier(other))") }
                    _ = try database.references(compiling: sql)
                }
            } catch {
                broken.append((trigger, error.message))
            }
        }
        return broken
    }
}
