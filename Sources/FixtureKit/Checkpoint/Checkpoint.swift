import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// Folding a WAL into its main file: for a fixture, on a copy that replaces it;
/// for a live store, in place.
public enum Checkpoint {
    /// What a checkpoint of a fixture did.
    public struct FixtureResult: Sendable {
        public internal(set) var fixture: String
        /// The sidecars the fixture held before, now folded in and removed.
        public internal(set) var removedSidecars: [String]
        /// Committed WAL frames folded into the main file.
        public internal(set) var foldedFrames: Int
        public internal(set) var manifest: Manifest
        /// The lines of `fixturekit.lock` rewritten (`--force` on a locked fixture):
        /// `sums` changes with the bytes, `content` stays.
        public internal(set) var lock: [LockEdit] = []
    }

    /// Folds a fixture's WAL into its main file: the store set is copied into a
    /// staging folder beside the fixture, checkpointed there (TRUNCATE) and
    /// closed, its `-wal` and `-shm` dropped; manifest.json and SHA256SUMS are
    /// rewritten, and the staging folder replaces the fixture in one rename.
    ///
    /// The fixture must verify first: a checkpoint of damaged bytes would hide the
    /// damage. The store's content hash is the same before and after (the bytes
    /// change, the content does not): the manifest records it, and a fixture that
    /// `fixturekit.lock` locks is refused unless `force`, which rewrites its `sums`
    /// line and keeps its `content` line.
    /// - Throws: ``FixtureKitError``.
    public static func checkpointFixture(_ folder: String, force: Bool = false) throws(FixtureKitError) -> FixtureResult {
        let lockTarget = try CorpusLock.guardRewrite(of: folder, what: "checkpoint", force: force)
        try Verifier.requireVerified(folder, .problemCount(what: "checkpoint"))
        let old: Manifest
        do {
            old = try Manifest.decode(try POSIX.readFile(folder.appendingPath(Manifest.fileName)))
        } catch {
            throw FixtureKitError(what: "checkpoint", path: folder.appendingPath(Manifest.fileName), why: "cannot read the manifest: \(JSONDecoderFactory.describe(error))")
        }
        let set = try StoreSet.locate(folder.appendingPath(old.store))
        let foldedFrames = set.has(.wal) ? ((try? WALFile(path: set.path(of: .wal)))?.committedFrames ?? 0) : 0
        let staging: String
        do { staging = try FixtureFolder.prepareStaging(for: folder) } catch {
            throw FixtureKitError(what: "checkpoint", failed: error)
        }
        do throws(FixtureKitError) {
            try wrap("copy", set.storePath) { () throws(FileSystemError) in try set.copyMembers(to: staging, sync: true) }
            let staged = staging.appendingPath(set.storeName)
            do {
                let database = try Database(path: staged, options: .init(busyTimeout: 0))
                _ = try database.checkpoint(.truncate)
                try database.close()
            } catch {
                throw FixtureKitError(what: "checkpoint", path: set.storePath, why: error.description, cause: error)
            }
            // Closing the last connection removes them; a copy that kept them must not.
            for sidecar in [StoreSet.Sidecar.wal, .shm] { try? POSIX.unlinkIfPresent(staging.appendingPath(set.fileName(of: sidecar))) }
            try wrap("sync", staged) { () throws(FileSystemError) in try POSIX.fsyncFile(staged) }
            let inspection = try StoreInspection(set: try StoreSet.locate(staged), readContents: true, access: .ownedFileImmutable, hashContent: true)
            var manifest = try Manifest(version: old.version, mode: old.capture.mode, inspection: inspection)
            // What the store's bytes cannot tell is carried over: how the fixture was anonymized.
            manifest.anonymization = old.anonymization
            manifest.backup = old.backup
            if let before = old.contentHash, let after = manifest.contentHash, before != after {
                throw FixtureKitError(
                    what: "checkpoint", path: set.storePath, why: "the checkpointed store's content hash \(after.prefix(12))… differs from the manifest's \(before.prefix(12))…",
                    remedy: .verifyDeep(folder: folder), category: .checkFailed, code: .checksumMismatch)
            }
            try wrap("write manifest", staging) { () throws(FileSystemError) in
                try AtomicFile.write(manifest.rendered(), to: staging.appendingPath(Manifest.fileName))
            }
            let sums = try Checksums.writeSums(for: staging)
            try wrap("replace fixture", folder) { () throws(FileSystemError) in
                try FixtureFolder.install(staging, at: folder, replace: true)
            }
            let removed = [StoreSet.Sidecar.wal, .shm].filter(set.has).map(set.fileName(of:))
            var result = FixtureResult(fixture: folder, removedSidecars: removed, foldedFrames: foldedFrames, manifest: manifest)
            if let lockTarget, lockTarget.locked {
                result.lock = try CorpusLock.update(lockTarget, kinds: [.sums, .content], known: Capture.known(lockTarget.version, sums: sums, manifest: manifest))
            }
            return result
        } catch {
            ScratchFolder.remove(staging)
            throw error.within("checkpoint")
        }
    }

    /// Runs a TRUNCATE checkpoint on a live store.
    ///
    /// A truncating checkpoint reports the log it leaves (empty), so the frames
    /// are counted by a passive checkpoint first.
    /// - Returns: the frames in the WAL, and how many were written to the main file.
    /// - Throws: ``FixtureKitError``; exit 2 when readers or writers keep it from completing.
    public static func checkpointLiveStore(_ storePath: String, busyTimeout: Int32 = 5000) throws(FixtureKitError) -> Database.CheckpointResult {
        // SQLite would take an empty or foreign file for an empty database.
        do { _ = try StoreSet.locate(storePath).header() } catch {
            throw FixtureKitError(what: "checkpoint", path: storePath, why: error.why, hint: error.hint, remedy: error.remedy, cause: error)
        }
        let database: Database
        let counted: Database.CheckpointResult
        do {
            database = try Database(path: storePath, options: .init(busyTimeout: busyTimeout))
            counted = try database.checkpoint(.passive)
        } catch {
            throw FixtureKitError(what: "checkpoint", path: storePath, why: error.description, cause: error)
        }
        do {
            _ = try database.checkpoint(.truncate)
        } catch {
            guard error.resultCode == .busy, let now = try? database.checkpoint(.passive) else {
                throw FixtureKitError(what: "checkpoint", path: storePath, why: error.description, cause: error)
            }
            throw FixtureKitError(
                what: "checkpoint", path: storePath,
                why: "other connections kept it from completing: \(now.checkpointedFrames) of \(now.logFrames) frames written, \(now.framesLeft) left",
                hint: "close the other connections and retry")
        }
        try? database.close()
        return Database.CheckpointResult(logFrames: counted.logFrames, checkpointedFrames: counted.logFrames)
    }
}
