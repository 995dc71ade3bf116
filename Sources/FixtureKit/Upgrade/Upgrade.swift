import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// How ``Upgrade/upgrade(store:configuration:configurationPath:options:)`` works.
public struct UpgradeOptions: Sendable {
    /// The backup folder; `nil` for ``StoreBackup/defaultFolder(forStore:)``.
    public var backups: String?
    /// How many backups of the store are kept (at least 1).
    public var keep: Int
    /// How long a store another process holds is waited for, in milliseconds.
    public var lockTimeout: Int32
    /// Whether the migrated store's values are compared with its backup's, as
    /// `migrate` compares them (`--no-data-diff` turns it off).
    public var compareValues: Bool
    /// How long a stage may run when the configuration gives it no `timeout`.
    public var stageTimeout: Duration
    /// What stops the upgrade: before the store is changed, it stops with an
    /// error (``FixtureKitError/Category/interrupted``); once it is, the stage
    /// running is ended, the checks are interrupted and the backup is restored
    /// (``UpgradeResult/interrupted``). The tool passes the one SIGINT and
    /// SIGTERM cancel (``Interruption/install()``).
    public var cancellation: Cancellation?
    /// The free bytes of the file system holding a folder; `nil` when unknown.
    /// `statvfs` unless a test says otherwise.
    var availableSpace: @Sendable (String) -> UInt64?

    public init(
        backups: String? = nil, keep: Int = StoreBackup.defaultKeep, lockTimeout: Int32 = Upgrade.defaultLockTimeout,
        compareValues: Bool = true, stageTimeout: Duration = Upgrade.defaultStageTimeout, cancellation: Cancellation? = nil
    ) {
        self.backups = backups
        self.keep = keep
        self.lockTimeout = lockTimeout
        self.compareValues = compareValues
        self.stageTimeout = stageTimeout
        self.cancellation = cancellation
        availableSpace = { path in try? POSIX.availableSpace(at: path) }
    }
}

/// What an upgrade did.
public struct UpgradeResult: Codable, Equatable, Sendable {
    public enum Outcome: String, Codable, Sendable {
        /// Migrated to the current version; every check passed.
        case upgraded
        /// Already at the current version: left alone.
        case current
        /// A stage or a check failed: the store set was restored from the backup.
        case restored
    }

    /// The store's main file, as given.
    public internal(set) var store: String
    public internal(set) var outcome: Outcome
    /// The version the store was at.
    public internal(set) var from: String?
    /// The current version.
    public internal(set) var to: String
    /// The stages of the chain, `2.0.0 -> 3.0.0` each.
    public internal(set) var stages: [String]
    /// The backup taken before the store was touched.
    public internal(set) var backup: BackupArchive?
    /// Every stage and check, passed or not, in order.
    public internal(set) var checks: [CheckResult]
    /// The one that failed, when the backup was restored.
    public internal(set) var failure: CheckResult?
    /// The restore of the backup, when there was one.
    public internal(set) var restore: RestoreResult?
    /// What was done about an upgrade a killed run left, before this one.
    public internal(set) var recovery: PendingRecovery?
    /// Older backups removed to keep the last N.
    public internal(set) var removedBackups: [String]
    /// Whether the migrated store's values were compared with the backup's
    /// (not with `--no-data-diff`, nor when a stage or check failed first).
    public internal(set) var valuesCompared: Bool = false
    /// The value-level comparison, per table and column, when it ran.
    public internal(set) var preservation: [ColumnPreservation]?
    /// What the comparison took, in seconds.
    public internal(set) var preservationSeconds: Double?
    /// `SIGTERM` when fixturekit received that signal during the migration,
    /// `cancelled` when the caller cancelled it (``UpgradeOptions/cancellation``):
    /// the backup was then restored.
    public internal(set) var interrupted: String?
    /// What went wrong after the outcome was settled (old backups that could
    /// not be removed).
    public internal(set) var warnings: [String] = []
    /// `true` when the step that failed could not run for want of the machine
    /// (the store's disk full, an I/O error, the values that could not be
    /// compared), not because the migration failed it: exit status 2, never 1.
    /// The store set was restored all the same (``outcome`` `.restored`).
    public internal(set) var couldNotRun: Bool?
}

/// What was done about an interrupted upgrade or restore (a marker left beside the store).
public struct PendingRecovery: Codable, Equatable, Sendable {
    public enum Outcome: String, Codable, Sendable {
        /// The store set was put back from the backup.
        case restored
        /// The migration had committed and passes its checks: the store stays migrated.
        case confirmed
    }

    public internal(set) var outcome: Outcome
    /// The phase the marker recorded: `migrating`, `migrated`, `restoring`.
    public internal(set) var phase: String
    /// The backup archive the marker named.
    public internal(set) var backup: String
    public internal(set) var from: String?
    public internal(set) var to: String?
    /// Why the migration was not kept, when the backup was restored.
    public internal(set) var reason: String?
    public internal(set) var restore: RestoreResult?
}

/// `fixturekit upgrade`: backup-before-migrate on a live store.
///
/// 1. **Preflight**, under the store's exclusive lock (``ExclusiveStore``), kept to
///    the end: the store set is there, no other process has it open, `quick_check`
///    passes, its version is known (``CorpusConfiguration/storeVersion(of:)``) and
///    not newer than `current`, a chain of stages leads to `current`, and the disk
///    has room for the backup and the migration. A store at `current` is left alone.
/// 2. **Backup**: the main file and its `-wal` as they are, byte for byte, packed
///    as a fixture archive and read back (``StoreBackup``), before anything changes.
/// 3. **Marker** (``UpgradeMarker``), phase `migrating`: from here on a killed run
///    is finished by the next one.
/// 4. **Migration** on the live store: SQL stages in a transaction each on the
///    locked connection; an exec stage's program opens the store itself, so the
///    connection (and the lock) is given up while it runs and taken again after.
/// 5. **Checks**: integrity, foreign keys (no more violations than before), the
///    version, the schema against the current version's fixture when the corpus
///    has it, row counts against those before, the configuration's checks.
/// 6. All pass: phase `migrated`, a TRUNCATE checkpoint, the marker removed, old
///    backups pruned. Anything fails: phase `restoring`, the backup restored over
///    the store set (``StoreRestore``) and verified, the marker removed.
///
/// The whole run holds the store's ``StoreLock``: a second `upgrade`, `backup`
/// or `restore` of the store is turned away meanwhile, and a marker whose run is
/// still going is never taken for an interrupted one. Stage programs run as
/// ``StageProcess``es: none of their processes outlives its stage. A cancellation
/// (``UpgradeOptions/cancellation``: SIGINT and SIGTERM in the tool) ends the
/// stage running and restores the backup.
public enum Upgrade {
    /// How long a store that another connection holds is retried, in
    /// milliseconds: a short write of an app passes, a store an app keeps open is refused.
    public static let defaultLockTimeout: Int32 = 2000
    /// How long a stage of `upgrade` may run unless its `timeout` says otherwise:
    /// generous, since a live store can be far larger than any fixture.
    public static let defaultStageTimeout: Duration = .seconds(6 * 3600)
    /// `quick_check` reports at most this many problems in preflight.
    static let quickCheckLimit = 5
    /// Room kept free beyond the estimate: manifests, checksums, archive headers.
    static let spaceMargin: UInt64 = 1 << 20

    /// Upgrades the store at `storePath` to the configuration's current version.
    /// - Parameter configurationPath: where the configuration was read, recorded in
    ///   the marker so that `restore --pending` can check a migration against it.
    /// - Returns: the result; a failed stage or check is `.restored` (exit status 1).
    /// - Throws: ``FixtureKitError``: another run holds the store, it is in use,
    ///   its version unknown or newer, no chain of stages, not enough disk, the
    ///   backup could not be written (exit status 2); a failed `quick_check` (1);
    ///   a failed restore (2, the marker stays for the next run); SIGINT or
    ///   SIGTERM before the store was changed (``FixtureKitError/Category/interrupted``).
    public static func upgrade(store storePath: String, configuration: CorpusConfiguration, configurationPath: String, options: UpgradeOptions = UpgradeOptions()) throws(FixtureKitError) -> UpgradeResult {
        let what = "upgrade"
        let current = configuration.current
        var result = UpgradeResult(store: storePath, outcome: .current, to: current, stages: [], checks: [], removedBackups: [])
        _ = try openSet(storePath, what: what)
        let storeLock = try StoreLock.acquire(store: storePath, command: what, what: what)
        defer { storeLock?.release() }
        // A job a killed run left comes first.
        result.recovery = try finishPendingLocked(store: storePath, configuration: configuration, lockTimeout: options.lockTimeout, what: what)
        try stopIfCancelled(options.cancellation, storePath, "nothing was changed")

        let set = try openSet(storePath, what: what)
        let lock = try ExclusiveStore.open(storePath, timeout: options.lockTimeout, what: what)
        // From here to the end no other connection reads or writes the store.
        defer { lock.close() }
        let database = lock.database
        let (version, before) = try preflight(database, configuration: configuration, storePath: storePath, what: what)
        result.from = version
        let backups = options.backups ?? StoreBackup.defaultFolder(forStore: storePath)
        guard version != current else {
            // Left alone; the backups of earlier runs (one a killed run took) kept to N.
            result.removedBackups = prune(storePath, backups: backups, keep: options.keep, warnings: &result.warnings)
            return result
        }
        let (chain, gap) = configuration.chainOfStages(from: version, to: current)
        if let gap {
            throw FixtureKitError(what: what, path: storePath, why: "the store is at \(version), and there is no way to \(current): \(gap)", hint: "add the missing stage to the configuration")
        }
        result.stages = chain.map { "\($0.from) -> \($0.to)" }
        if let stage = chain.first(where: { $0.swift != nil }) {
            throw FixtureKitError(
                what: what, path: storePath,
                why: "stage \(stage.from) -> \(stage.to) is a Swift stage (\"swift\": \"\(stage.swift ?? "")\"): its code is the app's, which runs it itself; upgrade cannot")
        }
        // A stage that shipped runs only as fixturekit.lock records it.
        if let history = LockedHistory(configuration: configuration) {
            for stage in chain {
                guard let problem = history.stageProblem(stage) else { continue }
                throw FixtureKitError(
                    what: what, path: storePath, why: "stage \(stage.from) -> \(stage.to): \(problem)",
                    remedy: .verifyAgainstLock, category: .checkFailed, code: .lockMismatch)
            }
        }
        try checkSpace(set, backups: backups, options: options, what: what)
        let logs: ScratchFolder
        do { logs = try ScratchFolder() } catch {
            throw FixtureKitError(what: "\(what)", failed: error)
        }

        // The backup: the files as they are, read while the lock keeps them so.
        let backup: BackupArchive
        FaultInjection.reached(.phase("backup"), storePath)
        do {
            let (members, digests) = try memberDigests(set)
            backup = try StoreBackup.write(set, mode: .raw(members: members, digests: digests, contents: before), version: version, folder: backups)
        } catch {
            var failed = error.within("\(what): backup before migrate")
            if failed.hint == nil && failed.remedy == nil { failed.hint = "nothing was changed" }
            throw failed
        }
        result.backup = backup
        try stopIfCancelled(options.cancellation, storePath, "nothing was changed; the backup \(backup.path) is kept")
        var marker = UpgradeMarker(
            format: UpgradeMarker.currentFormat, phase: .migrating, store: set.storeName, backup: POSIX.absolutePath(backup.path),
            files: backup.files, from: version, to: current, configuration: POSIX.absolutePath(configurationPath),
            tables: before.tables, foreignKeyViolations: before.foreignKeyViolations, compareValues: options.compareValues ? nil : false)
        try writeMarker(marker, backup: backup.path, store: storePath)

        // The migration, on the live store.
        let absoluteStore = POSIX.absolutePath(storePath)
        let timeout = options.lockTimeout
        let stages = StageRunner(
            storePath: absoluteStore, logFolder: logs.path, database: lock.handOver(), timeout: options.stageTimeout, cancellation: options.cancellation
        ) { () throws(SQLiteError) in
            try ExclusiveStore.connect(absoluteStore, timeout: timeout)
        }
        var log: [String] = []
        FaultInjection.reached(.phase("stages"), storePath)
        // SQLite's `localtime` and `utc` read the process' time zone: the stages' own,
        // held while they run (``ZoneLease``: a probe in this process may want another).
        ZoneLease.shared.with(configuration.processTimeZone) {
            for stage in chain {
                if let reason = options.cancellation?.reason {
                    result.checks.append(CheckResult(.stage(from: stage.from, to: stage.to), passed: false, message: "not run: \(reason)"))
                    break
                }
                let failed = stages.run(stage, configuration: configuration, log: &log)
                result.checks.append(stages.result(stage, failed))
                if failed != nil { break }
            }
        }
        // The checks read the process' zone too (a configured check's `localtime`): the same lease.
        ZoneLease.shared.with(configuration.processTimeZone) {
            if result.checks.allSatisfy(\.passed) {
                do throws(SQLiteError) {
                    let migrated = try stages.open()
                    FaultInjection.reached(.phase("checks"), storePath)
                    // A cancellation (SIGINT or SIGTERM) interrupts the checks' statements.
                    let (checked, _) = migrated.withWatchdog(deadline: nil, cancellation: options.cancellation) { () -> [CheckResult] in
                        var checked = checks(migrated, configuration: configuration, from: version, marker: marker, storePath: storePath)
                        if options.compareValues, checked.allSatisfy(\.passed), options.cancellation?.isCancelled != true {
                            FaultInjection.reached(.phase("values"), storePath)
                            // Values that could not be compared: the check holds the error, it could not run.
                            let comparison = compareValues(migrated, storePath: storePath, backup: backup.path, configuration: configuration)
                            checked.append(comparison.check)
                            result.preservation = comparison.columns
                            result.preservationSeconds = comparison.seconds
                            result.valuesCompared = comparison.columns != nil
                        }
                        return checked
                    }
                    if case .success(let checked) = checked { result.checks += checked }
                } catch {
                    let why = ExclusiveStore.describe(error, what: what, path: storePath).why
                    result.checks.append(CheckResult(.lockMigratedStore, passed: false, message: why, error: error))
                }
            }
        }
        var failure = result.checks.first { !$0.passed }
        // What failed for want of the machine (a full disk, an I/O error) holds its error;
        // a stage program that failed on a full disk says only its status: the disk tells.
        if failure != nil, result.checks.contains(where: \.couldNotRun) || storeDiskIsFull(storePath) { result.couldNotRun = true }
        // Cancelled while the stages or the checks ran: what failed failed for it,
        // or the values were not compared for it (the checks before them done too
        // soon to be interrupted); either way the migration is not kept. Once every
        // check has passed, a cancellation does not undo the upgrade.
        if let reason = options.cancellation?.reason, failure != nil || (options.compareValues && !result.valuesCompared) {
            result.interrupted = reason.name
            failure = CheckResult(.upgrade, passed: false, message: "interrupted: \(reason)")
        }
        guard let failure else {
            try finish(&result, marker: &marker, stages: stages, backup: backup, options: options, backups: backups)
            return result
        }
        stages.close()
        try restore(&result, after: failure, marker: &marker, options: options, backups: backups)
        return result
    }

    /// Whether the file system holding the store is (nearly) full.
    static func storeDiskIsFull(_ storePath: String) -> Bool {
        guard let free = try? POSIX.availableSpace(at: AtomicFile.parentFolder(of: storePath)) else { return false }
        return free < ScratchFolder.fullBelow
    }

    /// Ends the run before anything of the store changed, once `cancellation` is cancelled (SIGINT or SIGTERM).
    /// - Throws: ``FixtureKitError`` (``FixtureKitError/Category/interrupted``) when it is.
    private static func stopIfCancelled(_ cancellation: Cancellation?, _ storePath: String, _ state: String) throws(FixtureKitError) {
        guard let reason = cancellation?.reason else { return }
        throw FixtureKitError(what: "upgrade", path: storePath, why: "interrupted: \(reason); \(state)", category: .interrupted)
    }

    /// Pins the backup, writes the marker, and the restore's marker ahead
    /// (``UpgradeMarker/prepareRestore(forStore:)``); undone when one of them fails.
    private static func writeMarker(_ marker: UpgradeMarker, backup: String, store storePath: String) throws(FixtureKitError) {
        do throws(FixtureKitError) {
            do { try BackupPin.write(archive: backup, store: storePath) } catch {
                throw FixtureKitError(what: "pin the backup", failed: error)
            }
            try marker.write(forStore: storePath)
            try marker.prepareRestore(forStore: storePath)
        } catch {
            try? UpgradeMarker.remove(forStore: storePath)
            BackupPin.remove(archive: backup, store: storePath)
            throw FixtureKitError(what: "upgrade: \(error.what)", path: error.path, why: error.why, hint: "nothing was changed; the backup \(backup) is kept", cause: error)
        }
    }

    /// Removes old backups beyond the last `keep`; what goes wrong is a warning:
    /// the upgrade's outcome is settled by then.
    static func prune(_ storePath: String, backups: String, keep: Int, warnings: inout [String]) -> [String] {
        do { return try StoreBackup.prune(store: storePath, in: backups, keep: keep) } catch {
            warnings.append("old backups were not removed: \(error.description)")
            return []
        }
    }
}
