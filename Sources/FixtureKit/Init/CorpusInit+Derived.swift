import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

extension CorpusInit {
    /// The columns each generated column of `table` is computed from, as SQLite
    /// itself tells them; a generated column whose sources it does not tell is
    /// absent.
    ///
    /// No SQL is parsed. The table's CREATE statement is run on an empty
    /// database in memory; SQLite's authorizer reports every column its CHECK
    /// constraints and generated columns read when it compiles the statement.
    /// Dropping one generated column (`ALTER TABLE … DROP COLUMN`, which SQLite
    /// does by rewriting the statement) and compiling the result again reports
    /// the same reads but that column's: the difference is what it reads.
    static func generatedSources(of table: String, sql: String, generated: [String]) -> [String: [String]] {
        guard !generated.isEmpty, let scratch = try? Database(path: ":memory:", options: .init(create: true)),
              let compiler = try? Database(path: ":memory:", options: .init(create: true)),
              (try? scratch.execute(sql)) != nil,
              let all = try? compiler.columnsRead(compiling: sql) else { return [:] }
        let key = table.identifierKey
        func reads(_ list: [(table: String, column: String)]) -> [String: Int] {
            var counts: [String: Int] = [:]
            for (owner, column) in list where owner.identifierKey == key { counts[column, default: 0] += 1 }
            return counts
        }
        let before = reads(all)
        var sources: [String: [String]] = [:]
        for column in generated {
            // Dropped in a savepoint that is rolled back: each column is tried on the whole table.
            sources[column] = try? scratch.inSavepoint("fixturekit_probe", end: .rollback) { () throws(SQLiteError) -> [String]? in
                try scratch.execute("ALTER TABLE main.\(quotedIdentifier(table)) DROP COLUMN \(quotedIdentifier(column))")
                guard let reduced = try scratch.scalar("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?1", [.text(table)])?.text else { return nil }
                let after = reads(try compiler.columnsRead(compiling: reduced))
                let read = before.filter { $0.value > (after[$0.key] ?? 0) }.map(\.key)
                // In the table's column order.
                let order = (try? scratch.rows("SELECT name FROM pragma_table_xinfo(?1) ORDER BY cid", [.text(table)]).compactMap { $0.first?.text }) ?? []
                return order.filter { name in read.contains { $0.identifierKey == name.identifierKey } }
            }
        }
        return sources
    }
}
