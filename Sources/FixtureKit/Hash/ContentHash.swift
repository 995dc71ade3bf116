import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

/// `fixturekit hash`: the content hash (``Database/contentHash()``) of a store, a
/// fixture or an archive: a fixture's or an archive's computed on a copy in a
/// temporary folder, a live store's read in place without changing it.
public enum ContentHash {
    /// The content hash of what `path` names:
    /// - an archive (a file named `*.tar.zst`, `*.tar.gz`, `*.tar.xz`, `*.tar`, or
    ///   `-` for one streamed on standard input): it
    ///   is unpacked, verified on the way, into a temporary folder, and its
    ///   fixture's store hashed there;
    /// - a fixture folder, or a store's main file inside one (its folder's
    ///   SHA256SUMS lists it): the fixture is copied and the copy verified first,
    ///   as `sql` does, and its store (the manifest's `store`, else its one SQLite
    ///   file, else the one named) hashed there with its sidecars;
    /// - any other file: a store's main file, hashed with its sidecars.
    ///
    /// A fixture's store set is copied into a fresh temporary folder and opened
    /// there (its WAL replayed, a hot journal rolled back), never in place; a live
    /// store is read in place, read-only, as `capture` reads one.
    /// - Throws: ``FixtureKitError``: an archive that fails its SHA256SUMS or a
    ///   fixture that does not verify is a failed check (exit status 1); anything
    ///   unreadable, exit status 2.
    public static func of(_ path: String) throws(FixtureKitError) -> SHA256Digest {
        if path == ArchiveReader.standardInput || (!FixtureLocator.isFolder(path) && ArchiveFormat(fileName: path) != nil) {
            return try ofArchive(path)
        }
        if FixtureLocator.isFolder(path) { return try ofFixture(path, store: nil) }
        if let fixture = FixtureLocator.fixture(holding: path) { return try ofFixture(fixture, store: path) }
        return try ofLiveStore(try StoreSet.locate(path))
    }

    /// The content hash of each fixture `path` names: every fixture folder of a
    /// corpus (a folder without SHA256SUMS that holds fixture folders), in
    /// version order, each verified first; else what ``of(_:)`` hashes.
    /// - Returns: each fixture's path and its content hash.
    /// - Throws: ``FixtureKitError``, as ``of(_:)``, for the first that fails.
    public static func ofEach(_ path: String) throws(FixtureKitError) -> [(path: String, digest: SHA256Digest)] {
        if FixtureLocator.isFolder(path), (try? POSIX.lstatIfPresent(path.appendingPath(SHA256Sums.fileName))) == nil {
            let fixtures = try Verifier.fixtureFolders(in: path)
            if !fixtures.isEmpty {
                var digests: [(path: String, digest: SHA256Digest)] = []
                for fixture in fixtures.map(path.appendingPath) { digests.append((fixture, try ofFixture(fixture, store: nil))) }
                return digests
            }
        }
        return [(path, try of(path))]
    }

    /// A fixture's content hash, read from a copy verified first.
    private static func ofFixture(_ folder: String, store: String?) throws(FixtureKitError) -> SHA256Digest {
        let copy = try VerifiedCopy.verifiedCopy(of: folder, store: store)
        do { return try ofStore(try StoreSet.locate(copy.store), what: "hash") } catch {
            throw error.naming(store ?? folder, insteadOf: copy.files.path)
        }
    }

    /// A store an app may be writing: one consistent snapshot of it, read in
    /// place as `capture` reads one (``Capture/readingSource(_:firstPage:failure:_:)``:
    /// none of its files created, removed or changed, the read done again if the
    /// files of a store at rest changed meanwhile), so that it needs neither the
    /// time nor the room of a copy. A store with a `-journal` is copied with it
    /// instead, and a hot one rolled back in the copy.
    private static func ofLiveStore(_ set: StoreSet) throws(FixtureKitError) -> SHA256Digest {
        guard !set.has(.journal) else { return try ofStore(set, what: "hash") }
        do { _ = try set.header() } catch {
            throw FixtureKitError(what: "hash", path: set.storePath, why: error.why, hint: error.hint, remedy: error.remedy, cause: error)
        }
        func failure(_ error: SQLiteError) -> FixtureKitError {
            FixtureKitError(what: "hash", path: set.storePath, why: error.description, hint: Capture.hint(for: error), cause: error)
        }
        do throws(FixtureKitError) {
            return try Capture.readingSource(set, failure: failure) { (source, _) throws(FixtureKitError) -> SHA256Digest in
                do throws(SQLiteError) { return try source.contentHash(hashing: hashing) } catch { throw failure(error) }
            }
        } catch {
            throw error.what == "snapshot" ? error.within("hash") : error
        }
    }

    /// Where `hash` computes its SHA-256: on a second thread when the machine
    /// has a second core (the callers leave it free); on one core, the
    /// hand-over would only cost (6% on a 1.2 GiB store).
    static var hashing: ContentHashing { ParallelHasher.coreCount > 1 ? .onASecondThread() : .onTheScanningThread }

    /// The content hash of a store set, read from a copy of it, its SHA-256
    /// computed where ``hashing`` says.
    static func ofStore(_ set: StoreSet, what: String) throws(FixtureKitError) -> SHA256Digest {
        // SQLite would take an empty file for an empty database: refuse it first.
        do { _ = try set.header() } catch {
            throw FixtureKitError(what: what, path: set.storePath, why: error.why, hint: error.hint, remedy: error.remedy, cause: error)
        }
        let scratch = try ScratchStore(copying: set, what: what)
        return try digest(of: scratch.database, display: set.storePath, what: what, hashing: hashing)
    }

    /// The content hash read through an open connection (to a copy, or to a file
    /// the caller owns and opened immutable).
    /// - Parameter hashing: where its SHA-256 is computed; a second thread only
    ///   when a core is free (not during a capture's or a verification's other work).
    static func digest(
        of database: Database, display: String, what: String, hashing: ContentHashing = .onTheScanningThread
    ) throws(FixtureKitError) -> SHA256Digest {
        do { return try database.contentHash(hashing: hashing) } catch {
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
            throw error.naming(archive, insteadOf: folder)
        }
    }
}

extension FixtureKitError {
    /// The same error naming `shown`, what the user named, rather than the
    /// temporary copy `copy` it was found in.
    func naming(_ shown: String, insteadOf copy: String) -> FixtureKitError {
        guard let path, path == copy || path.hasPrefix(copy + "/") else { return self }
        var named = self
        named.path = shown
        return named
    }
}
