import FixtureKitSystem
import FixtureKitCrypto
import FixtureKitModels

/// Something wrong with one file of a verified folder.
public struct VerificationProblem: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        /// The file's bytes differ from its listed digest.
        case changed
        /// A listed file is not there.
        case missing
        /// A file is there but not listed in SHA256SUMS.
        case unlisted
        /// A listed file could not be read (permissions, a folder, an I/O error).
        case unreadable
        /// A line of SHA256SUMS is not a checksum line, or manifest.json cannot be read.
        case malformed
        /// The store set does not hang together: sidecars not as the manifest
        /// says, a WAL that SQLite would not replay to its end, page sizes that differ.
        case inconsistent
        /// A copy of the store fails `integrity_check` or `foreign_key_check` (`--deep`).
        case corrupt
        /// A copy of the store has another schema or other row counts than its manifest (`--deep`).
        case drift
        /// The file differs from what the corpus' `fixturekit.lock` records of shipped
        /// history, or one of the two lacks the other (`not locked`, `missing`).
        case lock
        /// An archive's detached `.sha256` does not match the archive, or is not one
        /// checksum line for it; `file` is that file's name.
        case checksumFile
    }

    public internal(set) var kind: Kind
    /// The file, relative to the verified folder (`SHA256SUMS` for a malformed line).
    public internal(set) var file: String
    /// What exactly: the reason a file is unreadable, the line's number and fault.
    public internal(set) var detail: String?
    public internal(set) var expected: String?
    public internal(set) var actual: String?
    /// What the user can do about it, when something helps.
    public internal(set) var hint: String?

    package init(kind: Kind, file: String, detail: String? = nil, expected: String? = nil, actual: String? = nil, hint: String? = nil) {
        self.kind = kind
        self.file = file
        self.detail = detail
        self.expected = expected
        self.actual = actual
        self.hint = hint
    }

    /// `changed`, `unreadable: permission denied`, `line 3: ...`, with the hint.
    public var summary: String {
        var text: String
        switch (kind, detail) {
        case (_, nil): text = kind.rawValue
        case (.malformed, let detail?), (.inconsistent, let detail?), (.lock, let detail?), (.checksumFile, let detail?): text = detail
        case (_, let detail?): text = kind.rawValue + ": " + detail
        }
        if let hint { text += " (hint: \(hint))" }
        return text
    }
}

/// The result of verifying one folder, or one archive, against its SHA256SUMS.
public struct FolderVerification: Sendable, Equatable, Codable {
    /// What was verified.
    public enum Source: String, Sendable, Codable {
        /// A fixture folder: `file` of a problem is a path below it.
        case folder
        /// An archive read without extracting it: `file` of a problem is an entry's path.
        case archive
        /// A corpus' `fixturekit.lock` (``path``) against the corpus: `file` of a
        /// problem is a path below the corpus, the lock's folder.
        case lock
    }

    /// The folder or archive, as given or found below what was given.
    public internal(set) var path: String
    /// Files hashed and found equal.
    public internal(set) var verifiedFiles: Int
    /// Bytes read to hash them.
    public internal(set) var verifiedBytes: UInt64
    public internal(set) var problems: [VerificationProblem]
    public internal(set) var source: Source = .folder
    /// The store's content hash, when `verify --deep` computed it.
    public internal(set) var contentHash: String?

    public var passed: Bool { problems.isEmpty }
}

extension Checksums {
    /// An unlisted sidecar that a program reading the store in place left behind
    /// (`sqlite3`, a database browser): an empty `-wal` beside a listed store, or
    /// a `-shm` whose `-wal` is absent or empty, so it indexes nothing.
    static func readerLeft(_ item: FolderItem, listed: Set<RelativePath>, sizes: [RelativePath: UInt64]) -> VerificationProblem? {
        guard case .file(let size) = item.kind else { return nil }
        let name = item.path.description
        for suffix in ["-wal", "-shm"] where name.hasSuffix(suffix) {
            let store = String(name.dropLast(suffix.count))
            guard listed.contains(RelativePath(store)) else { return nil }
            let wal = RelativePath(store + "-wal")
            let leftByReader = suffix == "-wal" ? size == 0 : !listed.contains(wal) && (sizes[wal] ?? 0) == 0
            guard leftByReader else { return nil }
            let storeName = store.split(separator: "/").last.map(String.init) ?? store
            return VerificationProblem(
                kind: .unlisted, file: name,
                detail: suffix == "-wal"
                    ? "an empty -wal that SQLite made when a program opened \(storeName) in place (sqlite3, a database browser)"
                    : "a -shm that indexes no frame, made when a program opened \(storeName) in place (sqlite3, a database browser)",
                hint: FixtureKitError.Remedy.removeReaderLeftover.text)
        }
        return nil
    }

    /// Checks every file listed in `folder/SHA256SUMS` and that nothing else is there.
    ///
    /// Each file is read once, in parallel with the others; nothing is written.
    /// - Throws: ``FixtureKitError`` only when `folder` itself cannot be listed;
    ///   everything wrong inside it is a ``VerificationProblem``.
    public static func verifyFolder(_ folder: String, threads: Int? = nil, progress: WorkProgress? = nil) throws(FixtureKitError) -> FolderVerification {
        var result = FolderVerification(path: folder, verifiedFiles: 0, verifiedBytes: 0, problems: [])
        let items: [FolderItem]
        do {
            items = try FolderListing.items(below: folder)
        } catch {
            throw FixtureKitError(failed: error)
        }
        let sumsPath = folder.appendingPath(SHA256Sums.fileName)
        let sums: SHA256Sums
        do {
            sums = SHA256Sums(parsing: try POSIX.readFile(sumsPath))
        } catch {
            let kind: VerificationProblem.Kind = error.code == .noSuchFileOrDirectory ? .missing : .unreadable
            result.problems.append(VerificationProblem(kind: kind, file: SHA256Sums.fileName, detail: kind == .missing ? nil : error.reason))
            return result
        }
        for problem in sums.problems {
            result.problems.append(VerificationProblem(kind: .malformed, file: SHA256Sums.fileName, detail: problem.description))
        }
        if sums.entries.isEmpty && sums.problems.isEmpty {
            result.problems.append(VerificationProblem(kind: .malformed, file: SHA256Sums.fileName, detail: "no checksum lines"))
        }

        let listed = Set(sums.entries.map(\.path))
        let sizeByPath = Dictionary(items.compactMap { item -> (RelativePath, UInt64)? in
            if case .file(let size) = item.kind { return (item.path, size) }
            return nil
        }, uniquingKeysWith: { first, _ in first })
        let paths = sums.entries.map { folder.appendingPath($0.path.description) }
        let sizes = sums.entries.map { sizeByPath[$0.path] ?? 0 }
        let digests = progress.step("verify \(folder)", total: sizes.reduce(0, +)) {
            ParallelHasher.digests(of: paths, sizes: sizes, threads: threads, progress: progress)
        }
        var fileProblems: [VerificationProblem] = []
        for (entry, outcome) in zip(sums.entries, digests) {
            let file = entry.path.description
            switch outcome {
            case .success(let digest) where digest.digest == entry.digest:
                result.verifiedFiles += 1
                result.verifiedBytes += digest.size
            case .success(let digest):
                fileProblems.append(VerificationProblem(kind: .changed, file: file, expected: entry.digest.hex, actual: digest.digest.hex))
            case .failure(let error as FileSystemError) where error.message == nil && (error.code == .noSuchFileOrDirectory || error.code == .notDirectory):
                fileProblems.append(VerificationProblem(kind: .missing, file: file))
            case .failure(let error as FileSystemError) where error.message == FileHasher.changedWhileRead:
                fileProblems.append(VerificationProblem(kind: .changed, file: file, expected: entry.digest.hex))
            case .failure(let error as FileSystemError):
                fileProblems.append(VerificationProblem(kind: .unreadable, file: file, detail: error.code == .tooManySymbolicLinkLevels ? "is a symbolic link, not a regular file" : error.reason))
            case .failure(let error):
                fileProblems.append(VerificationProblem(kind: .unreadable, file: file, detail: String(describing: error)))
            }
        }
        for item in items where !listed.contains(item.path) && !item.path.bytes.elementsEqual(SHA256Sums.fileName.utf8) {
            fileProblems.append(readerLeft(item, listed: listed, sizes: sizeByPath) ?? VerificationProblem(kind: .unlisted, file: item.path.description))
        }
        // Problems in path order, whatever their kind, as a reader scans a listing.
        result.problems += fileProblems.sorted { $0.file.utf8.lexicographicallyPrecedes($1.file.utf8) }
        return result
    }
}
