import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

/// `fixturekit hash`: the content hash (``Database/contentHash()``) of a store, a
/// fixture or an archive, always computed on a copy in a temporary folder.
public enum ContentHash {
    /// The content hash of what `path` names:
    /// - an archive (a file named `*.tar.zst`, `*.tar.gz`, `*.tar.xz`, `*.tar`): it
    ///   is unpacked, verified on the way, into a temporary folder, and its
    ///   fixture's store hashed there;
    /// - a folder: a fixture, whose store (the manifest's `store`, else its one
    ///   SQLite file) is hashed with its sidecars;
    /// - any other file: a store's main file, hashed with its sidecars.
    ///
    /// The store set is copied into a fresh temporary folder and opened there (its
    /// WAL replayed, a hot journal rolled back), never in place.
    /// - Throws: ``FixtureKitError``: an archive that fails its SHA256SUMS is a failed
    ///   check (exit status 1); anything unreadable, exit status 2.
    public static func of(_ path: String) throws(FixtureKitError) -> SHA256Digest {
        if !FixtureLocator.isFolder(path), ArchiveFormat(fileName: path) != nil {
            return try ofArchive(path)
        }
        let store = FixtureLocator.isFolder(path) ? try FixtureLocator.storePath(inFixture: path) : path
        return try ofStore(try StoreSet.locate(store), what: "hash")
    }

    /// The content hash of a store set, read from a copy of it.
    static func ofStore(_ set: StoreSet, what: String) throws(FixtureKitError) -> SHA256Digest {
        // SQLite would take an empty file for an empty database: refuse it first.
        do { _ = try set.header() } catch {
            throw FixtureKitError(what: what, path: set.storePath, why: error.why, hint: error.hint, remedy: error.remedy, cause: error)
        }
        let scratch = try ScratchStore(copying: set, what: what)
        return try digest(of: scratch.database, display: set.storePath, what: what)
    }

    /// The content hash read through an open connection (to a copy, or to a file
    /// the caller owns and opened immutable).
    static func digest(of database: Database, display: String, what: String) throws(FixtureKitError) -> SHA256Digest {
        do { return try database.contentHash() } catch {
            throw FixtureKitError(what: what, path: display, why: error.description, cause: error)
        }
    }

    private static func ofArchive(_ archive: String) throws(FixtureKitError) -> SHA256Digest {
        let scratch: ScratchFolder
        do { scratch = try ScratchFolder() } catch {
            throw FixtureKitError(what: "hash", failed: error)
        }
        let folder = scratch.path.appendingPath("fixture")
        let result: UnpackResult
        do { result = try FixtureArchive.unpack(archive, to: folder) } catch {
            throw error.within("hash")
        }
        guard result.extracted else {
            throw FixtureKitError(
                what: "hash", path: archive, why: "the archive fails its SHA256SUMS: \(FixtureArchive.summary(of: result.contents.verification.problems))",
                remedy: .verify(path: archive, nothingChanged: false), category: .checkFailed, code: .checksumMismatch)
        }
        let store = try FixtureLocator.storePath(inFixture: folder)
        do { return try ofStore(try StoreSet.locate(store), what: "hash") } catch {
            // Name the archive, not the temporary folder it was unpacked into.
            throw FixtureKitError(what: error.what, path: archive, why: error.why, hint: error.hint, remedy: error.remedy, category: error.category, code: error.code)
        }
    }
}
