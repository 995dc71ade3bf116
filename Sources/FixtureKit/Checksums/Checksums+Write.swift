#if canImport(Glibc)
import Glibc
#endif

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
        let sums = try computeSums(for: folder, threads: threads)
        let target = folder.appendingPath(SHA256Sums.fileName)
        do {
            try AtomicFile.write(sums.rendered(), to: target)
        } catch {
            throw FixtureKitError(what: "write SHA256SUMS: \(error.operation)", path: error.path, why: error.reason)
        }
        return sums
    }

    /// The SHA256SUMS of `folder` as it is now, without writing anything.
    public static func computeSums(for folder: String, threads: Int? = nil) throws(FixtureKitError) -> SHA256Sums {
        let items: [FolderItem]
        do {
            items = try FolderListing.items(below: folder)
        } catch {
            throw FixtureKitError(what: error.operation, path: error.path, why: error.reason)
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
        let paths = files.map { folder.appendingPath($0.description) }
        var entries: [SHA256SumsEntry] = []
        for (index, result) in ParallelHasher.digests(of: paths, sizes: sizes, threads: threads).enumerated() {
            switch result {
            case .success(let file): entries.append(SHA256SumsEntry(path: files[index], digest: file.digest))
            case .failure(let error): throw movedFile(error, path: paths[index]) ?? FixtureKitError.wrapping(error, what: "hash", path: paths[index])
            }
        }
        return SHA256Sums(entries: entries)
    }

    /// The error of a file that was listed and then vanished, changed while it
    /// was read, or was replaced by something that is not a regular file: the
    /// last with the words a listing that found it so would have used.
    private static func movedFile(_ error: any Error, path: String) -> FixtureKitError? {
        guard let error = error as? FileSystemError else { return nil }
        let rerun = "run sums again when nothing writes to the folder"
        switch (error.message, error.errno) {
        case (nil, ENOENT), (nil, ENOTDIR):
            return FixtureKitError(what: "hash", path: path, why: "vanished while the folder was hashed", hint: rerun)
        case (FileHasher.changedWhileRead, _):
            return FixtureKitError(what: "hash", path: path, why: FileHasher.changedWhileRead, hint: rerun)
        case (nil, ELOOP):
            return FixtureKitError(what: "hash", path: path, why: FileHasher.kindDescription(S_IFLNK), hint: notRegularHint)
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
