import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// What the engine does after the rows are rewritten: the FTS indexes rebuilt,
/// the statistics refreshed, the foreign keys checked.
extension AnonymizationEngine {
    /// Rebuilds every FTS index from the text it indexes, so that no token of an
    /// old value is left in its shadow tables.
    static func rebuildFullText(_ schema: AnonymizationSchema, database: Database, display: String) throws(FixtureKitError) -> [String] {
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
    static func refreshStatistics(_ schema: AnonymizationSchema, database: Database, display: String) throws(FixtureKitError) {
        do {
            for table in ["sqlite_stat3", "sqlite_stat4"] where schema.internalTables.contains(table) {
                try database.execute("DELETE FROM \(table)")
            }
            if schema.internalTables.contains("sqlite_stat1") { try database.execute("ANALYZE") }
        } catch {
            throw FixtureKitError(what: "anonymize", path: display, why: error.description, cause: error)
        }
    }

    /// Rows violating a foreign key, per table.
    static func foreignKeyViolations(_ database: Database, display: String) throws(FixtureKitError) -> [String: Int] {
        do {
            guard try database.scalar("SELECT count(*) FROM pragma_table_list AS t, pragma_foreign_key_list(t.name) WHERE t.schema = 'main'")?.integer ?? 0 > 0 else { return [:] }
            var counts: [String: Int] = [:]
            for row in try database.rows("PRAGMA foreign_key_check") {
                if let table = row[0].text { counts[table, default: 0] += 1 }
            }
            return counts
        } catch {
            throw FixtureKitError(what: "anonymize", path: display, why: error.description, cause: error)
        }
    }
}
