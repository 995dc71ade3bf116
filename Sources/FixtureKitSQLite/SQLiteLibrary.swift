import CSQLite

/// Settings of the SQLite library for the whole process, made once, before the
/// library's first use: every entry point that initializes SQLite
/// (``Database/init(path:options:)``, ``CaptureVFS``'s registration,
/// ``StepCount``'s auto extension) reaches ``configured`` first.
package enum SQLiteLibrary {
    /// Whether SQLite took the settings: `false` when the process had used SQLite
    /// before (a host app of the library), whose own settings then hold.
    ///
    /// Memory statistics off. With them on (SQLite's default), every allocation
    /// of every connection takes one mutex of the process, and the SQLite that
    /// Debian ships allocates often (it is built without lookaside memory):
    /// two connections on two threads, as `migrate --jobs 2` runs them, waited
    /// on each other (9% of its time on the matrix benchmark). What is lost:
    /// `sqlite3_memory_used()` and the heap limits (`PRAGMA soft_heap_limit`,
    /// `hard_heap_limit`), which would be the whole process' anyway, so a
    /// stage's limit would have governed fixturekit's own checks and the other
    /// paths; `migrate` warns of a stage that sets one.
    package static let configured: Bool = fixturekit_sqlite_config_memory_statistics(0) == SQLITE_OK

    /// Whether SQLite keeps memory statistics in this process, and so enforces
    /// the heap limits: `false` once ``configured``, `true` in a process that
    /// used SQLite before with its defaults. Read while a connection is open
    /// (the statistics would count its memory).
    package static var keepsMemoryStatistics: Bool { sqlite3_memory_used() > 0 }
}
