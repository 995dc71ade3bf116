import Foundation
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitArchiveIO
import FixtureKitModels

/// The rows of a source table paired with the rows of the same key after the
/// migration, with no quadratic path whatever the two stores' indexes: a join
/// on a key that has no index on its looked-up side makes SQLite scan that
/// table once per row (20,000 rows: 84 s; with an index: 0.03 s).
///
/// The source table is `s` (attached as ``PreservationCheck/schemaName``), the
/// migrated one `m`. Keys match as the source's column compares them: its
/// collation, and its affinity applied to the migrated value (`s.k = +m.k`).
/// Four ways, the first that holds:
/// - ``Method/rowid``: no key, the rowid pairs the rows (a lookup by rowid).
/// - ``Method/sameRowids``: one ordered pass over both tables by rowid finds
///   every source row's key at the same rowid after the migration, and no other
///   migrated row holds one of the source's keys. A stage that rewrites a table
///   with its rowids (SQLite's twelve steps of ALTER TABLE, an UPDATE, an added
///   column) leaves them so: the key join is then the rowid join, and costs two
///   sequential scans.
/// - ``Method/sourceIndex``: the source has an index that finds a key (its
///   INTEGER PRIMARY KEY, the PRIMARY KEY of a WITHOUT ROWID table, an index on
///   the key's columns with their collations): the migrated rows are scanned,
///   each source row found through it.
/// - ``Method/keyTable``: the source's keys and rowids are copied into a
///   temporary table of this connection, indexed (SQLite sorts them once): the
///   migrated rows are scanned, each key found there. The stores themselves are
///   never written.
///
/// Rows lost (source rows no migrated row matches) are counted without a
/// correlated scan: the rows matched, when the migrated key is unique by
/// construction; else the source's keys against the migrated keys, copied
/// and indexed the same way, read in key order.
struct RowPairing {
    enum Method: String {
        case rowid, sameRowids, sourceIndex, keyTable
    }

    let method: Method
    /// `FROM ... AS s ... AS m ...`: every pair of rows with the same key, once.
    let from: String
    /// Rows in that join, and those whose every compared column is the same value.
    let matched: Int
    let equalRows: Int

    private let database: Database
    private let source: String
    private let target: String
    private let key: [String]
    private let collations: [String]
    private let total: Int
    private let migratedUnique: Bool
    /// With ``Method/keyTable``: `s.rowid = k.fixturekit_location_0`, how a
    /// copied key finds its row.
    private let locationJoin: String
    /// With ``Method/keyTable``: the copy of the keys holds every column
    /// compared, and stands for the source's rows in ``from`` (as `s`).
    private var keysCoverRows = false
    /// With ``Method/keyTable``: the copy of the source's keys, made for this
    /// comparison in `temp`, or made ahead (``SourceKeys/Prebuilt``).
    private var keyCopy = (schema: "temp", name: RowPairing.sourceKeys)
    /// The source row's rowid, in ``from``'s terms.
    var sourceRowid: String { keysCoverRows ? "s.\(quotedIdentifier("fixturekit_location_0"))" : "s.rowid" }
    /// The temporary tables made for this table, dropped by ``drop()``.
    private var temporary: [String] = []

    static let sourceKeys = "fixturekit_source_keys"
    static let migratedKeys = "fixturekit_migrated_keys"

    /// Pairs the rows, and counts in the same pass the pairs and those whose
    /// every column is the same (`sameRow`, an expression over `s` and `m`).
    /// - Parameters:
    ///   - sourceSchema, migratedSchema: the schemas `table` and `after` are of.
    ///   - key: the key's columns; empty for the rowid.
    ///   - total: the source table's row count.
    ///   - migratedCount: the migrated table's row count, when known.
    ///   - compared: the source's columns the check compares.
    ///   - prebuilt: the source's keys, copied and indexed ahead, when they were.
    init(
        database: Database, schema: String, table: SchemaSnapshot.Table, after: SchemaSnapshot.Table, sourceSchema: SchemaSnapshot,
        migratedSchema: SchemaSnapshot, key: [String], total: Int, migratedCount: Int?, sameRow: String, compared: [String] = [], prebuilt: SourceKeys.Prebuilt? = nil
    ) throws(SQLiteError) {
        self.database = database
        self.source = "\(schema).\(quotedIdentifier(table.name))"
        self.target = "main.\(quotedIdentifier(after.name))"
        self.key = key.map(quotedIdentifier)
        self.total = total
        let source = self.source, target = self.target
        // Drop what an earlier comparison that failed halfway may have left.
        try database.execute("DROP TABLE IF EXISTS temp.\(Self.sourceKeys); DROP TABLE IF EXISTS temp.\(Self.migratedKeys)")

        guard !key.isEmpty else {
            collations = []
            migratedUnique = true
            locationJoin = ""
            method = .rowid
            from = "FROM \(source) AS s CROSS JOIN \(target) AS m ON m.rowid = s.rowid"
            (matched, equalRows) = try Self.firstPass(database, from: from, sameRow: sameRow)
            return
        }
        var collations: [String] = []
        for column in key { collations.append(try database.collation(of: column, in: table.name, schema: schema)) }
        self.collations = collations
        var unique = PreservationCheck.isUnique(key, in: after, of: migratedSchema)
        for (column, collation) in zip(key, collations) where unique {
            unique = try database.collation(of: column, in: after.name).identifierKey == collation.identifierKey
        }
        migratedUnique = unique

        // Same rowids: one ordered pass says whether they pair the rows.
        var migratedRows = migratedCount ?? 0
        if migratedCount == nil { migratedRows = Int(try database.scalar("SELECT count(*) FROM \(target)")?.integer ?? 0) }
        let keyEqual = "(" + self.key.map { "s.\($0) = +m.\($0)" }.joined(separator: " AND ") + ")"
        if !table.withoutRowID, !after.withoutRowID, migratedRows >= total,
           try Self.firstRowidsPair(database, source: source, target: target, keyEqual: keyEqual, total: total) {
            let byRowid = "FROM \(source) AS s CROSS JOIN \(target) AS m ON m.rowid = s.rowid"
            let counts = (try database.rows("SELECT count(*), coalesce(sum(\(keyEqual)), 0), coalesce(sum(CASE WHEN \(keyEqual) THEN \(sameRow) ELSE 0 END), 0) \(byRowid)").first ?? [])
                .map { Int($0.integer ?? 0) }
            var pairsByRowid = counts.count == 3 && counts[1] == total
            // More migrated rows than source rows: the others must not hold a
            // source key (unless the migrated key is unique).
            if pairsByRowid, migratedRows > total, !unique {
                pairsByRowid = !(try Self.othersHoldSourceKeys(database, source: source, target: target, key: self.key))
            }
            if pairsByRowid {
                locationJoin = ""
                method = .sameRowids
                from = byRowid
                (matched, equalRows) = (total, counts[2])
                return
            }
        }

        if sourceSchema.findsRows(of: table.name, by: key, collations: collations) {
            locationJoin = ""
            method = .sourceIndex
            let quotedKey = self.key
            from = "FROM \(target) AS m CROSS JOIN \(source) AS s ON " + quotedKey.map { "s.\($0) = +m.\($0)" }.joined(separator: " AND ")
        } else {
            method = .keyTable
            let quotedKey = self.key
            let locations = Self.keyLocations(of: table)
            var copy = (schema: "temp", name: Self.sourceKeys)
            if let prebuilt, prebuilt.collations.map({ $0.uppercased() }) == collations.map({ $0.uppercased() }) {
                copy = (PreservationCheck.keysSchemaName, prebuilt.table)
            } else {
                try Self.copyKeys(database, of: table, from: source, key: key, collations: collations, into: ("temp", Self.sourceKeys))
                temporary.append(Self.sourceKeys)
            }
            // When the key's columns are all the columns compared (a table of
            // links, of tags), the copy stands for the source's rows: no
            // look-up of each row in the source, in another order than its own.
            let keyNames = Set(key.map { $0.identifierKey })
            keysCoverRows = !table.withoutRowID && compared.allSatisfy { keyNames.contains($0.identifierKey) }
            let alias = keysCoverRows ? "s" : "k"
            let findKey = zip(quotedKey, collations).map { "\(alias).\($0) = (+m.\($0)) COLLATE \(quotedIdentifier($1))" }
            locationJoin = zip(locations.source, locations.copied).map { "s.\($0) = k.\($1)" }.joined(separator: " AND ")
            keyCopy = copy
            let keysTable = Self.qualified(copy)
            from = keysCoverRows
                ? "FROM \(target) AS m CROSS JOIN \(keysTable) AS s ON \(findKey.joined(separator: " AND "))"
                : "FROM \(target) AS m CROSS JOIN \(keysTable) AS k ON \(findKey.joined(separator: " AND ")) CROSS JOIN \(source) AS s ON \(locationJoin)"
        }
        (matched, equalRows) = try Self.firstPass(database, from: from, sameRow: sameRow)
    }

    /// Drops the temporary tables made for the comparison.
    func drop() {
        for table in temporary { try? database.execute("DROP TABLE IF EXISTS temp.\(table)") }
    }

    /// The source rows that no migrated row matches.
    mutating func lost() throws(SQLiteError) -> Int {
        switch method {
        case .sameRowids: return 0
        case .rowid: return total - matched
        case .sourceIndex, .keyTable:
            if migratedUnique { return total - matched }
            return Int(try database.scalar("SELECT count(*) \(try unmatched())")?.integer ?? 0)
        }
    }

    /// The first `limit` keys (as `keyText` renders them over `s`) of the source
    /// rows that no migrated row matches, in the order `keyOrder` says.
    mutating func lostKeys(keyText: String, keyOrder: String, limit: Int) throws(SQLiteError) -> [String] {
        let rows: String
        switch method {
        case .sameRowids: return []
        case .rowid: rows = "FROM \(source) AS s WHERE NOT EXISTS (SELECT 1 FROM \(target) AS m WHERE m.rowid = s.rowid)"
        case .sourceIndex, .keyTable: rows = try unmatched()
        }
        return try database.rows("SELECT \(keyText) \(rows) ORDER BY \(keyOrder) LIMIT \(limit)").compactMap { $0.first?.text }
    }

    // MARK: - Helpers

    /// `FROM ... WHERE ...`: the source rows (as `s`) whose key no migrated row
    /// holds, read in key order against the migrated keys, copied and indexed.
    private mutating func unmatched() throws(SQLiteError) -> String {
        if !temporary.contains(Self.migratedKeys) {
            // The source's affinity applied to the migrated keys as they are inserted.
            let columns = key.enumerated().map { "s.\($1) AS k\($0)" }.joined(separator: ", ")
            try database.execute("CREATE TEMP TABLE \(Self.migratedKeys) AS SELECT \(columns) FROM \(source) AS s WHERE 0")
            temporary.append(Self.migratedKeys)
            try database.execute("INSERT INTO temp.\(Self.migratedKeys) SELECT \(key.map { "m.\($0)" }.joined(separator: ", ")) FROM \(target) AS m")
            let indexed = collations.enumerated().map { "k\($0) COLLATE \(quotedIdentifier($1))" }.joined(separator: ", ")
            try database.execute("CREATE INDEX temp.\(Self.migratedKeys)_order ON \(Self.migratedKeys) (\(indexed))")
        }
        if method == .keyTable {
            let alias = keysCoverRows ? "s" : "k"
            let found = zip(key, collations).enumerated().map { "n.k\($0) = \(alias).\($1.0) COLLATE \(quotedIdentifier($1.1))" }.joined(separator: " AND ")
            // In the source keys' order, so the look-ups walk the migrated keys' index in order.
            let keys = "FROM \(Self.qualified(keyCopy)) AS \(alias) INDEXED BY \(quotedIdentifier(keyCopy.name + "_order"))"
            return (keysCoverRows ? keys : keys + " CROSS JOIN \(source) AS s ON " + locationJoin)
                + " WHERE NOT EXISTS (SELECT 1 FROM temp.\(Self.migratedKeys) AS n WHERE \(found))"
        }
        let found = collations.enumerated().map { "n.k\($0) = s.\(key[$0]) COLLATE \(quotedIdentifier($1))" }.joined(separator: " AND ")
        return "FROM \(source) AS s WHERE NOT EXISTS (SELECT 1 FROM temp.\(Self.migratedKeys) AS n WHERE \(found))"
    }

    private static func firstPass(_ database: Database, from: String, sameRow: String) throws(SQLiteError) -> (Int, Int) {
        let row = (try database.rows("SELECT count(*), coalesce(sum(\(sameRow)), 0) \(from)").first ?? []).map { Int($0.integer ?? 0) }
        return row.count == 2 ? (row[0], row[1]) : (0, 0)
    }

    /// Whether the first source rows by rowid find their key at the same rowid
    /// after the migration: a stage that renumbered the rows fails here at
    /// once, before a pass over the whole table would.
    private static func firstRowidsPair(_ database: Database, source: String, target: String, keyEqual: String, total: Int) throws(SQLiteError) -> Bool {
        let probe = min(total, 1000)
        let first = "(SELECT rowid AS r FROM \(source) ORDER BY rowid LIMIT \(probe)) AS f"
        let paired = try database.scalar("SELECT count(*) FROM \(first) CROSS JOIN \(source) AS s ON s.rowid = f.r CROSS JOIN \(target) AS m ON m.rowid = s.rowid WHERE \(keyEqual)")
        return Int(paired?.integer ?? 0) == probe
    }

    /// Whether a migrated row whose rowid the source does not have holds one of
    /// the source's keys: the few new rows' keys gathered once (`IN` builds a
    /// temporary index of them), each source key looked up there.
    private static func othersHoldSourceKeys(_ database: Database, source: String, target: String, key: [String]) throws(SQLiteError) -> Bool {
        let sourceKey = "(" + key.map { "s.\($0)" }.joined(separator: ", ") + ")"
        let newKeys = "SELECT \(key.map { "+m.\($0)" }.joined(separator: ", ")) FROM \(target) AS m WHERE NOT EXISTS (SELECT 1 FROM \(source) AS o WHERE o.rowid = m.rowid)"
        return try database.scalar("SELECT EXISTS (SELECT 1 FROM \(source) AS s WHERE \(sourceKey) IN (\(newKeys)))")?.integer == 1
    }

    /// Where each row of `table` is: its rowid, or the primary key of a WITHOUT
    /// ROWID table; quoted, as the source names them and as the copy of the keys does.
    private static func keyLocations(of table: SchemaSnapshot.Table) -> (source: [String], copied: [String]) {
        let source = table.withoutRowID ? table.primaryKey.map { quotedIdentifier($0.name) } : ["rowid"]
        return (source, source.indices.map { quotedIdentifier("fixturekit_location_\($0)") })
    }

    /// Copies the keys of `source` (`schema.table`, a table described by `table`)
    /// and where each row is into the new table `into`, indexed (as `<name>_order`)
    /// by the key under `collations`, then by location: the keys keep their
    /// affinity (CREATE TABLE AS gives each column its expression's) and their names.
    static func copyKeys(
        _ database: Database, of table: SchemaSnapshot.Table, from source: String, key: [String], collations: [String], into: (schema: String, name: String)
    ) throws(SQLiteError) {
        let quotedKey = key.map(quotedIdentifier)
        let locations = keyLocations(of: table)
        let selected = quotedKey.map { "s.\($0) AS \($0)" } + zip(locations.source, locations.copied).map { "s.\($0) AS \($1)" }
        let name = quotedIdentifier(into.name)
        try database.execute("CREATE TABLE \(into.schema).\(name) AS SELECT \(selected.joined(separator: ", ")) FROM \(source) AS s")
        let indexed = zip(quotedKey, collations).map { "\($0) COLLATE \(quotedIdentifier($1))" } + locations.copied
        try database.execute("CREATE INDEX \(into.schema).\(quotedIdentifier(into.name + "_order")) ON \(name) (\(indexed.joined(separator: ", ")))")
    }

    private static func qualified(_ table: (schema: String, name: String)) -> String {
        "\(table.schema).\(quotedIdentifier(table.name))"
    }
}
