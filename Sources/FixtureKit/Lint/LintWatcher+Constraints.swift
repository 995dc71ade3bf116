import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// C001, a CHECK or FOREIGN KEY added that rows violate, and A001, a column's
/// affinity changed (or made STRICT) by a rebuild, counted by SQLite itself:
/// a failed statement is run again inside a savepoint that is rolled back, with
/// the CHECKs off (`PRAGMA ignore_check_constraints`) and then each row updated
/// to itself with `OR IGNORE` (the rows SQLite skips are the ones that fail a
/// CHECK); the rows a STRICT table refuses are captured and inserted one by one;
/// foreign keys are counted by `PRAGMA foreign_key_check` of the table; stored
/// values are compared old row against new, by the data-preserved check's rule
/// (``LossyConversion``).
extension LintWatcher {
    /// A statement failed: whether C001, A001 or L001 says why (else the other rules
    /// do): an ADD COLUMN or INSERT that a CHECK refuses, an INSERT that a foreign key
    /// or a STRICT table refuses, a RENAME refused for a view or trigger. An UPDATE
    /// that breaks a constraint the table already had is a failure like any other (F001).
    func explainsFailure(_ statement: ScriptStatement, at place: StagePlace, _ error: SQLiteError) -> Bool {
        let actions = statement.actions
        if error.isCheckViolation, let table = actions.alters.first ?? actions.inserts.first {
            let adds = actions.alters.first != nil
            let subject = adds
                ? "ADD COLUMN to \(table) fails: rows violate its CHECK (SQLite checks it on ADD COLUMN since 3.37.0)"
                : "\(error.message) in \(table): rows the statement writes violate it"
            observe(.violatedConstraint, place, subject, count: checkViolations(statement, table: table) ?? 1)
            return true
        }
        if error.isForeignKeyViolation, actions.drops.isEmpty, let table = actions.inserts.first {
            observe(.violatedConstraint, place, "FOREIGN KEY of \(table) fails with foreign_keys on: rows the statement writes refer to no row", count: foreignKeyRefusals(statement, table: table) ?? 1)
            return true
        }
        if error.isDatatypeViolation, let table = actions.inserts.first {
            observe(.affinityChange, place, "STRICT table \(table) refuses rows the statement writes: their values cannot be stored in its columns' types",
                    detail: error.message, count: strictRefusals(statement, table: table) ?? 1)
            return true
        }
        return refusedRename(statement, at: place, error)
    }

    // MARK: - C001

    /// The rows of `table` that fail its CHECKs once `statement` wrote them: run again
    /// with the CHECKs off, then each row updated to itself, `OR IGNORE`.
    private func checkViolations(_ statement: ScriptStatement, table: String) -> Int? {
        guard let columns = columns(of: table) else { return nil }
        let target = "main.\(quotedIdentifier(table))"
        return inSavepoint { () throws(SQLiteError) -> Int in
            try database.execute("PRAGMA ignore_check_constraints = ON")
            defer { try? database.execute("PRAGMA ignore_check_constraints = OFF") }
            let again = try database.prepare(statement.statement.sql)
            while try again.step() {}
            try database.execute("PRAGMA ignore_check_constraints = OFF")
            let rows = Int(try database.scalar("SELECT count(*) FROM \(target)")?.integer ?? 0)
            try database.execute("UPDATE OR IGNORE \(target) SET \(columns.map { "\(quotedIdentifier($0)) = \(quotedIdentifier($0))" }.joined(separator: ", "))")
            return rows - database.changes
        }
    }

    /// The rows `statement` writes into `table` that refer to no row: run again
    /// with the foreign keys deferred, then `foreign_key_check` of the table.
    private func foreignKeyRefusals(_ statement: ScriptStatement, table: String) -> Int? {
        inSavepoint { () throws(SQLiteError) -> Int in
            let before = foreignKeyViolations(table).values.reduce(0, +)
            try database.execute("PRAGMA defer_foreign_keys = ON")
            defer { try? database.execute("PRAGMA defer_foreign_keys = OFF") }
            let again = try database.prepare(statement.statement.sql)
            while try again.step() {}
            return foreignKeyViolations(table).values.reduce(0, +) - before
        }
    }

    /// The rows of `table` that violate its foreign keys, as `PRAGMA foreign_key_check`
    /// reports them but counted by anti-joins (``StoreContents/foreignKeyViolations(_:of:schema:)``),
    /// by foreign key: `(folder_id) REFERENCES folders`.
    func foreignKeyViolations(_ table: String) -> [String: Int] {
        guard let schema = try? SchemaSnapshot(database: database),
              let described = schema.tables.first(where: { $0.name.identifierKey == table.identifierKey }) else { return [:] }
        return (try? StoreContents.foreignKeyViolations(database, of: described, schema: schema)) ?? [:]
    }

    /// At the stage's end: the foreign keys of the tables it rebuilt, altered or
    /// copied rows into that more rows violate than when it first touched them.
    func checkAddedForeignKeys() {
        let schema = stageSchema
        let candidates = Set(schema.foreignKeysBefore.keys).union(schema.renamed.values).union(schema.copiedInto.keys)
        // No row of the store violates a foreign key: none of these tables' rows does.
        if !candidates.isEmpty, (countsStoreAtEnd ? storeViolations() : violationsAtEnd) == 0 { return }
        for table in candidates.sorted() where exists(table) {
            let after = foreignKeyViolations(table)
            guard !after.isEmpty else { continue }
            // The names the table had on its way: a rebuild copies into `users_new`, renamed `users`.
            let origins = [table] + schema.renamed.filter { $0.value == table }.map(\.key)
            let place = origins.lazy.compactMap { schema.copiedInto[$0] }.first ?? schema.alteredAt[table] ?? schema.touched[table]?.place
            for (key, count) in after.sorted(by: { $0.key < $1.key }) {
                let added = count - (schema.foreignKeysBefore[table]?[key] ?? 0)
                guard added > 0 else { continue }
                observe(.violatedConstraint, place, "FOREIGN KEY \(key) of \(table) is violated by rows the stage leaves in it (PRAGMA foreign_key_check)", count: added)
            }
        }
    }

    // MARK: - A001

    /// The rows `statement` writes into the STRICT `table` that it refuses. SQLite
    /// checks a STRICT table's types before any trigger could capture the rows, so
    /// the statement is run again into a temporary table of the same name and
    /// columns, without types, which the statement's unqualified name reaches
    /// first; its rows are then inserted into `table` one by one.
    private func strictRefusals(_ statement: ScriptStatement, table: String) -> Int? {
        guard let columns = columns(of: table) else { return nil }
        return inSavepoint { () throws(SQLiteError) -> Int in
            let names = columns.map(quotedIdentifier).joined(separator: ", ")
            let captured = "temp.\(quotedIdentifier(table))"
            try database.execute("CREATE TEMP TABLE \(quotedIdentifier(table)) (\(names))")
            let again = try database.prepare(statement.statement.sql)
            while try again.step() {}
            let insert = try database.prepare("INSERT INTO main.\(quotedIdentifier(table)) (\(names)) SELECT \(names) FROM \(captured) WHERE rowid = ?1")
            var refused = 0
            for row in try database.rows("SELECT rowid FROM \(captured) ORDER BY rowid") {
                insert.reset()
                try insert.bind([row[0]])
                do throws(SQLiteError) { while try insert.step() {} } catch {
                    if error.isDatatypeViolation { refused += 1 }
                }
            }
            return refused
        }
    }

    /// Before `old` is dropped, its rows copied into `new`: the columns both have
    /// whose affinity the copy changed, with the rows whose stored value does not
    /// read back the same (``LossyConversion``: the storage class changed and the
    /// value with it), matched on `old`'s primary key (else the rowid).
    func compareAffinity(of old: String, with new: String, at place: StagePlace) {
        guard exists(new), let before = declaredTypes(old), let after = declaredTypes(new) else { return }
        let strict = isStrict(new) && !isStrict(old)
        let declared = Set((configuration.changes ?? [:]).keys.map { $0.identifierKey })
        var changed: [(column: String, from: String, to: String)] = []
        for (column, type) in before {
            guard let now = after.first(where: { $0.name.identifierKey == column.identifierKey })?.type,
                  !declared.contains("\(old).\(column)".identifierKey), !declared.contains("\(new).\(column)".identifierKey) else { continue }
            // A STRICT column of the same affinity refuses what it would change (the failure above): only a changed affinity changes values.
            if type.identifierKey != now.identifierKey && affinity(type) != affinity(now) { changed.append((column, type, now)) }
        }
        guard !changed.isEmpty else { return }
        let keys = ((try? database.rows("SELECT name FROM pragma_table_info(?1, 'main') WHERE pk > 0 ORDER BY pk", [.text(old)])) ?? []).compactMap { $0.first?.text }
        let matching = !keys.isEmpty && keys.allSatisfy { key in after.contains { $0.name.identifierKey == key.identifierKey } }
            ? keys.map { "o.\(quotedIdentifier($0)) = n.\(quotedIdentifier($0))" }.joined(separator: " AND ") : "o.rowid = n.rowid"
        // The data-preserved check's rule: '42' and 42 are one value, '01234' and 1234 are not.
        let differs = changed.map { "NOT \(LossyConversion.sameValue("o.\(quotedIdentifier($0.column))", "n.\(quotedIdentifier($0.column))"))" }
        let sql = "SELECT count(*) FROM main.\(quotedIdentifier(old)) AS o JOIN main.\(quotedIdentifier(new)) AS n ON \(matching) WHERE \(differs.joined(separator: " OR "))"
        guard let count = (try? database.scalar(sql))??.integer, count > 0 else { return }
        let columns = changed.map { "\(old).\($0.column) \($0.from.isEmpty ? "(no type)" : $0.from) -> \($0.to.isEmpty ? "(no type)" : $0.to)\(strict ? " STRICT" : "")" }
        observe(.affinityChange, place, "the copy of \(old) into \(new) changes the affinity of \(columns.joined(separator: ", ")): rows hold values that do not read back the same", count: Int(count))
    }

    /// `table`'s columns (hidden ones left out) with their declared types; `nil` when it does not exist.
    private func declaredTypes(_ table: String) -> [(name: String, type: String)]? {
        guard exists(table), let rows = try? database.rows("SELECT name, type FROM pragma_table_xinfo(?1, 'main') WHERE hidden = 0 ORDER BY cid", [.text(table)]) else { return nil }
        return rows.compactMap { row in row[0].text.map { ($0, row[1].text ?? "") } }
    }

    private func isStrict(_ table: String) -> Bool {
        ((try? database.scalar("SELECT strict FROM pragma_table_list(?1) WHERE schema = 'main'", [.text(table)])) ?? nil)?.integer == 1
    }

    /// How SQLite stores values in a column of `declared` type, as it does it: the
    /// storage classes it gives `'12'` and `12` in a temporary table of that type
    /// (`text,text` TEXT, `text,integer` BLOB, `integer,integer` NUMERIC or INTEGER,
    /// `real,real` REAL), created inside a savepoint that is rolled back.
    private func affinity(_ declared: String) -> String? {
        let key = declared.identifierKey
        if let known = stageSchema.affinities[key] { return known }
        let found = inSavepoint { () throws(SQLiteError) -> String in
            try database.execute("CREATE TEMP TABLE fixturekit_lint_affinity (v \(declared))")
            try database.execute("INSERT INTO temp.fixturekit_lint_affinity VALUES ('12'), (12)")
            return try database.scalar("SELECT group_concat(typeof(v)) FROM (SELECT v FROM temp.fixturekit_lint_affinity ORDER BY rowid)")?.text ?? ""
        }
        stageSchema.affinities[key] = found
        return found
    }

    /// `body` inside a savepoint that is rolled back; `nil` when it throws (``ConstraintProbe/probing(_:)``).
    private func inSavepoint<T>(_ body: () throws(SQLiteError) -> T) -> T? {
        ConstraintProbe(database: database, configuration: configuration).probing(body)
    }
}
