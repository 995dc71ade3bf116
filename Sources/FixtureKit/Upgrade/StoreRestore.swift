import FixtureKitSystem
import FixtureKitCrypto
import FixtureKitModels

/// What a restore put in place.
public struct RestoreResult: Codable, Equatable, Sendable {
    /// The store's main file.
    public internal(set) var store: String
    /// The archive restored.
    public internal(set) var archive: String
    /// The files put in place, relative to the store's folder.
    public internal(set) var files: [String]
    /// The replaced set's files that were removed first (`-wal`, `-shm`, `-journal`).
    public internal(set) var removed: [String]
    /// What of the files' owners and modes could not be put back, and why
    /// (`owner 1000:1000 of App.sqlite not restored: operation not permitted`).
    public internal(set) var warnings: [String] = []
    /// The restored store's content hash (`fixturekit hash`), read from a copy of
    /// it; `nil` when SQLite cannot read it.
    public internal(set) var contentHash: String? = nil
}

/// Puts a backup archive back in place of a store set.
///
/// The archive is extracted and verified (every file against its `SHA256SUMS`)
/// into a hidden folder beside the store, on the same file system, before
/// anything of the store is touched; a marker beside the store
/// (``UpgradeMarker``, phase `restoring`) then records the restore, so that a
/// process killed half-way is finished by the next `restore --pending` or
/// `upgrade`. The files go in by `rename`, in the order ``replace(_:from:sourceStore:)``
/// explains, and are verified in place against the archive's digests.
///
/// The archive's main file may have another name than the store: its sidecars
/// follow the store's name. The archive's `-shm` and `-journal`, when it has
/// them, are not put back: SQLite rebuilds the `-shm` from the `-wal`, and a
/// `-journal` would roll changes back into the restored file.
public enum StoreRestore {
    /// `.App.sqlite.fixturekit-restore` beside the store, mode 0700: where the
    /// archive is extracted (into its `set` folder), out of other users' reach.
    static func extractionFolder(forStore storePath: String) -> String {
        let name = storePath.split(separator: "/").last.map(String.init) ?? storePath
        return AtomicFile.parentFolder(of: storePath).appendingPath("." + name + ".fixturekit-restore")
    }

    /// `fixturekit restore FILE STORE`: verifies the archive, refuses a store that
    /// another process has open, and replaces the store set with the archive's.
    /// Refused while an `upgrade`, `backup` or another `restore` of the store runs
    /// (``StoreLock``).
    /// - Throws: ``FixtureKitError``: the archive fails its checksums (exit status
    ///   1, nothing changed); it is unreadable or holds no store, the store is in
    ///   use, a file cannot be written (2).
    public static func restore(archive: String, store storePath: String) throws(FixtureKitError) -> RestoreResult {
        let what = "restore"
        let storePath = storePath.trimmingTrailingSlashes
        let storeName = storePath.split(separator: "/").last.map(String.init) ?? storePath
        guard storeName.isSafeFileName, storeName != "/" else {
            throw FixtureKitError(what: what, path: storePath, why: "not a store's file name", category: .usage)
        }
        let existing: FileStatus?
        do { existing = try POSIX.lstatIfPresent(storePath) } catch {
            throw FixtureKitError(what: "\(what)", failed: error)
        }
        if let existing, existing.kind != .regular {
            throw FixtureKitError(what: what, path: storePath, why: FileKind.describe(existing.mode))
        }
        let storeLock = try StoreLock.acquire(store: storePath, command: what, what: what)
        defer { storeLock?.release() }
        // The archive first: a damaged one is refused before the store is looked at.
        let extracted = try extract(archive, forStore: storePath, what: what)
        defer { ScratchFolder.remove(extracted.root) }
        if existing != nil, ExclusiveStore.isInUse(storePath) {
            throw FixtureKitError(what: what, path: storePath, why: "in use by another process", hint: "close the app that uses the store, then restore again", code: .storeBusy)
        }
        let marker = UpgradeMarker(
            format: UpgradeMarker.currentFormat, phase: .restoring, store: storeName, backup: POSIX.absolutePath(archive),
            files: extracted.targetDigests(storeName: storeName))
        // Pinned while the marker names it, so that no pruning removes it; a
        // folder this run cannot write to, no run of the same user can prune either.
        do { try BackupPin.write(archive: archive, store: storePath) } catch where [.permissionDenied, .readOnlyFileSystem, .notPermitted].contains(error.code) {
        } catch {
            throw FixtureKitError(what: "\(what): pin the backup", failed: error, hint: "nothing was changed")
        }
        try marker.write(forStore: storePath)
        var result = try replaceAndVerify(storePath, from: extracted, archive: archive)
        try UpgradeMarker.remove(forStore: storePath)
        BackupPin.remove(archive: archive, store: storePath)
        result.contentHash = (try? StoreSet(storePath: storePath)).flatMap { try? ContentHash.ofStore($0, what: what).hex }
        return result
    }

    /// Restores the backup a marker names; the marker must already say `restoring`.
    ///
    /// The store set is being replaced, and is not to be trusted meanwhile: when
    /// the archive cannot be extracted (a failed migration may have filled the
    /// disk), the set's `-wal`, `-shm` and `-journal` are removed first, which
    /// ``replace(_:from:sourceStore:)`` would do anyway, and it is tried again.
    static func restore(_ marker: UpgradeMarker, store storePath: String, what: String) throws(FixtureKitError) -> RestoreResult {
        var removedFirst: [String] = []
        let extracted: Extracted
        do {
            extracted = try extract(marker.backup, forStore: storePath, what: what)
        } catch {
            do { removedFirst = try removeSidecars(storePath) } catch {
                throw FixtureKitError(what: "\(what)", failed: error)
            }
            guard !removedFirst.isEmpty else { throw error }
            extracted = try extract(marker.backup, forStore: storePath, what: what)
        }
        defer { ScratchFolder.remove(extracted.root) }
        let digests = extracted.targetDigests(storeName: marker.store)
        guard digests == marker.files else {
            throw FixtureKitError(what: what, path: marker.backup, why: "the archive does not hold the store set the marker records", remedy: .restoreByHand)
        }
        var result = try replaceAndVerify(storePath, from: extracted, archive: marker.backup)
        result.removed = (removedFirst + result.removed).sorted { Self.sidecarOrder($0) < Self.sidecarOrder($1) }
        return result
    }

    /// Where a sidecar's name is listed among those removed: `-wal`, `-shm`, `-journal`.
    private static func sidecarOrder(_ name: String) -> Int {
        [StoreSet.Sidecar.wal, .shm, .journal].firstIndex { name.hasSuffix($0.rawValue) } ?? 3
    }

    // MARK: - Extraction

    /// An archive extracted beside the store.
    struct Extracted {
        /// The private folder beside the store, removed afterwards.
        let root: String
        /// The archive's files, below `root`.
        let folder: String
        /// The archive's store's file name.
        let sourceStore: String
        /// The store set's files in the archive and their digests, relative to `folder`.
        let digests: [String: String]
        /// What the archive's manifest records of its origin (a backup's), if anything.
        let origin: BackupOrigin?

        /// `digests` under the store's own names.
        func targetDigests(storeName: String) -> [String: String] {
            Dictionary(digests.map { (StoreRestore.targetName($0.key, from: sourceStore, to: storeName), $0.value) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// Extracts and verifies `archive` into the extraction folder beside the store
    /// (a folder left there by a killed run is replaced).
    private static func extract(_ archive: String, forStore storePath: String, what: String) throws(FixtureKitError) -> Extracted {
        let root = extractionFolder(forStore: storePath)
        let folder = root.appendingPath("set")
        ScratchFolder.remove(root)
        do { try POSIX.makeFolder(root, mode: 0o700) } catch {
            throw FixtureKitError(what: "\(what)", failed: error, hint: "nothing was changed")
        }
        let result: UnpackResult
        do {
            result = try FixtureArchive.unpack(archive, to: folder)
        } catch {
            ScratchFolder.remove(root)
            throw FixtureKitError(what: what, path: error.path ?? archive, why: error.why, hint: error.hint ?? (error.remedy == nil ? "nothing was changed" : nil), remedy: error.remedy, category: error.category, code: error.code, cause: error)
        }
        guard result.extracted else {
            ScratchFolder.remove(root)
            throw FixtureKitError(
                what: what, path: archive, why: "the archive fails its SHA256SUMS: " + FixtureArchive.summary(of: result.contents.verification.problems),
                remedy: .verify(path: archive, nothingChanged: true), category: .checkFailed, code: .checksumMismatch)
        }
        let store: String
        do {
            store = String(try FixtureLocator.storePath(inFixture: folder).split(separator: "/").last ?? "")
        } catch {
            ScratchFolder.remove(root)
            throw FixtureKitError(what: what, path: archive, why: "holds no store: \(error.why)")
        }
        var digests: [String: String] = [:]
        for entry in result.contents.entries where entry.kind == .file && isRestored(entry.path, store: store) {
            digests[entry.path] = entry.sha256
        }
        return Extracted(root: root, folder: folder, sourceStore: store, digests: digests, origin: recordedOrigin(in: folder))
    }

    /// Whether a file of an archive is put back: the main file, its `-wal`, what
    /// is in its `_SUPPORT` folder.
    static func isRestored(_ path: String, store: String) -> Bool {
        path == store || path == store + StoreSet.Sidecar.wal.rawValue
            || path.hasPrefix(StoreSet.fileName(of: .support, storeName: store) + "/")
    }

    /// A path of the archive's store set under the name of the store restored to.
    static func targetName(_ path: String, from source: String, to target: String) -> String {
        let sourceSupport = StoreSet.fileName(of: .support, storeName: source)
        if path.hasPrefix(sourceSupport + "/") {
            return StoreSet.fileName(of: .support, storeName: target) + path.dropFirst(sourceSupport.count)
        }
        return path.hasPrefix(source) ? target + path.dropFirst(source.count) : path
    }

    // MARK: - Replacing

    /// Replaces the store set with the extracted one, then checks every file put
    /// in place against the archive's digests.
    private static func replaceAndVerify(_ storePath: String, from extracted: Extracted, archive: String) throws(FixtureKitError) -> RestoreResult {
        let what = "restore"
        let warnings = applyOwnership(storePath, extracted: extracted)
        let removed: [String]
        do {
            removed = try replace(storePath, from: extracted.folder, sourceStore: extracted.sourceStore)
        } catch {
            throw FixtureKitError(what: "\(what)", failed: error, remedy: .finishPendingRestore(store: storePath, .finishes))
        }
        let storeName = storePath.split(separator: "/").last.map(String.init) ?? storePath
        let expected = extracted.targetDigests(storeName: storeName)
        let folder = AtomicFile.parentFolder(of: storePath)
        let present = try storeSetFiles(storePath)
        for (file, digest) in expected.sorted(by: { $0.key < $1.key }) {
            let actual = try? FileHasher().digest(ofFileAt: folder.appendingPath(file)).digest.hex
            guard actual == digest else {
                throw FixtureKitError(what: "\(what): verify", path: folder.appendingPath(file), why: actual == nil ? "missing after the restore" : "changed: it differs from the backup")
            }
        }
        if let extra = present.subtracting(expected.keys).sorted().first {
            throw FixtureKitError(what: "\(what): verify", path: folder.appendingPath(extra), why: "unlisted: not part of the backup")
        }
        return RestoreResult(store: storePath, archive: archive, files: expected.keys.sorted(), removed: removed, warnings: warnings)
    }

    /// The files of the store set as restores count them: main file, `-wal`, the `_SUPPORT` folder's files.
    private static func storeSetFiles(_ storePath: String) throws(FixtureKitError) -> Set<String> {
        let storeName = storePath.split(separator: "/").last.map(String.init) ?? storePath
        let folder = AtomicFile.parentFolder(of: storePath)
        var files: Set<String> = []
        for name in [storeName, storeName + StoreSet.Sidecar.wal.rawValue] where (try? POSIX.lstatIfPresent(folder.appendingPath(name))).flatMap({ $0 }) != nil {
            files.insert(name)
        }
        let support = StoreSet.fileName(of: .support, storeName: storeName)
        if FixtureLocator.isFolder(folder.appendingPath(support)) {
            do {
                for item in try FolderListing.items(below: folder.appendingPath(support)) { files.insert(support + "/" + item.path.description) }
            } catch {
                throw FixtureKitError(what: "restore: verify", failed: error)
            }
        }
        return files
    }

    /// Puts the store set extracted in `source` in place of the one at `storePath`.
    ///
    /// The order is what makes it safe:
    /// 1. The replaced set's `-wal`, `-shm` and `-journal` go first, while the main
    ///    file is still the one they belong to. A `-wal` holds pages of its own
    ///    database's later states, and SQLite copies them over whatever main file
    ///    it finds under the name when it next opens the store; a hot `-journal`
    ///    holds pages it rolls back into it; a `-shm` indexes that `-wal`. Left
    ///    until after the main file is replaced, any of them would be replayed
    ///    into the restored file and corrupt it.
    /// 2. The main file, by `rename` over the old one: the name always holds one
    ///    whole file, the old or the restored.
    /// 3. The `-wal`, after the main file: between the two renames the store is the
    ///    backup's main file alone, a consistent earlier state of the same
    ///    database; the other order would pair the backup's log with the replaced
    ///    main file.
    /// 4. The `_SUPPORT` folder, exchanged with the old one in one step.
    ///
    /// The folder is flushed after each step. The caller holds a marker in phase
    /// `restoring` throughout: a run killed between two steps is redone from the
    /// start by the next one, and every step can be repeated.
    /// - Returns: the names of the sidecars removed in step 1.
    static func replace(_ storePath: String, from source: String, sourceStore: String) throws(FileSystemError) -> [String] {
        let folder = AtomicFile.parentFolder(of: storePath)
        let storeName = storePath.split(separator: "/").last.map(String.init) ?? storePath
        let removed = try removeSidecars(storePath)

        try POSIX.rename(source.appendingPath(sourceStore), storePath)
        try POSIX.fsyncDirectory(folder)

        let wal = source.appendingPath(StoreSet.fileName(of: .wal, storeName: sourceStore))
        if try POSIX.lstatIfPresent(wal) != nil {
            try POSIX.rename(wal, folder.appendingPath(StoreSet.fileName(of: .wal, storeName: storeName)))
            try POSIX.fsyncDirectory(folder)
        }

        let support = source.appendingPath(StoreSet.fileName(of: .support, storeName: sourceStore))
        let targetSupport = folder.appendingPath(StoreSet.fileName(of: .support, storeName: storeName))
        let hasSupport = try POSIX.lstatIfPresent(support) != nil
        let hadSupport = try POSIX.lstatIfPresent(targetSupport) != nil
        switch (hasSupport, hadSupport) {
        case (true, true):
            try POSIX.exchange(support, targetSupport)
            try POSIX.removeTree(support)
        case (true, false):
            try POSIX.rename(support, targetSupport)
        case (false, true):
            // The backed-up set had none: the folder came with what is replaced.
            try POSIX.removeTree(targetSupport)
        case (false, false):
            break
        }
        if hasSupport || hadSupport { try POSIX.fsyncDirectory(folder) }
        return removed
    }

    /// Removes the `-wal`, `-shm` and `-journal` of the store at `storePath` and
    /// flushes its folder: step 1 of ``replace(_:from:sourceStore:)``.
    /// - Returns: the names of those that were there.
    static func removeSidecars(_ storePath: String) throws(FileSystemError) -> [String] {
        let folder = AtomicFile.parentFolder(of: storePath)
        let storeName = storePath.split(separator: "/").last.map(String.init) ?? storePath
        var removed: [String] = []
        for sidecar in [StoreSet.Sidecar.wal, .shm, .journal] {
            let path = folder.appendingPath(StoreSet.fileName(of: sidecar, storeName: storeName))
            if try POSIX.lstatIfPresent(path) != nil {
                try POSIX.unlinkIfPresent(path)
                removed.append(StoreSet.fileName(of: sidecar, storeName: storeName))
            }
        }
        try POSIX.fsyncDirectory(folder)
        return removed
    }
}
