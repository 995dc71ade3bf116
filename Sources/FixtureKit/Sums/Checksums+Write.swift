import FixtureKitSystem
import FixtureKitCrypto
import FixtureKitModels

/// Writing and checking the SHA256SUMS of folders.
public enum Checksums {}

extension Checksums {
    /// Hashes every regular file below `folder` and writes `folder/SHA256SUMS`
    /// atomically, in coreutils' format.
    ///
    /// `SHA256SUMS` itself is not listed, nor the `SHA256SUMS.tmp` a killed run
    /// may have left (it is overwritten). A symbolic link, FIFO, socket or device
    /// below the folder is refused: a fixture holds regular files only.
    /// - Parameters:
    ///   - threads: files hashed at once; default every core.
    /// - Returns: what was written.
    /// - Throws: ``FixtureKitError``.
    @discardableResult
    public static func writeSums(for folder: String, threads: Int? = nil) throws(FixtureKitError) -> SHA256Sums {
        try writeSums(for: folder, threads: threads, known: [:])
    }

    /// `fixturekit sums`: ``writeSums(for:threads:)`` for a folder that may be a
    /// fixture of a corpus with `fixturekit.lock`. A locked fixture is history: it is
    /// refused unless `force`, which rewrites its `sums` and `content` lines too.
    /// - Returns: what was written, and the lock's lines recomputed.
    package static func writeSums(for folder: String, threads: Int? = nil, force: Bool) throws(FixtureKitError) -> (sums: SHA256Sums, lock: [LockEdit]) {
        let target = try CorpusLock.guardRewrite(of: folder, what: "sums", force: force)
        let sums = try writeSums(for: folder, threads: threads)
        guard let target, target.locked else { return (sums, []) }
        let lock = try CorpusLock.update(target, kinds: [.sums, .content], known: [CorpusLock.Fact(.sums, target.version): try? SHA256.hash(sums.rendered())].compactMapValues { $0 })
        return (sums, lock)
    }

    /// ``writeSums(for:threads:)``, taking the digest of a file in `known` (by
    /// its path below `folder`) instead of hashing it again, when its size is the
    /// size that digest was computed over. For a file the caller owns and hashed
    /// while doing other work on it.
    static func writeSums(for folder: String, threads: Int? = nil, known: [String: FileDigest]) throws(FixtureKitError) -> SHA256Sums {
        let sums = try computeSums(for: folder, threads: threads, known: known)
        let target = folder.appendingPath(SHA256Sums.fileName)
        do {
            try AtomicFile.write(sums.rendered(), to: target)
        } catch {
            throw FixtureKitError(what: "write SHA256SUMS", failed: error)
        }
        return sums
    }

    /// The SHA256SUMS of `folder` as it is now, without writing anything.
    static func computeSums(for folder: String, threads: Int? = nil) throws(FixtureKitError) -> SHA256Sums {
        try computeSums(for: folder, threads: threads, known: [:])
    }

    static func computeSums(for folder: String, threads: Int? = nil, known: [String: FileDigest]) throws(FixtureKitError) -> SHA256Sums {
        let items: [FolderItem]
        do {
            items = try FolderListing.items(below: folder)
        } catch {
            throw FixtureKitError(failed: error)
        }
        var files: [RelativePath] = []
        var sizes: [UInt64] = []
        for item in items where !isOwnFile(item.path) {
            switch item.kind {
            case .file(let size):
                files.append(item.path)
                sizes.append(size)
            case .other(let description):
                throw FixtureKitError(what: "hash", path: folder.appendingPath(item.path.description), why: description, hint: notRegularHint)
            }
        }
        guard !files.isEmpty else {
            throw FixtureKitError(what: "sums", path: folder, why: "no file to list", hint: "a fixture holds at least its store")
        }
        var digests: [SHA256Digest?] = files.indices.map { index in
            known[files[index].description].flatMap { $0.size == sizes[index] ? $0.digest : nil }
        }
        let missing = files.indices.filter { digests[$0] == nil }
        let paths = missing.map { folder.appendingPath(files[$0].description) }
        let results = ParallelHasher.digests(of: paths, sizes: missing.map { sizes[$0] }, threads: threads)
        for (position, result) in results.enumerated() {
            switch result {
            case .success(let file): digests[missing[position]] = file.digest
            case .failure(let error): throw movedFile(error, path: paths[position]) ?? FixtureKitError.wrapping(error, what: "hash", path: paths[position])
            }
        }
        let entries = files.indices.compactMap { index in digests[index].map { SHA256SumsEntry(path: files[index], digest: $0) } }
        return SHA256Sums(entries: entries)
    }

    /// The error of a file that was listed and then vanished, changed while it
    /// was read, or was replaced by something that is not a regular file: the
    /// last with the words a listing that found it so would have used.
    private static func movedFile(_ error: any Error, path: String) -> FixtureKitError? {
        guard let error = error as? FileSystemError else { return nil }
        let rerun = "run sums again when nothing writes to the folder"
        switch (error.message, error.code) {
        case (nil, .noSuchFileOrDirectory), (nil, .notDirectory):
            return FixtureKitError(what: "hash", path: path, why: "vanished while the folder was hashed", hint: rerun)
        case (FileHasher.changedWhileRead, _):
            return FixtureKitError(what: "hash", path: path, why: FileHasher.changedWhileRead, hint: rerun)
        case (nil, .tooManySymbolicLinkLevels):
            return FixtureKitError(what: "hash", path: path, why: FileKind.symbolicLink.notRegular, hint: notRegularHint)
        case (let message?, _) where error.operation == "read":
            return FixtureKitError(what: "hash", path: path, why: message, hint: notRegularHint)
        default:
            return nil
        }
    }

    static let notRegularHint = "a fixture holds regular files and folders only"

    /// SHA256SUMS and the temporary name it is written under.
    static func isOwnFile(_ path: RelativePath) -> Bool {
        path.bytes.elementsEqual(SHA256Sums.fileName.utf8)
            || path.bytes.elementsEqual(AtomicFile.temporaryPath(for: SHA256Sums.fileName).utf8)
    }
}
