import Testing
@testable import FixtureKitModels
@testable import FixtureKitSQLite

/// What the migrate checks ask of a schema: which column is a table's rowid,
/// and whether an index finds its rows by given columns.
@Suite struct SchemaSnapshotLookupTests {
    /// The rowid and the indexes that find rows are looked up by name as SQLite
    /// resolves it: `ID` is the rowid of `Été`, and `été`, another table to
    /// SQLite (only ASCII letters fold), is not mistaken for it.
    @Test func rowidAndIndexesAreFoundByTheNameSQLiteResolves() throws {
        let database = try Database(path: ":memory:", options: .init(create: true))
        try database.execute("""
            CREATE TABLE "Été" (id INTEGER PRIMARY KEY, k TEXT);
            CREATE TABLE "été" (id TEXT, k TEXT);
            CREATE INDEX "été_k" ON "été"(k COLLATE NOCASE);
            """)
        let schema = try SchemaSnapshot(database: database)
        #expect(schema.isRowid("ID", of: "Été"))
        #expect(!schema.isRowid("id", of: "été"))
        #expect(schema.findsRows(of: "été", by: ["K"], collations: ["nocase"]))
        #expect(!schema.findsRows(of: "été", by: ["k"], collations: ["BINARY"]))
        #expect(!schema.findsRows(of: "Été", by: ["k"], collations: ["NOCASE"]))
        #expect(schema.findsRows(of: "Été", by: ["Id"], collations: ["BINARY"]))
    }
}
