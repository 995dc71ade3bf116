import Foundation
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

extension Upgrade {
    /// Finishes what a killed `upgrade` or `restore` left, as its marker says:
    /// - `restoring`: the backup is restored (again, from the start);
    /// - `migrated`: every stage had run and every check passed; the store stays
    ///   migrated when it still reads as the target version;
    /// - `migrating`: the run was killed during the stages or the checks. The
    ///   store stays migrated only when it already reads as the target version
    ///   and every check passes again (against the row counts and foreign key
    ///   violations the marker recorded); otherwise the backup is restored.
    ///
    /// - Parameter configuration: the configuration to check against; `nil` reads
    ///   the one the marker names (a migration that cannot be checked is not kept).
    /// - Returns: what was done; `nil` when nothing was pending.
    /// - Throws: ``FixtureKitError``: another `upgrade`, `backup` or `restore` of
    ///   the store is running (``StoreLock``: its marker is its own, not an
    ///   interrupted one's); the store is in use (a stage program the killed run
    ///   started may still be running), or the restore failed; the marker stays.
    public static func finishPending(store storePath: String, configuration given: CorpusConfiguration? = nil, lockTimeout: Int32 = Upgrade.defaultLockTimeout, what: String = "finish pending") throws(FixtureKitError) -> PendingRecovery? {
        let storeLock = try StoreLock.acquire(store: storePath, command: "restore", what: what)
        defer { storeLock?.release() }
        return try finishPendingLocked(store: storePath, configuration: given, lockTimeout: lockTimeout, what: what)
    }

    /// ``finishPending(store:configuration:lockTimeout:what:)`` for a caller that
    /// holds the store's ``StoreLock``.
    static func finishPendingLocked(store storePath: String, configuration given: CorpusConfiguration?, lockTimeout: Int32, what: String) throws(FixtureKitError) -> PendingRecovery? {
        guard var marker = try UpgradeMarker.read(forStore: storePath) else { return nil }
        var recovery = PendingRecovery(outcome: .restored, phase: marker.phase.rawValue, backup: marker.backup, from: marker.from, to: marker.to)
        let inUse = FixtureKitError(
            what: what, path: storePath, why: "in use by another process",
            hint: "an interrupted upgrade is pending, and a program it started may still be running: try again once the store is free", code: .storeBusy)
        if marker.phase != .restoring {
            do {
                let lock = try ExclusiveStore(storePath: storePath, timeout: lockTimeout)
                defer { lock.close() }
                let verdict = confirm(marker, database: lock.database, store: storePath, configuration: given)
                if verdict == nil {
                    _ = try? lock.database.checkpoint(.truncate)
                    lock.close()
                    try UpgradeMarker.remove(forStore: storePath)
                    BackupPin.remove(archive: marker.backup, store: storePath)
                    recovery.outcome = .confirmed
                    return recovery
                }
                recovery.reason = verdict
            } catch let error as SQLiteError where ExclusiveStore.isInUse(error) {
                throw inUse
            } catch let error as FixtureKitError {
                throw error
            } catch {
                // A store SQLite cannot open is not a migration to keep.
                recovery.reason = "the store cannot be opened: \(error)"
            }
        } else if ExclusiveStore.isInUse(storePath, timeout: lockTimeout) {
            throw inUse
        }
        try marker.switchToRestoring(forStore: storePath)
        recovery.restore = try StoreRestore.restore(marker, store: storePath, what: what)
        try UpgradeMarker.remove(forStore: storePath)
        BackupPin.remove(archive: marker.backup, store: storePath)
        return recovery
    }

    /// `nil` when the interrupted migration stands, else why it does not.
    private static func confirm(_ marker: UpgradeMarker, database: Database, store storePath: String, configuration given: CorpusConfiguration?) -> String? {
        guard let target = marker.to, let from = marker.from else { return "the marker records no migration" }
        let configuration: CorpusConfiguration
        if let given {
            configuration = given
        } else if let path = marker.configuration, let loaded = try? CorpusConfiguration.load(path) {
            configuration = loaded
        } else {
            return "the configuration \(marker.configuration ?? "") cannot be read to check the migration"
        }
        guard configuration.current == target else {
            return "the configuration's current version is \(configuration.current), the upgrade went to \(target)"
        }
        let version: StoreVersion
        do { version = try configuration.storeVersion(of: database) } catch {
            return error.why
        }
        guard version.label == target else {
            return "the store reads as \(version.description), not \(target)"
        }
        if marker.phase == .migrated { return nil }
        var results = checks(database, configuration: configuration, from: from, marker: marker, storePath: storePath)
        if results.allSatisfy(\.passed), marker.compareValues != false {
            results.append(compareValues(database, storePath: storePath, backup: marker.backup, configuration: configuration).check)
        }
        let failed = results.first { !$0.passed }
        return failed.map { "\($0.name): \($0.message?.split(separator: "\n").first.map(String.init) ?? "failed")" }
    }
}
