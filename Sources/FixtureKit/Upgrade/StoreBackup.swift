import FixtureKitSystem
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

/// One backup archive of a live store.
public struct BackupArchive: Codable, Equatable, Sendable {
    /// The archive's path.
    public internal(set) var path: String
    /// The archive's SHA-256, as in its `.sha256` file.
    public var sha256: String
    /// The archive's size in bytes.
    public internal(set) var size: UInt64
    /// The files of the store set it holds, relative to the store's folder, and
    /// their SHA-256.
    public internal(set) var files: [String: String]
    /// The bytes of those files.
    public internal(set) var bytes: UInt64
    /// The store's version, as its manifest records it (`unknown` when no
    /// configuration told it).
    public internal(set) var version: String
    /// How it was taken: `raw` or `snapshot` (see ``StoreBackup``).
    public internal(set) var mode: String
}

/// What `fixturekit backup` did.
public struct BackupResult: Codable, Equatable, Sendable {
    public internal(set) var store: String
    public internal(set) var archive: BackupArchive
    /// Older backups removed to keep the last N.
    public internal(set) var removed: [String]
}

/// Backups of a live store: fixture archives (`manifest.json` and `SHA256SUMS`
/// inside, and a detached `.sha256`) in a backup folder, by default
/// `.fixturekit-backups/` beside the store, named `App.sqlite.backup-<UTC time>.tar.zst`.
///
/// Two ways to take one. `raw`, what `upgrade` does while it holds the store's
/// exclusive lock: the main file and its `-wal` as they are, byte for byte, so
/// that a restore gives back exactly the files that were there. `snapshot`, what
/// `fixturekit backup` does on a store an app may be writing: SQLite's online
/// backup API, one consistent copy with every committed transaction, the `-wal`'s
/// included, in one main file. Neither holds the `-shm` (SQLite's index of the
/// `-wal`, rebuilt by the first connection) nor a `-journal`.
///
/// Each archive is built in a hidden staging folder beside it, packed, read back
/// and checked against the digests of what was copied before it counts; leftovers
/// of a killed run are removed by the next one. Only the last N backups of a
/// store are kept (``defaultKeep``).
public enum StoreBackup {
    /// The backup folder's name beside the store.
    static let defaultFolderName = ".fixturekit-backups"
    /// How many backups of a store are kept.
    public static let defaultKeep = 3
    /// The version label of a backup taken without a configuration.
    static let unknownVersion = "unknown"
    /// Between the store's name and the time in a backup's name.
    static let nameInfix = ".backup-"
    /// Backups are zstd archives.
    static let format = ArchiveFormat.tarZstd
    /// The backup folder is private: it holds the user's data.
    static let folderMode: FileMode = 0o700

    /// `<store's folder>/.fixturekit-backups`.
    static func defaultFolder(forStore storePath: String) -> String {
        AtomicFile.parentFolder(of: storePath).appendingPath(defaultFolderName)
    }

    /// `fixturekit backup STORE`: a snapshot of the store into `folder`, verified,
    /// and the last `keep` backups of the store kept (see ``prune(store:in:keep:)``).
    /// Refused while an `upgrade` or `restore` of the store runs (``StoreLock``).
    /// - Throws: ``FixtureKitError``.
    public static func backup(store storePath: String, to folder: String? = nil, keep: Int = defaultKeep) throws(FixtureKitError) -> BackupResult {
        let what = "backup"
        let set = try StoreSet.locate(storePath)
        do { _ = try set.header() } catch {
            throw FixtureKitError(what: what, path: storePath, why: error.why, cause: error)
        }
        let storeLock = try StoreLock.acquire(store: storePath, command: what, what: what, required: false)
        defer { storeLock?.release() }
        let folder = folder ?? defaultFolder(forStore: storePath)
        do {
            let archive = try write(set, mode: .snapshot, version: unknownVersion, folder: folder)
            let removed = try prune(store: storePath, in: folder, keep: keep)
            return BackupResult(store: storePath, archive: archive, removed: removed)
        } catch {
            throw error.within(what)
        }
    }

    /// How ``write(_:mode:version:folder:)`` copies the store set.
    enum Mode {
        /// The files named, as they are; the caller holds the store's exclusive
        /// lock and gives each file's digest and the store's contents, read under it.
        case raw(members: [String], digests: [String: SHA256Digest], contents: StoreContents)
        /// SQLite's online backup API, and the `_SUPPORT` folder.
        case snapshot

        var name: String {
            switch self {
            case .raw: CaptureMode.raw.rawValue
            case .snapshot: CaptureMode.snapshot.rawValue
            }
        }
    }

    /// Writes one backup archive of `set` into `folder` and verifies it.
    /// - Throws: ``FixtureKitError``; nothing is left under the archive's name.
    static func write(_ set: StoreSet, mode: Mode, version: String, folder: String) throws(FixtureKitError) -> BackupArchive {
        let origin = try origin(of: set, mode: mode)
        let lock = try BackupFolderLock(folder: folder, store: set.storeName)
        defer { lock.release() }
        lock.removeLeftovers()
        let (name, staging) = try lock.freshName()
        let archivePath = folder.appendingPath(name)
        defer { ScratchFolder.remove(staging) }
        let sums: SHA256Sums
        let packed: PackResult
        do {
            try wrap("create folder", staging) { () throws(FileSystemError) in try POSIX.makeFolder(staging, mode: folderMode) }
            switch mode {
            case .raw(let members, _, _):
                for member in members {
                    try wrap("copy", set.folder.appendingPath(member)) { () throws(FileSystemError) in
                        if member == set.fileName(of: .support) {
                            try FileCopy.copyFolder(from: set.folder.appendingPath(member), to: staging.appendingPath(member))
                        } else {
                            try FileCopy.copy(from: set.folder.appendingPath(member), to: staging.appendingPath(member))
                        }
                    }
                }
            case .snapshot:
                try Capture.snapshot(set, to: staging.appendingPath(set.storeName))
                if set.has(.support) {
                    try wrap("copy", set.path(of: .support)) { () throws(FileSystemError) in
                        try FileCopy.copyFolder(from: set.path(of: .support), to: staging.appendingPath(set.fileName(of: .support)))
                    }
                }
            }
            var inspection: StoreInspection
            do throws(StoreError) {
                if case .raw(_, _, let contents) = mode {
                    // The very bytes of the store, whose contents the caller read under its lock.
                    inspection = try StoreInspection(storePath: staging.appendingPath(set.storeName), readContents: false)
                    inspection.contents = contents
                } else {
                    inspection = try StoreInspection(storePath: staging.appendingPath(set.storeName))
                }
            } catch {
                throw FixtureKitError(error)
            }
            var manifest = try Manifest(version: version, mode: mode.name, inspection: inspection)
            manifest.backup = origin
            try wrap("write manifest", staging) { () throws(FileSystemError) in
                try AtomicFile.write(manifest.rendered(), to: staging.appendingPath(Manifest.fileName))
            }
            sums = try Checksums.writeSums(for: staging)
            if case .raw(_, let digests, _) = mode {
                // The copies must be the very bytes of the store's files.
                for (file, digest) in digests.sorted(by: { $0.key < $1.key }) where sums.entries.first(where: { $0.path.description == file })?.digest != digest {
                    throw FixtureKitError(what: "copy", path: set.folder.appendingPath(file), why: "the copy differs from the file")
                }
            }
            var options = PackOptions(format: format, output: archivePath)
            options.fileMode = archiveMode(forStore: origin.files[set.storeName]?.permissions ?? 0o600)
            packed = try FixtureArchive.pack(staging, options: options)
        }
        ScratchFolder.remove(staging)
        return try verify(packed, sums: sums, store: set.storeName, version: version, mode: mode.name)
    }

    /// Reads the archive back: every entry against the `SHA256SUMS` inside it, and
    /// that one against what was written. A backup that fails is removed.
    private static func verify(_ packed: PackResult, sums: SHA256Sums, store: String, version: String, mode: String) throws(FixtureKitError) -> BackupArchive {
        let what = "verify backup"
        let archive = packed.archive
        func refuse(_ why: String) -> FixtureKitError {
            try? POSIX.removeFile(archive)
            try? POSIX.removeFile(archive + FixtureArchive.checksumSuffix)
            return FixtureKitError(what: what, path: archive, why: why)
        }
        let contents: ArchiveContents
        do {
            contents = try ArchiveLocale.withUTF8 { () throws(FixtureKitError) in
                try ArchiveScanner(archive: archive, what: what, limits: .unlimited).scan(into: nil)
            }
        } catch {
            throw refuse(error.why)
        }
        guard contents.verification.passed else {
            throw refuse("it fails its SHA256SUMS: " + FixtureArchive.summary(of: contents.verification.problems))
        }
        let read = Dictionary(contents.entries.compactMap { entry in entry.sha256.map { (entry.path, $0) } }, uniquingKeysWith: { first, _ in first })
        for entry in sums.entries where read[entry.path.description] != entry.digest.hex {
            throw refuse("\(entry.path.description) is not what was written")
        }
        var files: [String: String] = [:]
        var bytes: UInt64 = 0
        for entry in contents.entries where entry.kind == .file && isStoreFile(entry.path, store: store) {
            files[entry.path] = entry.sha256
            bytes += entry.size
        }
        return BackupArchive(path: archive, sha256: packed.sha256, size: packed.size, files: files, bytes: bytes, version: version, mode: mode)
    }

    /// Whether a path of a backup belongs to the store set: the main file, its
    /// sidecars, what is in its `_SUPPORT` folder (not `manifest.json`, `SHA256SUMS`).
    static func isStoreFile(_ path: String, store: String) -> Bool {
        let support = StoreSet.fileName(of: .support, storeName: store)
        return path == store || StoreSet.Sidecar.allCases.contains { $0 != .support && path == store + $0.rawValue }
            || path.hasPrefix(support + "/")
    }

    // MARK: - Origin

    /// A backup's mode: 0600, and never wider than the store's main file (a store
    /// readable by its owner alone stays so in its backup).
    static func archiveMode(forStore mode: FileMode) -> FileMode {
        0o600 & (mode | 0o400)
    }

    /// What the backup of `set` records of its origin: the store's identity, and
    /// the owner, group and mode of each file it holds and of the folders on the
    /// way to them (Core Data's `_SUPPORT` folder).
    static func origin(of set: StoreSet, mode: Mode) throws(FixtureKitError) -> BackupOrigin {
        var files: [String]
        switch mode {
        case .raw(_, let digests, _): files = Array(digests.keys)
        case .snapshot:
            files = [set.storeName]
            if set.has(.support) {
                let support = set.fileName(of: .support)
                do {
                    for item in try FolderListing.items(below: set.path(of: .support)) { files.append(support + "/" + item.path.description) }
                } catch {
                    throw FixtureKitError(failed: error)
                }
            }
        }
        var paths = Set(files)
        for file in files {
            var parts = file.split(separator: "/").dropLast()
            while !parts.isEmpty {
                paths.insert(parts.joined(separator: "/"))
                parts.removeLast()
            }
        }
        var owners: [String: FileOwnership] = [:]
        for path in paths {
            do { owners[path] = FileOwnership(try POSIX.lstat(set.folder.appendingPath(path))) } catch {
                throw FixtureKitError(failed: error)
            }
        }
        return BackupOrigin(store: BackupOrigin.identity(ofStore: set.storePath), files: owners)
    }
}

/// `flock` on `.<store>.backup.lock` in the backup folder, held while a backup of
/// the store is written or old ones removed: two runs never clean up each
/// other's work in progress.
final class BackupFolderLock {
    let folder: String
    let store: String
    private var fd: FileDescriptor?

    init(folder: String, store: String) throws(FixtureKitError) {
        self.folder = folder
        self.store = store
        let path = folder.appendingPath(".\(store).backup.lock")
        do throws(FileSystemError) {
            if try POSIX.lstatIfPresent(folder) == nil {
                try FixtureFolder.createFolders(AtomicFile.parentFolder(of: folder))
                try POSIX.createFolder(folder, mode: StoreBackup.folderMode, existing: true)
            }
            fd = try FileDescriptor.open(path, .readWrite, options: [.create, .noFollow], permissions: 0o600)
        } catch {
            throw FixtureKitError(failed: error)
        }
        guard (try? fd?.tryLock(.exclusive)) == true else {
            release()
            throw FixtureKitError(what: "lock", path: folder, why: "another backup of \(store) is being written there", hint: "wait for it, then try again")
        }
    }

    deinit { release() }

    func release() {
        try? fd?.close()
        fd = nil
    }

    /// A name for a new backup that is not taken, and its staging folder.
    func freshName() throws(FixtureKitError) -> (name: String, staging: String) {
        for sequence in 1...Self.maxSequence {
            let name = BackupName.make(store: store, sequence: sequence)
            let staging = folder.appendingPath(AtomicFile.temporaryPath(for: "." + name))
            if (try? POSIX.lstatIfPresent(folder.appendingPath(name))).flatMap({ $0 }) == nil,
               (try? POSIX.lstatIfPresent(staging)).flatMap({ $0 }) == nil {
                return (name, staging)
            }
        }
        throw FixtureKitError(what: "name", path: folder, why: "no free name for a new backup")
    }

    private static let maxSequence = 100

    /// Removes what a killed run left: staging folders, half-written archives.
    func removeLeftovers() {
        let temporary = AtomicFile.temporaryPath(for: "")
        for name in ((try? POSIX.listDirectory(folder)) ?? []).map({ String(pathBytes: $0) }) where name.hasSuffix(temporary) {
            if name.hasPrefix("." + store + StoreBackup.nameInfix) || name.hasPrefix(store + StoreBackup.nameInfix) {
                ScratchFolder.remove(folder.appendingPath(name))
            }
        }
    }
}
