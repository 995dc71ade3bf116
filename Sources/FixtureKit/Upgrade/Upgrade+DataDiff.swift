import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitArchiveIO
import FixtureKitModels

extension Upgrade {
    /// `.App.sqlite.fixturekit-diff` beside the store, mode 0700: where the backup
    /// is extracted for the comparison, on the store's file system.
    static func comparisonFolder(forStore storePath: String) -> String {
        let name = storePath.split(separator: "/").last.map(String.init) ?? storePath
        return AtomicFile.parentFolder(of: storePath).appendingPath("." + name + ".fixturekit-diff")
    }

    /// The value-level comparison `migrate` runs (``PreservationCheck``: keys,
    /// declared changes and personal columns of the configuration), between the
    /// migrated store, on its locked connection, and its backup: the archive is
    /// extracted and verified beside the store, its store checkpointed into one
    /// file and attached, then removed.
    /// - Returns: the `data preserved` check, the counts per table and column
    ///   (`nil` when the comparison could not run, which fails the check and
    ///   leaves it the error), and the seconds it took.
    static func compareValues(_ database: Database, storePath: String, backup: String, configuration: CorpusConfiguration) -> (check: CheckResult, columns: [ColumnPreservation]?, seconds: Double) {
        let clock = ContinuousClock()
        let start = clock.now
        func elapsed() -> Double { StageRunner.seconds(clock.now - start) }
        let folder = comparisonFolder(forStore: storePath)
        defer { ScratchFolder.remove(folder) }
        func cannot(_ why: String, _ error: any Error) -> (CheckResult, [ColumnPreservation]?, Double) {
            (CheckResult(.dataPreserved, passed: false, message: "values could not be compared: \(why)", error: error), nil, elapsed())
        }
        let source: String
        let contents: StoreContents
        do throws(FixtureKitError) {
            (source, contents) = try extractBackup(backup, into: folder)
        } catch {
            return cannot(error.what == backupFails ? error.why : error.descriptionWithoutHint, error)
        }
        let columns: [ColumnPreservation]
        do {
            let migrated = try SchemaSnapshot(database: database)
            // A live store's values are shown only for the columns the rules `keep`.
            let check = PreservationCheck(
                database: database, keys: configuration.keys ?? [:], changes: configuration.declaredChanges, source: contents.schema,
                migrated: migrated, sourceCounts: contents.tables, personal: configuration.personalColumns, shownValues: configuration.keptColumns,
                renames: configuration.renameMap, moves: configuration.declaredMoves)
            columns = try check.run(sourcePath: source)
        } catch {
            return cannot(error.description, error)
        }
        let findings = columns.compactMap(\.finding)
        let check = findings.isEmpty
            ? CheckResult(.dataPreserved, passed: true)
            : CheckResult(.dataPreserved, passed: false, message: findings.joined(separator: "\n"))
        return (check, columns, elapsed())
    }

    static let backupFails = "verify the backup"

    /// Extracts and verifies the backup archive into `folder` (made anew, mode
    /// 0700), and checkpoints its store into one file that a connection can
    /// attach: the store's path, and its contents.
    /// - Throws: ``FixtureKitError`` saying why the backup cannot serve.
    static func extractBackup(_ backup: String, into folder: String) throws(FixtureKitError) -> (store: String, contents: StoreContents) {
        ScratchFolder.remove(folder)
        try wrap("create folder", folder) { () throws(FileSystemError) in try POSIX.makeFolder(folder, mode: 0o700) }
        let copy = folder.appendingPath("set")
        let unpacked = try FixtureArchive.unpack(backup, to: copy)
        guard unpacked.extracted else {
            throw FixtureKitError(what: backupFails, path: backup, why: "the backup \(backup) fails its SHA256SUMS: " + FixtureArchive.summary(of: unpacked.contents.verification.problems))
        }
        let source = try FixtureLocator.storePath(inFixture: copy)
        let opened: Database
        do { opened = try Database(path: source, options: .init(busyTimeout: 0)) } catch {
            throw FixtureKitError(what: "open the backup's copy", path: source, why: error.description, cause: error)
        }
        let contents = try StoreContents(database: opened)
        do {
            _ = try opened.checkpoint(.truncate)
            // Out of WAL mode: a read-only connection could not open it without a -shm.
            try opened.execute("PRAGMA journal_mode = DELETE")
            try opened.close()
        } catch {
            throw FixtureKitError(what: "checkpoint the backup's copy", path: source, why: error.description, cause: error)
        }
        return (source, contents)
    }
}
