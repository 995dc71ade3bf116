import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

/// What the engine did to one store.
struct EngineResult {
    var columns: [AnonymizationReport.ColumnChange]
    /// `table.column` the rules name that the store does not have.
    var absent: [String]
    var rebuiltIndexes: [String]
    /// `table.column` of each rule index, for the leak scan's report.
    var ruleNames: [String]
    var schemaText: [String]
    /// The store keeps its text in UTF-16.
    var isUTF16: Bool
    /// The output was left in WAL mode, as the store was.
    var isWAL: Bool
    /// The leak scan, started while the rows were rewritten.
    var leakScan: LeakScan
    /// Keyed outputs taken from ``KeyedPrefetch`` rather than computed on the spot.
    var prefetched = 0
    /// What the rules kept of the data.
    var profile = Manifest.DataProfile()
}

/// Rewrites a store set through SQLite: the rules as UPDATE statements calling
/// application-defined functions, the FTS indexes rebuilt from the new text,
/// then `VACUUM INTO` a fresh file that holds nothing but the live content.
///
/// The working copy is disposable: it is written with no journal and no fsync,
/// and removed afterwards; old values left in its free pages never reach the
/// output, which `VACUUM INTO` builds page by page from the live rows.
enum AnonymizationEngine {
    /// SQLite's page cache for the working copy, in KiB (a negative cache_size).
    static let cacheKiB = 16384
    /// The page cache of `VACUUM INTO`, for the store and the output each, in KiB.
    static let vacuumCacheKiB = 2048
    /// Free space left after the prefetch's copy of the store and the output.
    static let prefetchSpareBytes: UInt64 = 256 << 20

    /// Anonymizes the store set `folder/storeName` into `output` (which must not exist).
    /// - Parameters:
    ///   - display: the store as the user named it, for messages.
    ///   - spoolFolder: where the leak scan's spool files are created (and at once unlinked).
    ///   - pristine: a folder holding the store set's files `names` as they were
    ///     copied, never opened in place: a second thread reads them (immutable, or a copy of its own) to
    ///     compute keyed outputs ahead (see ``KeyedPrefetch``).
    ///   - acceleration: the fast path and the prefetch, on unless a test
    ///     compares them with the plain path.
    ///   - enforceProfile: fail when the data profile shows a property a rule
    ///     keeps changed; off only for tests that compare paths on rules that
    ///     do not keep them (the profile is measured all the same).
    /// - Throws: ``FixtureKitError``: exit 2 for rules that do not fit the store.
    static func run(folder: String, storeName: String, output: String, rules: AnonymizationRules, key: AnonymizationKey, spoolFolder: String, display: String, pristine: (folder: String, names: [String])? = nil, acceleration: AnonymizationSession.Acceleration = .all, enforceProfile: Bool = true) throws(FixtureKitError) -> EngineResult {
        let path = folder.appendingPath(storeName)
        func wrap(_ error: SQLiteError) -> FixtureKitError {
            FixtureKitError(what: "anonymize", path: display, why: error.description, cause: error)
        }
        func sqlite(_ body: () throws(SQLiteError) -> Void) throws(FixtureKitError) {
            do { try body() } catch { throw wrap(error) }
        }
        let database: Database
        let isWAL: Bool
        do {
            // Its writes, and those of the output, gathered into larger ones.
            try CaptureVFS.register()
            database = try Database(path: gathered(path), options: .init(uri: true, busyTimeout: 0))
            // The first read replays the copied WAL or rolls back a hot journal.
            _ = try database.scalar("SELECT count(*) FROM sqlite_schema")
            isWAL = try database.scalar("PRAGMA journal_mode")?.text?.lowercased() == "wal"
            try database.execute("PRAGMA journal_mode = DELETE")
            // A throwaway copy: no journal, no sync, and the space the rewrites
            // free is not zeroed (the output is VACUUM INTO's fresh file, written
            // with secure_delete back on).
            try database.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA secure_delete = OFF; PRAGMA foreign_keys = OFF; PRAGMA cache_size = -\(cacheKiB)")
            try disableTriggers(database)
        } catch {
            throw FixtureKitError(what: "anonymize", path: display, why: error.description, hint: error.isNotADatabase ? "is it an SQLite store?" : nil, cause: error)
        }
        let schema: AnonymizationSchema
        do { schema = try AnonymizationSchema(database: database) } catch {
            throw FixtureKitError(what: "anonymize", path: display, why: error.description, cause: error)
        }
        let (bound, absent) = try bind(rules, to: schema, database: database, display: display)
        // Before the session: it tells the rules which tallies their calls feed.
        let profile = ProfilePlan(rules: bound, schema: schema, spillFolder: spoolFolder)
        let spool: LeakSpool
        do { spool = try LeakSpool(folder: spoolFolder, utf16: schema.isUTF16) } catch {
            throw FixtureKitError(what: "anonymize", failed: error)
        }
        // Its second thread indexes the replaced values while they are spooled.
        let leakScan = LeakScan(spool: spool, schemaText: schema.schemaText, nullColumns: Set(bound.filter { $0.strategy == .null }.map(\.index)))
        // The fast path takes the outputs the prefetch computes.
        let prefetch = acceleration.prefetch && acceleration.textFastPath
            ? startPrefetch(bound, schema: schema, key: key, storeName: storeName, pristine: pristine, folder: spoolFolder.appendingPath(".fixturekit-prefetch"))
            : nil
        let session = AnonymizationSession(key: key, rules: bound, spool: spool, acceleration: acceleration, prefetch: prefetch, profile: profile)
        var rebuilt: [String] = []
        var measured = Manifest.DataProfile()
        do {
            defer {
                prefetch?.stop()
                session.finalizeStatements()
                try? database.close()
            }
            try sqlite { () throws(SQLiteError) in try session.register(on: database) }
            try sqlite { () throws(SQLiteError) in try profile.measure(before: true, database: database) }
            let violationsBefore = try foreignKeyViolations(database, display: display)
            // The profile's hashes are sorted and counted on another thread while
            // the output is built; its verdict is awaited before anything is kept.
            let counting = BackgroundStage()
            // The data profile and its problem, from the thread that counts it.
            let verdict = Handoff<(Manifest.DataProfile, FixtureKitError?)>()
            defer { counting.drain() }
            try database.inTransaction(wrapping: wrap) { () throws(FixtureKitError) in
                try buildMaps(session, database: database, display: display)
                try runUpdates(session, database: database, display: display)
                try sqlite { () throws(SQLiteError) in try profile.measure(before: false, database: database) }
                counting.start { verdict.value = checkProfile(profile, display: display) }
                // No value is replaced after this: the leak scan's thread looks for
                // exemptions while the output is built. A write failure is thrown by the scan.
                try? spool.finish()
                session.releaseCache()
                prefetch?.stop()
                rebuilt = try rebuildFullText(schema, database: database, display: display)
                try refreshStatistics(schema, database: database, display: display)
                let violationsAfter = try foreignKeyViolations(database, display: display)
                if let (table, count) = violationsAfter.first(where: { $0.value > (violationsBefore[$0.key] ?? 0) }) {
                    throw FixtureKitError(
                        what: "anonymize", path: display,
                        why: "the rules break foreign keys: \(count) rows of \(table) no longer find their parent",
                        hint: "give a foreign key and the key it refers to the same pseudonym domain")
                }
            }
            try sqlite { () throws(SQLiteError) in
                // VACUUM INTO gives the output the cache size of the store: a small
                // one, since both files are read and written in order anyway.
                try database.execute("PRAGMA secure_delete = ON; PRAGMA cache_size = -\(vacuumCacheKiB); PRAGMA shrink_memory")
                let vacuum = try database.prepare("VACUUM INTO ?1")
                try vacuum.bind([.text(gathered(output))])
                _ = try vacuum.step()
            }
            counting.drain()
            if let problem = verdict.value?.1, enforceProfile { throw problem }
            measured = verdict.value?.0 ?? measured
        }
        for suffix in ["", "-wal", "-shm", "-journal"] { try? POSIX.removeFile(path + suffix) }
        if isWAL { try keepWALMode(output, display: display) }
        let columns = bound.map { rule in
            AnonymizationReport.ColumnChange(table: rule.table, column: rule.column, strategy: rule.strategy.name, rowsChanged: session.changed[rule.index])
        }
        return EngineResult(
            columns: columns, absent: absent, rebuiltIndexes: rebuilt, ruleNames: bound.map(\.name), schemaText: schema.schemaText,
            isUTF16: schema.isUTF16, isWAL: isWAL, leakScan: leakScan, prefetched: prefetch?.taken ?? 0, profile: measured)
    }

    /// The URI of a file that only the anonymizing connection reads and writes,
    /// with no journal: its writes gathered by ``CaptureVFS``.
    private static func gathered(_ path: String) -> String {
        CaptureVFS.uri(path, [("fixturekit_gather", "1")])
    }

    /// Puts the output in WAL mode, as its store was: SQLite writes the header
    /// through the log and, closing its last connection, copies it into the
    /// main file and deletes `-wal` and `-shm`.
    private static func keepWALMode(_ output: String, display: String) throws(FixtureKitError) {
        do throws(SQLiteError) {
            let database = try Database(path: output, options: .init(busyTimeout: 0))
            guard try database.scalar("PRAGMA journal_mode = WAL")?.text?.lowercased() == "wal" else {
                throw SQLiteError(code: SQLiteError.genericError, message: "the output did not switch to WAL mode", sql: "PRAGMA journal_mode = WAL")
            }
            try database.close()
        } catch {
            throw FixtureKitError(what: "anonymize: keep WAL mode", path: display, why: error.description, cause: error)
        }
        for suffix in ["-wal", "-shm"] where (try? POSIX.lstatIfPresent(output + suffix)) != nil {
            throw FixtureKitError(what: "anonymize: keep WAL mode", path: display, why: "SQLite left \(output.split(separator: "/").last ?? "")\(suffix) behind")
        }
    }

    /// Turns triggers off for the connection: an app's triggers would copy old
    /// values into audit tables or touch `updated_at` columns.
    private static func disableTriggers(_ database: Database) throws(SQLiteError) {
        try database.setTriggersEnabled(false)
    }
}
