import FixtureKitSystem
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

/// Finds what a path given to `verify` names (a fixture, a corpus, a SHA256SUMS
/// file) and verifies it.
public enum Verifier {
    /// Verifies `path`:
    /// - a folder holding SHA256SUMS: that fixture;
    /// - any other folder, such as `MigrationFixtures`: every fixture and archive in it, i.e.
    ///   each subfolder that holds SHA256SUMS or is named like a version (a
    ///   version folder without SHA256SUMS is reported, not skipped), in version
    ///   order; hidden folders (a capture's work in progress) are not fixtures;
    /// - a file named SHA256SUMS: the folder it is in;
    /// - a file named like an archive (`.tar.zst`, `.tar.gz`, `.tar.xz`, `.tar`), or
    ///   `-` for one streamed on standard input: that archive, read once against
    ///   the SHA256SUMS inside it, without extracting it, then checked as a folder is.
    ///
    /// A fixture with a manifest.json is also checked as a store set (sidecars as
    /// the manifest says, WAL replayable to its last commit, page sizes); with
    /// `deep`, a temporary copy of its store is opened for `integrity_check`,
    /// `foreign_key_check`, and its schema hash and row counts against the manifest.
    /// - Throws: ``FixtureKitError`` when `path` is none of these or cannot be read,
    ///   or is an archive that is malformed or unsafe.
    public static func verify(_ path: String, deep: Bool = false, threads: Int? = nil, progress: WorkProgress? = nil) throws(FixtureKitError) -> [FolderVerification] {
        // `-`: an archive streamed on standard input.
        if path == ArchiveReader.standardInput { return [try verifyArchive(path, deep: deep, progress: progress)] }
        let found: FileStatus?
        do {
            found = try POSIX.lstatIfPresent(path)
        } catch {
            throw FixtureKitError(what: "verify", failed: error)
        }
        guard let info = found else {
            throw FixtureKitError(what: "verify", path: path, why: "no such file or folder")
        }
        switch info.kind {
        case .folder:
            if (try? POSIX.lstatIfPresent(path.appendingPath(SHA256Sums.fileName))) != nil {
                return [try verifyFixture(path, deep: deep, threads: threads, progress: progress)]
            }
            let fixtures = try fixtureFolders(in: path)
            let archives = archiveFiles(in: path)
            let leftovers = leftoverFolders(in: path)
            let lock = LockCheck.corpusResult(path)
            guard !fixtures.isEmpty || !archives.isEmpty || !leftovers.isEmpty || lock != nil else {
                throw FixtureKitError(
                    what: "verify", path: path, why: "no SHA256SUMS in the folder nor in any folder in it",
                    remedy: .writeSums(folder: path))
            }
            var results: [FolderVerification] = []
            for fixture in fixtures { results.append(try verifyFixture(path.appendingPath(fixture), deep: deep, threads: threads, progress: progress)) }
            // The corpus' archives too, each read once without extracting.
            for archive in archives { results.append(try verifyArchive(path.appendingPath(archive), deep: deep, progress: progress)) }
            // What an interrupted run left: the fixture before it was replaced
            // can be in there, a store before its anonymization too.
            if !leftovers.isEmpty {
                results.append(FolderVerification(
                    path: path, verifiedFiles: 0, verifiedBytes: 0,
                    problems: leftovers.map { leftover in
                        leftover.hasSuffix(FixtureReplacement.journalSuffix)
                            ? VerificationProblem(
                                kind: .unlisted, file: leftover,
                                detail: "left by an interrupted run: a replacement of a fixture, its archives and its lock lines, decided and not finished",
                                hint: FixtureKitError.Remedy.finishReplacement.text)
                            : VerificationProblem(
                                kind: .unlisted, file: leftover,
                                detail: "left by an interrupted run; it may hold data the fixture no longer has (a store before anonymization): run the command again, or remove it")
                    }))
            }
            // The lock against the corpus as a whole (each fixture and archive
            // was checked against its own lines above).
            if let lock { results.append(lock) }
            return results
        case .regular where path.split(separator: "/").last == Substring(SHA256Sums.fileName):
            return [try verifyFixture(AtomicFile.parentFolder(of: path), deep: deep, threads: threads, progress: progress)]
        case .regular where ArchiveFormat(fileName: path) != nil:
            return [try verifyArchive(path, deep: deep, progress: progress)]
        case .regular:
            throw FixtureKitError(what: "verify", path: path, why: "not a fixture folder, a corpus folder, a SHA256SUMS file or an archive")
        case .symbolicLink:
            // Links are never followed: a fixture's bytes are those of the files named.
            let target = (try? POSIX.statFollowingLinks(path)).map { FileKind(mode: $0.mode) }
            let what = target == .folder ? "a folder" : target == .regular ? "a file" : "nothing that can be read"
            throw FixtureKitError(
                what: "verify", path: path, why: "is a symbolic link (to \(what)), and verify follows no link",
                hint: target == .folder || target == .regular ? "name the \(target == .folder ? "folder" : "file") it points to" : nil)
        default:
            throw FixtureKitError(what: "verify", path: path, why: FileKind.describe(info.mode))
        }
    }

    /// Checksums first; the store set when they hold; the deep checks last.
    static func verifyFixture(_ folder: String, deep: Bool, threads: Int?, progress: WorkProgress? = nil) throws(FixtureKitError) -> FolderVerification {
        var result = try Checksums.verifyFolder(folder, threads: threads, progress: progress)
        guard result.passed else { return result }
        var contentHash: String?
        result.problems += FixtureCheck.problems(in: folder, deep: deep, contentHash: &contentHash)
        result.contentHash = contentHash
        // What the corpus' lock records of this version: its SHA256SUMS, and its content when computed.
        let storeName = (try? FixtureLocator.storePath(inFixture: folder)).map { String($0.split(separator: "/").last ?? "") }
        result.problems += LockCheck.fixtureProblems(folder, contentHash: contentHash, storeName: storeName)
        return result
    }

    /// An archive read once against the SHA256SUMS inside it; when that holds,
    /// its fixture's checks beyond its checksums, the same as a folder's, on what
    /// the scan wrote of its files into a private folder (``CheckedFilesSink``);
    /// its detached `.sha256` beside it, when there is one; what the corpus'
    /// lock records of it; and the fixture folder of its version beside it, which
    /// must hold the same files.
    static func verifyArchive(_ archive: String, deep: Bool, progress: WorkProgress? = nil) throws(FixtureKitError) -> FolderVerification {
        let scratch: ScratchFolder
        let files: CheckedFilesSink
        do {
            scratch = try ScratchFolder()
            files = try CheckedFilesSink(root: scratch.path.appendingPath("fixture"), whole: deep)
        } catch {
            throw FixtureKitError(what: "verify", failed: error)
        }
        let metadata = try ArchiveMetadata.read(archive, what: "verify", progress: progress, files: files)
        var result = metadata.contents.verification
        if result.passed {
            var contentHash: String?
            result.problems += FixtureCheck.problems(in: files.root, deep: deep, contentHash: &contentHash)
            result.contentHash = contentHash
        }
        withExtendedLifetime(scratch) {}
        // A stream has no file beside it, nor a corpus around it.
        guard archive != ArchiveReader.standardInput else { return result }
        let name = archive.split(separator: "/").last.map(String.init) ?? archive
        // The archive's own bytes are hashed once, for its .sha256 and its lock line.
        let digest = Memo { (try? FileHasher())?.digestIfReadable(archive) }
        if let problem = checksumFileProblem(archive, name: name, digest: digest.value) { result.problems.append(problem) }
        result.problems += LockCheck.archiveProblems(archive, digest: digest.value, sumsBytes: metadata.sumsBytes, deep: deep)
        // The folder of its version, when the corpus has one: the same fixture.
        result.problems += LockCheck.folderProblems(ofArchive: archive, sumsBytes: metadata.sumsBytes)
        return result
    }

    /// What is wrong with `archive.sha256`, when it is there: not one checksum line
    /// naming the archive, or another digest than the archive's bytes.
    static func checksumFileProblem(_ archive: String, name: String, digest: @autoclosure () -> SHA256Digest?) -> VerificationProblem? {
        let checksumName = name + FixtureArchive.checksumSuffix
        guard let bytes = try? POSIX.readFile(archive + FixtureArchive.checksumSuffix, limit: 1 << 16) else { return nil }
        let sums = SHA256Sums(parsing: bytes)
        guard sums.problems.isEmpty, sums.entries.count == 1, sums.entries[0].path.description == name else {
            return VerificationProblem(kind: .checksumFile, file: checksumName, detail: "not one checksum line for \(name) (\(FixtureKitError.Remedy.packWritesChecksumFile.text))")
        }
        let listed = sums.entries[0].digest
        guard let actual = digest(), actual != listed else { return nil }
        return VerificationProblem(
            kind: .checksumFile, file: checksumName,
            detail: "does not match the archive: it says \(listed.hex.prefix(12))..., the archive's bytes hash to \(actual.hex.prefix(12))...",
            expected: listed.hex, actual: actual.hex)
    }

    /// The archives directly in `corpus` (`App-1.0.0.tar.zst`), bytewise.
    static func archiveFiles(in corpus: String) -> [String] {
        let names = ((try? POSIX.listDirectory(corpus)) ?? []).map { String(pathBytes: $0) }
        return names.filter { name in
            guard !name.hasPrefix("."), ArchiveFormat(fileName: name) != nil,
                  let info = try? POSIX.lstat(corpus.appendingPath(name)) else { return false }
            return info.kind == .regular
        }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The hidden work folders directly in `corpus` that a run killed half-way
    /// left (`.1.0.0.tmp`, `.1.0.0.old`, as ``FixtureFolder`` names them, and
    /// `.1.0.0.commit`, a ``FixtureReplacement``'s journal), bytewise.
    static func leftoverFolders(in corpus: String) -> [String] {
        let names = ((try? POSIX.listDirectory(corpus)) ?? []).map { String(pathBytes: $0) }
        return names.filter { name in
            guard name.hasPrefix("."), name.hasSuffix(".tmp") || name.hasSuffix(".old") || name.hasSuffix(FixtureReplacement.journalSuffix), name.count > 5,
                  let info = try? POSIX.lstat(corpus.appendingPath(name)) else { return false }
            return info.kind == .folder
        }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The names of the fixture folders directly in `corpus`, in version order
    /// (names that are not versions last, bytewise).
    static func fixtureFolders(in corpus: String) throws(FixtureKitError) -> [String] {
        let names: [[UInt8]]
        do {
            names = try POSIX.listDirectory(corpus)
        } catch {
            throw FixtureKitError(what: "verify", failed: error)
        }
        var fixtures: [String] = []
        for nameBytes in names {
            let name = String(pathBytes: nameBytes)
            // Hidden folders are work in progress (`.1.0.0.tmp`) or leftovers (`.1.0.0.old`).
            guard !name.hasPrefix(".") else { continue }
            let folder = corpus.appendingPath(name)
            guard let info = try? POSIX.lstat(folder), info.kind == .folder else { continue }
            let hasSums = (try? POSIX.lstatIfPresent(folder.appendingPath(SHA256Sums.fileName))) != nil
            if hasSums || Version(name) != nil { fixtures.append(name) }
        }
        return fixtures.sorted { lhs, rhs in
            switch (Version(lhs), Version(rhs)) {
            case let (left?, right?): left < right
            case (.some, nil): true
            case (nil, .some): false
            case (nil, nil): lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
            }
        }
    }
}

/// A value computed the first time it is asked for, at most once.
final class Memo<Value> {
    private var computed: [Value] = []
    private let compute: () -> Value

    init(_ compute: @escaping () -> Value) { self.compute = compute }

    var value: Value {
        if let first = computed.first { return first }
        let fresh = compute()
        computed = [fresh]
        return fresh
    }
}

extension FileHasher {
    /// The SHA-256 of a file's bytes, or `nil` when it cannot be read.
    func digestIfReadable(_ path: String) -> SHA256Digest? { (try? digest(ofFileAt: path))?.digest }
}
