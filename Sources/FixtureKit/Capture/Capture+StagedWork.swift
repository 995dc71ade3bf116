import FixtureKitSystem
import FixtureKitCrypto
import FixtureKitModels

/// The staged store's `fsync`, SHA-256 and content hash, each on a thread of its
/// own, while the capture reads the store's facts and writes its manifest: a
/// snapshot of a 1 GiB store spends about 0.7 s in the first and 0.9 s in the
/// second; the content hash reads every row through SQLite, about as long as a
/// full scan of the store.
final class StagedStoreWork {
    private let path: String
    private let sync = BackgroundStage()
    private let hashing = BackgroundStage()
    private let content = BackgroundStage()
    /// Written by the hashing threads before their stages are left, read after waiting on them.
    private let fileDigest = Handoff<FileDigest>()
    private let storeHash = Handoff<String>()

    /// - Parameter hashContent: also compute the content hash, through a connection
    ///   of its own that opens the store immutable: only for a single file the
    ///   capture owns (no -wal to replay).
    /// - Parameter known: the store's digest, when it was computed as it was
    ///   written (``Capture/snapshot(_:to:)``): the store is then not read again.
    init(_ path: String, hashContent: Bool = false, known: FileDigest? = nil) {
        self.path = path
        sync.start { try POSIX.fsyncFile(path) }
        let (fileDigest, storeHash) = (self.fileDigest, self.storeHash)
        if let known {
            fileDigest.value = known
        } else {
            hashing.start { fileDigest.value = try FileHasher().digest(ofFileAt: path) }
        }
        if hashContent {
            content.start {
                let database: Database
                do throws(StoreError) { database = try ScratchStore.openImmutable(path) } catch { throw FixtureKitError(error) }
                storeHash.value = try ContentHash.digest(of: database, display: path, what: "hash").hex
            }
        }
    }

    /// Waits for the content hash, when it was asked for.
    /// - Throws: ``FixtureKitError`` when SQLite could not read the store.
    func contentHash() throws(FixtureKitError) -> String? {
        do { try content.wait() } catch {
            throw (error as? FixtureKitError) ?? FixtureKitError(what: "hash", path: path, why: "\(error)")
        }
        return storeHash.value
    }

    /// Waits for both. Returns the store's digest, or nil when it could not be
    /// computed here (then ``Checksums`` hashes the store itself, and says why
    /// if it cannot either).
    /// - Throws: ``FixtureKitError`` when the store could not be synced.
    func finish() throws(FixtureKitError) -> FileDigest? {
        do { try sync.wait() } catch {
            hashing.drain()
            if let error = error as? FileSystemError {
                throw FixtureKitError(what: "sync", failed: error)
            }
            throw FixtureKitError(what: "sync", path: path, why: "\(error)")
        }
        do { try hashing.wait() } catch { return nil }
        return fileDigest.value
    }

    /// Waits for every stage, ignoring failures: for paths that already have an error.
    func drain() {
        sync.drain()
        hashing.drain()
        content.drain()
    }
}
