import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitCrypto
import FixtureKitModels

extension Upgrade {
    /// The store set, or a one-line error.
    static func openSet(_ storePath: String, what: String) throws(FixtureKitError) -> StoreSet {
        do {
            let set = try StoreSet.locate(storePath)
            _ = try set.header()
            return set
        } catch {
            throw FixtureKitError(what: what, path: storePath, why: error.why, hint: error.hint, remedy: error.remedy, category: error.category, code: error.code, cause: error)
        }
    }

    /// `quick_check`, the version, the row counts and foreign key violations before.
    static func preflight(_ database: Database, configuration: CorpusConfiguration, storePath: String, what: String) throws(FixtureKitError) -> (String, StoreContents) {
        let problems: [String]
        do {
            problems = try database.rows("PRAGMA quick_check(\(quickCheckLimit))").compactMap { $0.first?.text }
        } catch {
            throw FixtureKitError(what: what, path: storePath, why: "quick_check: \(error.description)", category: .checkFailed, code: .integrityFailure)
        }
        guard problems == ["ok"] else {
            throw FixtureKitError(
                what: what, path: storePath, why: "quick_check: " + problems.joined(separator: "; "),
                hint: "the store is damaged: nothing was changed", category: .checkFailed, code: .integrityFailure)
        }
        let version: StoreVersion
        do { version = try configuration.storeVersion(of: database) } catch {
            throw FixtureKitError(what: what, path: storePath, why: error.why, hint: error.hint, remedy: error.remedy, cause: error)
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
            throw FixtureKitError(what: what, path: storePath, why: error.why, cause: error)
        }
        return (label, contents)
    }

    /// The files of the set that a backup holds (the main file, its `-wal`, its
    /// `_SUPPORT` folder: not the `-shm`, nor a `-journal`) and each file's digest.
    static func memberDigests(_ set: StoreSet) throws(FixtureKitError) -> ([String], [String: SHA256Digest]) {
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
                throw FixtureKitError(failed: error)
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
    /// set's size) in the backup folder, and beside the store for the migration
    /// (as much again: a stage may rewrite every table, into the `-wal` or a
    /// journal) and, when values are compared, the backup's copy they are compared
    /// with; three times the set's size when both are on one file system (the
    /// staging copy is gone before the comparison's copy is made).
    static func checkSpace(_ set: StoreSet, backups: String, options: UpgradeOptions, what: String) throws(FixtureKitError) {
        let size = set.storeSize + (set.present[.wal] ?? 0) + (set.present[.support] ?? 0)
        var backupFolder = backups
        while !FixtureLocator.isFolder(backupFolder), backupFolder != "/", backupFolder != "." {
            backupFolder = AtomicFile.parentFolder(of: backupFolder)
        }
        let sameDevice = (try? POSIX.device(of: backupFolder)) == (try? POSIX.device(of: set.folder))
        let beside = (options.compareValues ? 2 : 1) * size + spaceMargin
        var needs: [(String, UInt64)] = [(set.folder, beside)]
        if sameDevice {
            needs[0].1 += 2 * size + spaceMargin - (options.compareValues ? size : 0)
        } else {
            needs.append((backupFolder, 2 * size + spaceMargin))
        }
        for (folder, needed) in needs {
            guard let free = options.availableSpace(folder), free < needed else { continue }
            let (neededText, freeText) = ByteCount.describe(needed, free)
            throw FixtureKitError(
                what: what, path: set.storePath,
                why: "not enough free disk: the backup and the migration need \(neededText), \(freeText) free in \(folder)",
                remedy: .freeSpaceOrMoveBackups)
        }
    }
}
