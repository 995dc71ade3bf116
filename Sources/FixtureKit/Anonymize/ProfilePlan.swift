import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// What the data profile measures, and where each side's values come from.
///
/// Measured: every column a rule rewrites, and in their tables every column a
/// UNIQUE constraint or an index covers, under `BINARY` and the collations its
/// declaration and its indexes use; every index of those tables on several
/// columns or on expressions, under its own terms. A column a streamed rule
/// without `where` rewrites is fed by the rule's own calls (every row's value
/// and output, at no extra read); the others are read by one query per table
/// before and after the rules run (`fixturekit_profile`).
final class ProfilePlan {
    struct Target {
        var table: String
        var column: String
        /// The rule that rewrites it; `nil` for a column only indexed.
        var rule: BoundRule?
        /// The tallies of its values before the rules (a column no rule rewrites
        /// has none: nothing writes it) and after them.
        var before: Int?
        var after: Int
        /// Fed by its rule's calls rather than by a query.
        var streamed: Bool
    }

    let targets: [Target]
    let indexes: [(table: String, index: AnonymizationSchema.Index)]
    let tallies: UnsafeMutableBufferPointer<ProfileTally>
    var indexesBefore: [String: Manifest.IndexCounts] = [:]
    var indexesAfter: [String: Manifest.IndexCounts] = [:]

    /// Where full chunks of hashes wait to be counted (see ``SpillFile``).
    let spill: SpillFile?

    /// - Parameter spillFolder: where the spill file is created (and at once
    ///   unlinked); without one, or where it cannot be created, hashes stay in memory.
    init(rules: [BoundRule], schema: AnonymizationSchema, spillFolder: String? = nil) {
        let spill = spillFolder.flatMap { try? SpillFile(folder: $0, prefix: ".fixturekit-profile") }
        self.spill = spill
        var targets: [Target] = []
        var tallies: [ProfileTally] = []
        var indexes: [(table: String, index: AnonymizationSchema.Index)] = []
        let touched = Set(rules.map(\.table))
        for tableName in touched.sorted(by: AnonymizationRules.bytewise) {
            guard let table = schema.tables[tableName] else { continue }
            for column in table.columns {
                let rule = rules.first { $0.table == tableName && $0.column == column.name }
                let covering = table.indexes.filter { $0.covers(column.name) }
                // The rowid no rule rewrites is what it was: nothing to count.
                guard rule != nil || ((!covering.isEmpty || column.unique) && !column.isRowid) else { continue }
                var comparisons: [ProfileComparison] = [.binary]
                let key = column.name.identifierKey
                let collations = [column.collation] + covering.flatMap { index in
                    index.keys.filter { $0.column.map(\.identifierKey) == key }.map(\.collation)
                }
                for comparison in [ProfileComparison.nocase, .rtrim] where collations.contains(comparison.rawValue) {
                    comparisons.append(comparison)
                }
                let streamed = rule.map { $0.mapTable == nil && $0.rule.whereClause == nil } ?? false
                targets.append(Target(table: tableName, column: column.name, rule: rule, before: rule == nil ? nil : tallies.count, after: tallies.count + (rule == nil ? 0 : 1), streamed: streamed))
                // A column no rule rewrites is counted once, after the rules: nothing writes it.
                if rule != nil { tallies.append(ProfileTally(comparisons: comparisons, spill: spill)) }
                tallies.append(ProfileTally(comparisons: comparisons, spill: spill))
                if let rule, streamed { rule.profileSlots = (tallies.count - 2, tallies.count - 1) }
            }
            for index in table.indexes where index.keys.count > 1 || index.hasExpression {
                indexes.append((tableName, index))
            }
        }
        self.targets = targets
        self.indexes = indexes
        // As many as there are, none when no column is profiled (every
        // column kept, no index): the memory holds at least one.
        let memory = UnsafeMutablePointer<ProfileTally>.allocate(capacity: max(1, tallies.count))
        self.tallies = UnsafeMutableBufferPointer(start: memory, count: tallies.count)
        _ = self.tallies.initialize(from: tallies)
    }

    deinit {
        for index in tallies.indices { tallies[index].release() }
        _ = tallies.deinitialize()
        tallies.baseAddress?.deallocate()
    }

    /// Reads the values of the columns no rule feeds, `before` or after the
    /// rules, and the indexes' keys.
    func measure(before: Bool, database: Database) throws(SQLiteError) {
        let queried = targets.compactMap { target -> (table: String, slot: Int, column: String)? in
            guard !target.streamed else { return nil }
            if before { return target.before.map { (target.table, $0, target.column) } }
            return (target.table, target.after, target.column)
        }
        for table in Set(queried.map(\.table)).sorted(by: AnonymizationRules.bytewise) {
            let calls = queried.filter { $0.table == table }.map { "fixturekit_profile(\($0.slot), \(quotedIdentifier($0.column)))" }
            _ = try database.scalar("SELECT max(\(calls.joined(separator: " + "))) FROM main.\(quotedIdentifier(table))")
        }
        for (table, index) in indexes {
            // An index of columns no rule rewrites is counted once, after the rules.
            if before && !index.columns.contains(where: { column in targets.contains { $0.rule != nil && $0.table == table && $0.column.identifierKey == column.identifierKey } }) { continue }
            guard let counts = try Self.counts(of: index, in: table, database: database) else { continue }
            if before { indexesBefore[index.name] = counts } else { indexesAfter[index.name] = counts }
        }
    }

    /// An index's rows, distinct keys and duplicate groups, as SQLite orders
    /// and compares its keys (its terms, collations and condition); `nil` when
    /// its terms could not be found.
    static func counts(of index: AnonymizationSchema.Index, in table: String, database: Database) throws(SQLiteError) -> Manifest.IndexCounts? {
        guard let ordering = index.ordering else { return nil }
        let condition = index.condition.map { " WHERE \($0)" } ?? ""
        let row = try database.rows("""
            SELECT count(*), coalesce(sum(n), 0), coalesce(sum(n > 1), 0) FROM (
              SELECT count(*) AS n FROM (SELECT rank() OVER (ORDER BY \(ordering)) AS r FROM main.\(quotedIdentifier(table))\(condition)) GROUP BY r)
            """).first ?? []
        guard row.count == 3 else { return nil }
        return Manifest.IndexCounts(rows: Int(row[1].integer ?? 0), distinct: Int(row[0].integer ?? 0), duplicateGroups: Int(row[2].integer ?? 0))
    }

    /// `fixturekit_profile(slot, value)`: adds a value to a tally; 0.
    func feed(_ arguments: DatabaseFunction.Arguments, _ result: DatabaseFunction.Result) {
        let slot = Int(arguments[0].int64)
        guard arguments.count == 2, tallies.indices.contains(slot) else { return result.setError("fixturekit_profile: wrong arguments") }
        Self.add(arguments[1], to: tallies.baseAddress! + slot)
        result.setInteger(0)
    }

    /// Adds an SQLite value to a tally.
    @inline(__always)
    static func add(_ value: SQLiteValueRef, to tally: UnsafeMutablePointer<ProfileTally>) {
        switch value.storageClass {
        case .null: tally.pointee.addNull()
        case .integer: tally.pointee.addInteger(value.int64)
        case .real: tally.pointee.addReal(value.double)
        case .text: tally.pointee.addText(value.textBytes)
        case .blob: tally.pointee.addBlob(value.blobBytes)
        }
    }
}
