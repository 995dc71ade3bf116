#if canImport(Glibc)
import Glibc
#endif

/// How ``Upgrade/upgrade(store:configuration:configurationPath:options:)`` works.
public struct UpgradeOptions: Sendable {
    /// The backup folder; `nil` for ``StoreBackup/defaultFolder(forStore:)``.
    public var backups: String?
    /// How many backups of the store are kept (at least 1).
    public var keep: Int
    /// How long a store another process holds is waited for, in milliseconds.
    public var lockTimeout: Int32
    /// The free bytes of the file system holding a folder; `nil` when unknown.
    /// `statvfs` unless a test says otherwise.
    var availableSpace: @Sendable (String) -> UInt64?

    public init(backups: String? = nil, keep: Int = StoreBackup.defaultKeep, lockTimeout: Int32 = Upgrade.defaultLockTimeout) {
        self.backups = backups
        self.keep = keep
        self.lockTimeout = lockTimeout
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
    public var store: String
    public var outcome: Outcome
    /// The version the store was at.
    public var from: String?
    /// The current version.
    public var to: String
    /// The stages of the chain, `2.0.0 -> 3.0.0` each.
    public var stages: [String]
    /// The backup taken before the store was touched.
    public var backup: BackupArchive?
    /// Every stage and check, passed or not, in order.
    public var checks: [CheckResult]
    /// The one that failed, when the backup was restored.
    public var failure: CheckResult?
    /// The restore of the backup, when there was one.
    public var restore: RestoreResult?
    /// What was done about an upgrade a killed run left, before this one.
    public var recovery: PendingRecovery?
    /// Older backups removed to keep the last N.
    public var removedBackups: [String]
}

/// What was done about an interrupted upgrade or restore (a marker left beside the store).
public struct PendingRecovery: Codable, Equatable, Sendable {
    public enum Outcome: String, Codable, Sendable {
        /// The store set was put back from the backup.
        case restored
        /// The migration had committed and passes its checks: the store stays migrated.
        case confirmed
    }

    public var outcome: Outcome
    /// The phase the marker recorded: `migrating`, `migrated`, `restoring`.
    public var phase: String
    /// The backup archive the marker named.
    public var backup: String
    public var from: String?
    public var to: String?
    /// Why the migration was not kept, when the backup was restored.
    public var reason: String?
    public var restore: RestoreResult?
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
public enum Upgrade {
    /// How long a store that another connection holds is retried, in
    /// milliseconds: a short write of an app passes, a store an app keeps open is refused.
    public static let defaultLockTimeout: Int32 = 2000
    /// `quick_check` reports at most this many problems in preflight.
    static let quickCheckLimit = 5
    /// Room kept free beyond the estimate: manifests, checksums, archive headers.
    static let spaceMargin: UInt64 = 1 << 20

    /// Upgrades the store at `storePath` to the configuration's current version.
    /// - Parameter configurationPath: where the configuration was read, recorded in
    ///   the marker so that `restore --pending` can check a migration against it.
    /// - Returns: the result; a failed stage or check is `.restored` (exit status 1).
    /// - Throws: ``FixtureKitError``: the store is in use, its version unknown or
    ///   newer, no chain of stages, not enough disk, the backup could not be written
    ///   (exit status 2); a failed `quick_check` (1); a failed restore (2, the
    ///   marker stays for the next run).
    public static func upgrade(store storePath: String, configuration: CorpusConfiguration, configurationPath: String, options: UpgradeOptions = UpgradeOptions()) throws(FixtureKitError) -> UpgradeResult {
        let what = "upgrade"
        let current = configuration.current
        var result = UpgradeResult(store: storePath, outcome: .current, to: current, stages: [], checks: [], removedBackups: [])
        _ = try openSet(storePath, what: what)
        // A job a killed run left comes first.
        result.recovery = try finishPending(store: storePath, configuration: configuration, lockTimeout: options.lockTimeout, what: what)

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
            if FixtureLocator.isFolder(backups) { result.removedBackups = try prune(set, backups: backups, keep: options.keep, what: what) }
            return result
        }
        let (chain, gap) = configuration.chainOfStages(from: version, to: current)
        if let gap {
            throw FixtureKitError(what: what, path: storePath, why: "the store is at \(version), and there is no way to \(current): \(gap)", hint: "add the missing stage to the configuration")
        }
        result.stages = chain.map { "\($0.from) -> \($0.to)" }
        // A stage that shipped runs only as fixturekit.lock records it.
        if let history = LockedHistory(configuration: configuration) {
            for stage in chain {
                guard let problem = history.stageProblem(stage) else { continue }
                throw FixtureKitError(
                    what: what, path: storePath, why: "stage \(stage.from) -> \(stage.to): \(problem)",
                    hint: "nothing was changed; `fixturekit verify` lists every difference from the lock", category: .checkFailed)
            }
        }
        try checkSpace(set, backups: backups, options: options, what: what)

        // The backup: the files as they are, read while the lock keeps them so.
        let backup: BackupArchive
        do {
            let (members, digests) = try memberDigests(set)
            backup = try StoreBackup.write(set, mode: .raw(members: members, digests: digests, contents: before), version: version, folder: backups)
        } catch {
            throw error.within("\(what): backup before migrate")
        }
        result.backup = backup
        var marker = UpgradeMarker(
            format: UpgradeMarker.currentFormat, phase: .migrating, store: set.storeName, backup: POSIX.absolutePath(backup.path),
            files: backup.files, from: version, to: current, configuration: POSIX.absolutePath(configurationPath),
            tables: before.tables, foreignKeyViolations: before.foreignKeyViolations)
        try marker.write(forStore: storePath)

        // The migration, on the live store.
        let logs: ScratchFolder
        do { logs = try ScratchFolder() } catch {
            throw FixtureKitError(what: "\(what): \(error.operation)", path: error.path, why: error.reason)
        }
        let absoluteStore = POSIX.absolutePath(storePath)
        let timeout = options.lockTimeout
        let stages = StageRunner(storePath: absoluteStore, logFolder: logs.path, database: lock.handOver()) { () throws(SQLiteError) in
            try ExclusiveStore.connect(absoluteStore, timeout: timeout)
        }
        var log: [String] = []
        for stage in chain {
            let name = "stage \(stage.from) -> \(stage.to)"
            if let failed = stages.run(stage, configuration: configuration, log: &log) {
                result.checks.append(CheckResult(name: name, passed: false, message: failed.message, statement: failed.statement))
                break
            }
            result.checks.append(CheckResult(name: name, passed: true))
        }
        if result.checks.allSatisfy(\.passed) {
            do {
                let migrated = try stages.open()
                result.checks += checks(migrated, configuration: configuration, from: version, marker: marker)
            } catch {
                let why = ExclusiveStore.describe(error, what: what, path: storePath).why
                result.checks.append(CheckResult(name: "lock the store after the stages", passed: false, message: why))
            }
        }
        let failure = result.checks.first { !$0.passed }

        guard let failure else {
            marker.phase = .migrated
            try marker.write(forStore: storePath)
            // The migrated store whole in its main file, as a fresh install leaves it.
            if let migrated = try? stages.open() {
                _ = try? migrated.checkpoint(.truncate)
                // The set keeps its shape: a store that had no -wal gets none. Still
                // under the lock, so no other connection can be using the log.
                let wal = set.path(of: .wal)
                if backup.files[set.fileName(of: .wal)] == nil, let info = try? POSIX.lstatIfPresent(wal), info.st_size == 0 {
                    unlink(wal)
                }
            }
            stages.close()
            try UpgradeMarker.remove(forStore: storePath)
            result.outcome = .upgraded
            result.removedBackups = try prune(set, backups: backups, keep: options.keep, what: what)
            return result
        }

        // Something failed: the backup goes back.
        stages.close()
        marker.phase = .restoring
        try marker.write(forStore: storePath)
        // Only over a store nobody else has open: a process that got in while a
        // program stage ran keeps the restore pending.
        if ExclusiveStore.isInUse(storePath, timeout: options.lockTimeout) {
            throw FixtureKitError(
                what: what, path: storePath, why: "\(failure.name) failed, and another process has opened the store since: the backup is not restored yet",
                hint: "close the app that uses the store, then `fixturekit restore --pending \(storePath)` restores it")
        }
        do {
            result.restore = try StoreRestore.restore(marker, store: storePath, what: "restore")
            result.restore?.archive = backup.path
        } catch {
            throw FixtureKitError(
                what: what, path: storePath, why: "\(failure.name) failed, and restoring the backup failed too: \(error.description)",
                hint: "the store set may be half-restored; `fixturekit restore --pending \(storePath)` finishes the restore")
        }
        try UpgradeMarker.remove(forStore: storePath)
        result.outcome = .restored
        result.failure = failure
        result.removedBackups = try prune(set, backups: backups, keep: options.keep, what: what)
        return result
    }

    /// The store set, or a one-line error.
    private static func openSet(_ storePath: String, what: String) throws(FixtureKitError) -> StoreSet {
        do {
            let set = try StoreSet(storePath: storePath)
            _ = try set.readHeader()
            return set
        } catch {
            throw FixtureKitError(what: what, path: storePath, why: error.why, hint: error.hint, category: error.category)
        }
    }

    /// `quick_check`, the version, the row counts and foreign key violations before.
    private static func preflight(_ database: Database, configuration: CorpusConfiguration, storePath: String, what: String) throws(FixtureKitError) -> (String, StoreContents) {
        let problems: [String]
        do {
            problems = try database.rows("PRAGMA quick_check(\(quickCheckLimit))").compactMap { $0.first?.text }
        } catch {
            throw FixtureKitError(what: what, path: storePath, why: "quick_check: \(error.description)", category: .checkFailed)
        }
        guard problems == ["ok"] else {
            throw FixtureKitError(
                what: what, path: storePath, why: "quick_check: " + problems.joined(separator: "; "),
                hint: "the store is damaged: nothing was changed", category: .checkFailed)
        }
        let version: StoreVersion
        do { version = try configuration.storeVersion(of: database) } catch {
            throw FixtureKitError(what: what, path: storePath, why: error.why, hint: error.hint)
        }
        if version.isNewer {
            throw FixtureKitError(
                what: what, path: storePath, why: "the store is at \(version.description), newer than the current version \(configuration.current): refused",
                hint: "a store is never taken back to an older version; upgrade it with a newer build")
        }
        guard let label = version.label else {
            throw FixtureKitError(what: what, path: storePath, why: "cannot tell the store's version from \(version.evidence)")
        }
        let contents: StoreContents
        do { contents = try StoreContents(database: database) } catch {
            throw FixtureKitError(what: what, path: storePath, why: error.why)
        }
        return (label, contents)
    }

    /// The files of the set that a backup holds (the main file, its `-wal`, its
    /// `_SUPPORT` folder: not the `-shm`, nor a `-journal`) and each file's digest.
    private static func memberDigests(_ set: StoreSet) throws(FixtureKitError) -> ([String], [String: SHA256Digest]) {
        var members = [set.storeName]
        var files = [set.storeName]
        if set.has(.wal) {
            members.append(set.fileName(of: .wal))
            files.append(set.fileName(of: .wal))
        }
        if set.has(.support) {
            let support = set.fileName(of: .support)
            members.append(support)
            do {
                for item in try FolderListing.items(below: set.path(of: .support)) { files.append(support + "/" + item.path.description) }
            } catch {
                throw FixtureKitError(what: error.operation, path: error.path, why: error.reason)
            }
        }
        var digests: [String: SHA256Digest] = [:]
        for (index, outcome) in ParallelHasher.digests(of: files.map { set.folder.appendingPath($0) }).enumerated() {
            switch outcome {
            case .success(let file): digests[files[index]] = file.digest
            case .failure(let error): throw FixtureKitError.wrapping(error, what: "hash", path: set.folder.appendingPath(files[index]))
            }
        }
        return (members, digests)
    }

    /// Room for the backup (its staging copy and the archive, each at most the
    /// set's size) in the backup folder, and for the migration (as much again:
    /// a stage may rewrite every table, into the `-wal` or a journal) beside the
    /// store; three times the set's size when both are on one file system.
    private static func checkSpace(_ set: StoreSet, backups: String, options: UpgradeOptions, what: String) throws(FixtureKitError) {
        let size = set.storeSize + (set.present[.wal] ?? 0) + (set.present[.support] ?? 0)
        var backupFolder = backups
        while !FixtureLocator.isFolder(backupFolder), backupFolder != "/", backupFolder != "." {
            backupFolder = AtomicFile.parentFolder(of: backupFolder)
        }
        let sameDevice = (try? POSIX.device(of: backupFolder)) == (try? POSIX.device(of: set.folder))
        var needs: [(String, UInt64)] = [(set.folder, size + spaceMargin)]
        if sameDevice {
            needs[0].1 += 2 * size + spaceMargin
        } else {
            needs.append((backupFolder, 2 * size + spaceMargin))
        }
        for (folder, needed) in needs {
            guard let free = options.availableSpace(folder), free < needed else { continue }
            throw FixtureKitError(
                what: what, path: set.storePath,
                why: "not enough free disk: the backup and the migration need \(ByteCount.describe(needed)), \(ByteCount.describe(free)) free in \(folder)",
                hint: "free some space, or put the backups on another disk with --backups DIR")
        }
    }

    private static func prune(_ set: StoreSet, backups: String, keep: Int, what: String) throws(FixtureKitError) -> [String] {
        do { return try StoreBackup.prune(store: set.storeName, in: backups, keep: keep) } catch {
            throw error.within(what)
        }
    }
}
