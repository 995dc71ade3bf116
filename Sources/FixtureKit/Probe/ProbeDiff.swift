import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// What differs between the store a probe's run left and the plain run's:
/// each table only in one, each column whose values differ in rows paired by
/// key (the rowid, or the primary key of a table without rowid), and rows only
/// in one, with up to ``PreservationCheck/examples`` of them, values shown as
/// the migration's findings show them (``PreservationCheck/shown(_:at:hidden:)``).
/// The plain run's store (a throwaway copy) is attached as `plain`; a value reads
/// `plain run -> probe`.
struct ProbeDiff {
    /// One difference, on one line, and the rows it concerns when it counts rows.
    struct Line: Equatable {
        var text: String
        var rows: Int?

        init(_ text: String, rows: Int? = nil) { (self.text, self.rows) = (text, rows) }
    }

    let database: Database
    /// `table.column`, by `identifierKey`, whose values are not shown; every one when `nil`.
    let personal: Set<String>?
    /// The probe's run, as a finding names it: `under reverse_unordered_selects`.
    let label: String

    /// The findings, each on one line; none when only what the content hash
    /// reads besides the tables (the schema, `user_version`) differs, which
    /// ``schemaFindings()`` names.
    static func findings(probe database: Database, plain: String, personal: Set<String>?, label: String) throws(SQLiteError) -> [Line] {
        try database.execute("ATTACH DATABASE \(quotedLiteral(plain)) AS plain")
        defer { try? database.execute("DETACH DATABASE plain") }
        let diff = ProbeDiff(database: database, personal: personal, label: label)
        var findings: [Line] = []
        let probed = try diff.tables("main"), planned = try diff.tables("plain")
        for (name, _) in planned where probed[name] == nil { findings.append(Line("\(name): only in the plain run")) }
        for (name, hasRowid) in probed.sorted(by: { $0.key < $1.key }) {
            guard planned[name] != nil else {
                findings.append(Line("\(name): only \(label)"))
                continue
            }
            findings += try diff.table(name, hasRowid: hasRowid)
        }
        return findings.isEmpty ? try diff.schemaFindings().map { Line($0) } : findings
    }

    /// The tables of `schema`, and whether each has a rowid.
    private func tables(_ schema: String) throws(SQLiteError) -> [String: Bool] {
        let rows = try database.rows(
            "SELECT name, wr FROM pragma_table_list WHERE schema = ?1 AND type = 'table' AND name NOT LIKE 'sqlite!_%' ESCAPE '!'", [.text(schema)])
        return Dictionary(rows.compactMap { row in row[0].text.map { ($0, row[1] == .integer(0)) } }, uniquingKeysWith: { first, _ in first })
    }

    private func table(_ name: String, hasRowid: Bool) throws(SQLiteError) -> [Line] {
        let info = try database.rows("SELECT name, pk FROM pragma_table_xinfo(?1, 'main') WHERE hidden = 0 ORDER BY cid", [.text(name)])
        let columns = info.compactMap { $0[0].text }
        let plainColumns = try database.rows("SELECT name FROM pragma_table_xinfo(?1, 'plain') WHERE hidden = 0 ORDER BY cid", [.text(name)]).compactMap { $0[0].text }
        guard columns == plainColumns else {
            return [Line("\(name): its columns differ: \(plainColumns.joined(separator: ", ")) in the plain run, \(columns.joined(separator: ", ")) \(label)")]
        }
        let table = quotedIdentifier(name)
        let key: [String]
        if hasRowid {
            let lowered = Set(columns.map { $0.identifierKey })
            key = ["rowid", "_rowid_", "oid"].first { !lowered.contains($0) }.map { [$0] } ?? []
        } else {
            key = info.filter { ($0[1].integer ?? 0) > 0 }.sorted { ($0[1].integer ?? 0) < ($1[1].integer ?? 0) }.compactMap { $0[0].text }.map(quotedIdentifier)
        }
        let all = (key + columns.map(quotedIdentifier)).joined(separator: ", ")
        let differing = try count("SELECT count(*) FROM (SELECT \(all) FROM main.\(table) EXCEPT SELECT \(all) FROM plain.\(table))")
            + count("SELECT count(*) FROM (SELECT \(all) FROM plain.\(table) EXCEPT SELECT \(all) FROM main.\(table))")
        guard differing > 0 else { return [] }
        guard !key.isEmpty else { return [Line("\(name): \(differing) rows differ (it has no key to pair them by)", rows: differing)] }
        let joined = key.map { "a.\($0) = b.\($0)" }.joined(separator: " AND ")
        let keyText = hasRowid ? "'rowid ' || a.\(key[0])" : key.map { "quote(a.\($0))" }.joined(separator: " || ', ' || ")
        let order = key.map { "a.\($0)" }.joined(separator: ", ")
        let pairs = "FROM plain.\(table) b JOIN main.\(table) a ON \(joined)"
        let paired = try count("SELECT count(*) \(pairs)")
        var findings: [Line] = []
        for column in columns {
            let quoted = quotedIdentifier(column)
            let rows = "\(pairs) WHERE a.\(quoted) IS NOT b.\(quoted) OR typeof(a.\(quoted)) <> typeof(b.\(quoted))"
            let changed = try count("SELECT count(*) \(rows)")
            guard changed > 0 else { continue }
            let hidden = personal.map { $0.contains("\(name).\(column)".identifierKey) } ?? true
            let shown = [keyText] + PreservationCheck.rendered("b.\(quoted)") + PreservationCheck.rendered("a.\(quoted)")
            let examples = try database.rows("SELECT \(shown.joined(separator: ", ")) \(rows) ORDER BY \(order) LIMIT \(PreservationCheck.examples)").map { row in
                ValueChange(key: row[0].text ?? "?", before: PreservationCheck.shown(row, at: 1, hidden: hidden), after: PreservationCheck.shown(row, at: 4, hidden: hidden))
            }
            findings.append(Line("\(name).\(column): \(changed) of \(paired) rows differ\(PreservationCheck.valuesNote(examples, byKey: !hasRowid))", rows: changed))
        }
        for (from, to, place) in [("plain", "main", "in the plain run"), ("main", "plain", label)] {
            let only = "FROM \(from).\(table) a WHERE NOT EXISTS (SELECT 1 FROM \(to).\(table) b WHERE \(joined))"
            let lone = try count("SELECT count(*) \(only)")
            guard lone > 0 else { continue }
            let keys = try database.rows("SELECT \(keyText) \(only) ORDER BY \(order) LIMIT \(PreservationCheck.examples)").compactMap { $0[0].text }
            findings.append(Line("\(name): \(lone) \(lone == 1 ? "row" : "rows") only \(place) (\(keys.joined(separator: "; ")))", rows: lone))
        }
        return findings.isEmpty ? [Line("\(name): \(differing) rows differ", rows: differing)] : findings
    }

    /// What else the content hash reads: the schema's entries and `user_version`.
    private func schemaFindings() throws(SQLiteError) -> [String] {
        func entries(_ schema: String) -> String { "SELECT type, name, sql FROM \(schema).sqlite_schema" }
        let names = try database.rows("SELECT name FROM (\(entries("main")) EXCEPT \(entries("plain"))) UNION SELECT name FROM (\(entries("plain")) EXCEPT \(entries("main"))) ORDER BY 1")
        var findings = names.compactMap { $0[0].text }.map { "the schema of \($0) differs" }
        let versions = try (database.scalar("PRAGMA plain.user_version"), database.scalar("PRAGMA main.user_version"))
        if versions.0 != versions.1 { findings.append("user_version: \(versions.0?.integer ?? 0) in the plain run, \(versions.1?.integer ?? 0) \(label)") }
        return findings
    }

    private func count(_ sql: String) throws(SQLiteError) -> Int {
        Int(try database.scalar(sql)?.integer ?? 0)
    }
}
