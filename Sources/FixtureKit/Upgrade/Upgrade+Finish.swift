import FixtureKitSystem
import FixtureKitModels

extension Upgrade {
    /// Settles a migration that passed every check: phase `migrated`, a
    /// TRUNCATE checkpoint, the marker and the pin removed, old backups pruned.
    /// - Throws: ``FixtureKitError`` when the marker cannot be updated or removed;
    ///   the migration stands, and the next run or `restore --pending` confirms it.
    static func finish(_ result: inout UpgradeResult, marker: inout UpgradeMarker, stages: StageRunner, backup: BackupArchive, options: UpgradeOptions, backups: String) throws(FixtureKitError) {
        let storePath = result.store
        FaultInjection.reached(.phase("finish"), storePath)
        marker.phase = .migrated
        do { try marker.write(forStore: storePath) } catch {
            throw FixtureKitError(
                what: "upgrade", path: storePath, why: "the migration passed every check, but the marker could not say so: \(error.descriptionWithoutHint)",
                remedy: .finishPendingRestore(store: storePath, .keepsMigration))
        }
        // The migrated store whole in its main file, as a fresh install leaves it.
        if let migrated = try? stages.open() {
            _ = try? migrated.checkpoint(.truncate)
            // The set keeps its shape: a store that had no -wal gets none. Still
            // under the lock, so no other connection can be using the log.
            let wal = storePath + StoreSet.Sidecar.wal.rawValue
            if backup.files[marker.store + StoreSet.Sidecar.wal.rawValue] == nil, let info = try? POSIX.lstatIfPresent(wal), info.size == 0 {
                try? POSIX.removeFile(wal)
            }
        }
        stages.close()
        do { try UpgradeMarker.remove(forStore: storePath) } catch {
            throw FixtureKitError(
                what: "upgrade", path: storePath, why: "upgraded to \(result.to), but the marker could not be removed: \(error.descriptionWithoutHint)",
                remedy: .finishPendingRestore(store: storePath, .keepsMigration))
        }
        BackupPin.remove(archive: backup.path, store: storePath)
        result.outcome = .upgraded
        result.removedBackups = prune(storePath, backups: backups, keep: options.keep, warnings: &result.warnings)
    }

    /// Puts the backup back after `failure`: phase `restoring` (the marker
    /// written ahead renamed into place: no room needed), the backup restored
    /// and verified once nobody else has the store open, the marker and the pin
    /// removed, old backups pruned.
    /// - Throws: ``FixtureKitError`` naming the failure and what happened to the
    ///   store: the restore could not start or failed (the marker stays, and
    ///   `restore --pending` finishes it), or another process has the store.
    static func restore(_ result: inout UpgradeResult, after failure: CheckResult, marker: inout UpgradeMarker, options: UpgradeOptions, backups: String) throws(FixtureKitError) {
        let storePath = result.store
        let what = "upgrade"
        FaultInjection.reached(.phase("restore"), storePath)
        let failed = "\(failure.name) \(result.couldNotRun == true ? "could not run" : "failed")" + (failure.message.flatMap { $0.split(separator: "\n").first }.map { ": \($0)" } ?? "")
        do { try marker.switchToRestoring(forStore: storePath) } catch {
            throw FixtureKitError(
                what: what, path: storePath, why: "\(failed); the backup could not be restored: \(error.descriptionWithoutHint)",
                remedy: .finishPendingRestore(store: storePath, .restoresOnceFixed))
        }
        // Only over a store nobody else has open: a process that got in while a
        // program stage ran keeps the restore pending.
        if ExclusiveStore.isInUse(storePath, timeout: options.lockTimeout) {
            throw FixtureKitError(
                what: what, path: storePath, why: "\(failure.name) failed, and another process has opened the store since: the backup is not restored yet",
                remedy: .finishPendingRestore(store: storePath, .restoresAfterClosingApp))
        }
        do {
            result.restore = try StoreRestore.restore(marker, store: storePath, what: "restore")
            result.restore?.archive = result.backup?.path ?? marker.backup
        } catch {
            throw FixtureKitError(
                what: what, path: storePath, why: "\(failed); restoring the backup failed too: \(error.descriptionWithoutHint)",
                remedy: .finishPendingRestore(store: storePath, .finishesOnceFixed))
        }
        do { try UpgradeMarker.remove(forStore: storePath) } catch {
            throw FixtureKitError(
                what: what, path: storePath, why: "\(failed); the backup was restored, but the marker could not be removed: \(error.descriptionWithoutHint)",
                remedy: .finishPendingRestore(store: storePath, .restoresAgain))
        }
        BackupPin.remove(archive: marker.backup, store: storePath)
        result.outcome = .restored
        result.failure = failure
        result.removedBackups = prune(storePath, backups: backups, keep: options.keep, warnings: &result.warnings)
    }
}
