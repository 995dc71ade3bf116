import Testing
import FixtureKitSQLite

/// The settings fixturekit gives the SQLite library before its first use.
@Suite struct SQLiteLibraryTests {
    /// Memory statistics are off (each allocation would take a mutex of the whole
    /// process): the heap limits, which need them, do nothing.
    @Test func memoryStatisticsAreOffSoAHeapLimitDoesNothing() throws {
        let database = try Database(path: ":memory:")
        #expect(SQLiteLibrary.configured)
        #expect(!SQLiteLibrary.keepsMemoryStatistics)
        // With the statistics on, the 1 MB blob under a 100 kB limit fails (SQLITE_NOMEM).
        try database.execute("PRAGMA hard_heap_limit = 100000")
        defer { try? database.execute("PRAGMA hard_heap_limit = 0") }
        #expect(try database.scalar("SELECT length(randomblob(1000000))") == .integer(1_000_000))
    }
}
