import FixtureKitSystem
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

/// An archive a rewrite of its fixture folder rebuilt, or removed.
public struct ArchiveRewrite: Sendable, Equatable, Codable {
    /// The archive's path.
    public internal(set) var archive: String
    /// Its new SHA-256; `nil` when it was removed (a format `pack` does not write).
    public var sha256: String?
}

/// Replaces a fixture folder together with the archives of its version beside
/// it and its lines in `fixturekit.lock`, so that the three never tell two
/// stories: the archives are rebuilt from the new folder before anything is
/// replaced, and a journal makes the replacement one step.
///
/// The journal is `.1.0.0.commit/` beside the fixture: the new archives (and
/// their `.sha256`) under their final names, and, written last, a copy of the
/// new folder's `SHA256SUMS`. It is built as `.1.0.0.commit.tmp/` and renamed
/// once whole: from then on the replacement is decided. Then the staging folder
/// replaces the fixture, the archives are moved into place, the lock's lines of
/// the version are rewritten, and the journal is removed. A run killed on the
/// way leaves the journal; the next command that rewrites the fixture
/// (``FixtureFolder/recover(_:)``), or `fixturekit lock`, finishes the
/// replacement from it (each step can be done again), under an exclusive
/// `flock` of the journal. A run killed before the journal was whole leaves the
/// old fixture, archives and lock as they were, and a half-built journal that
/// the next run removes.
enum FixtureReplacement {
    static let journalSuffix = ".commit"
    /// A journal entry that says the archive of that name is to be removed.
    static let removalSuffix = ".remove"

    /// `.1.0.0.commit` beside `1.0.0`.
    static func journalPath(for target: String) -> String {
        let trimmed = target.trimmingTrailingSlashes
        let name = trimmed.split(separator: "/").last.map(String.init) ?? trimmed
        return AtomicFile.parentFolder(of: trimmed).appendingPath("." + name + journalSuffix)
    }

    /// Whether a replacement of `target` is decided and not finished.
    static func isPending(_ target: String) -> Bool {
        (try? POSIX.lstatIfPresent(journalPath(for: target).appendingPath(SHA256Sums.fileName))) != nil
    }

    /// The archives beside the fixture folder `target` that hold its version
    /// (`App-1.0.0.tar.zst`, as `pack` names them), bytewise.
    static func archives(of target: String) -> [String] {
        guard let (corpus, version) = LockCheck.locate(target) else { return [] }
        let configPath = corpus.appendingPath(CorpusConfiguration.fileName)
        let configuration = (try? POSIX.lstatIfPresent(configPath)) != nil ? try? CorpusConfiguration.load(configPath) : nil
        // Named as the user named the fixture, unless that name is `.` or `..`.
        let trimmed = target.trimmingTrailingSlashes
        let named = [".", ".."].contains(trimmed.split(separator: "/").last ?? "") ? corpus.appendingPath(version) : trimmed
        return Verifier.archiveFiles(in: corpus)
            .filter { CorpusFacts.archiveVersion($0, configuration: configuration) == version }
            .map { LockCheck.sibling(of: named, named: $0) }
    }

    /// Refuses, unless `force`, to rebuild an archive of `target`'s version that `fixturekit.lock` locks.
    static func guardArchives(of target: String, what: String, force: Bool) throws(FixtureKitError) {
        for archive in archives(of: target) {
            _ = try CorpusLock.guardRewrite(of: archive, archive: true, what: what, force: force)
        }
    }

    /// Replaces the fixture folder `target` with the finished `staging` folder:
    /// rebuilds each archive of its version from `staging` (a format `pack`
    /// does not write is removed instead), then installs the folder and the
    /// archives, and rewrites the version's lock lines when the lock records
    /// the version, in one step (see the type's documentation).
    /// - Parameters:
    ///   - environment: `SOURCE_DATE_EPOCH` sets the archives' entry times, as for `pack`.
    ///   - known: digests already computed (the new `SHA256SUMS`, the content hash).
    /// - Returns: the archives rewritten, and the lock's lines.
    static func replace(_ target: String, with staging: String, environment: [String: String], known: [CorpusLock.Fact: SHA256Digest],
                        what: String) throws(FixtureKitError) -> (archives: [ArchiveRewrite], lock: [LockEdit]) {
        let journal = journalPath(for: target)
        let building = journal + ".tmp"
        var rewrites: [ArchiveRewrite] = []
        var known = known
        do throws(FixtureKitError) {
            ScratchFolder.remove(building)
            try wrap(what) { () throws(FileSystemError) in try POSIX.createFolder(building) }
            let modificationTime = try PackOptions.modificationTime(sourceDateEpoch: environment["SOURCE_DATE_EPOCH"])
            let version = target.trimmingTrailingSlashes.split(separator: "/").last.map(String.init) ?? target
            for archive in archives(of: target) {
                let name = archive.split(separator: "/").last.map(String.init) ?? archive
                guard let format = ArchiveFormat(fileName: name), ArchiveFormat.packable.contains(format) else {
                    try wrap(what) { () throws(FileSystemError) in try AtomicFile.write([], to: building.appendingPath(name + removalSuffix)) }
                    rewrites.append(ArchiveRewrite(archive: archive, sha256: nil))
                    continue
                }
                let packed: PackResult
                do { packed = try FixtureArchive.pack(staging, options: PackOptions(format: format, output: building.appendingPath(name), modificationTime: modificationTime)) } catch {
                    throw error.within(what)
                }
                rewrites.append(ArchiveRewrite(archive: archive, sha256: packed.sha256))
                known[CorpusLock.Fact(.archive, version, name)] = SHA256Digest(hex: packed.sha256.utf8)
            }
            // Last: the new SHA256SUMS, which says the journal is whole; then its final name decides.
            try wrap(what) { () throws(FileSystemError) in
                try AtomicFile.write(try POSIX.readFile(staging.appendingPath(SHA256Sums.fileName)), to: building.appendingPath(SHA256Sums.fileName))
                try POSIX.fsyncDirectory(building)
                try POSIX.rename(building, journal)
                try POSIX.fsyncDirectory(AtomicFile.parentFolder(of: journal))
            }
        } catch {
            ScratchFolder.remove(building)
            throw error
        }
        return (rewrites, try finish(target, known: known, what: what))
    }

    /// Finishes the replacement of `target` that its journal records, if there
    /// is one; removes a half-built journal. Each step checks whether it was done.
    /// - Returns: the lock's lines rewritten.
    @discardableResult
    static func finish(_ target: String, known: [CorpusLock.Fact: SHA256Digest] = [:], what: String) throws(FixtureKitError) -> [LockEdit] {
        let journal = journalPath(for: target)
        ScratchFolder.remove(journal + ".tmp")
        guard (try? POSIX.lstatIfPresent(journal)) != nil else { return [] }
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(journal, .readOnly, options: .directory) } catch {
            // Another run finished it in the meantime.
            if error.code == .noSuchFileOrDirectory { return [] }
            throw FixtureKitError(what: what, failed: error)
        }
        defer { try? fd.close() }
        do throws(FileSystemError) { try fd.lock(.exclusive) } catch { throw FixtureKitError(what: what, failed: error) }
        // Finished, by the run that held the lock before this one or by one killed as it removed the journal.
        guard let expected = try? POSIX.readFile(journal.appendingPath(SHA256Sums.fileName)) else {
            ScratchFolder.remove(journal)
            return []
        }
        let parent = AtomicFile.parentFolder(of: journal)
        try wrap(what) { () throws(FileSystemError) in
            let staging = FixtureFolder.stagingPath(for: target)
            if (try? POSIX.readFile(target.appendingPath(SHA256Sums.fileName))) != expected {
                guard (try? POSIX.readFile(staging.appendingPath(SHA256Sums.fileName))) == expected else {
                    throw FileSystemError("finish the replacement", path: target, message: "neither the fixture nor \(staging) holds the SHA256SUMS of \(journal)")
                }
                try FixtureFolder.install(staging, at: target, replace: true)
            } else {
                // The replaced fixture, if the run stopped before removing it.
                ScratchFolder.remove(staging)
            }
            // Each archive, then its .sha256: a name still in the journal is not moved yet.
            let entries = try POSIX.listDirectory(journal).map { String(pathBytes: $0) }.filter { $0 != SHA256Sums.fileName }
            for entry in entries.sorted(by: { $0.count < $1.count || $0.count == $1.count && $0 < $1 }) {
                if entry.hasSuffix(removalSuffix) {
                    let archive = parent.appendingPath(String(entry.dropLast(removalSuffix.count)))
                    for path in [archive, archive + FixtureArchive.checksumSuffix] { try POSIX.unlinkIfPresent(path) }
                    try? POSIX.removeFile(journal.appendingPath(entry))
                } else {
                    try POSIX.rename(journal.appendingPath(entry), parent.appendingPath(entry))
                }
            }
            try POSIX.fsyncDirectory(parent)
        }
        var edits: [LockEdit] = []
        if let lockTarget = try CorpusLock.guardRewrite(of: target, what: what, force: true), lockTarget.hasLock, recordsVersion(lockTarget) {
            edits = try CorpusLock.update(lockTarget, kinds: [.sums, .content, .archive], known: known)
        }
        // Done: the SHA256SUMS first, so that a run killed now is seen as finished.
        try? POSIX.removeFile(journal.appendingPath(SHA256Sums.fileName))
        ScratchFolder.remove(journal)
        try wrap(what) { () throws(FileSystemError) in try POSIX.fsyncDirectory(parent) }
        return edits
    }

    /// Whether the lock has a line of the version: its fixture's or one of its archives'.
    private static func recordsVersion(_ target: LockTarget) -> Bool {
        guard let lock = try? CorpusLock.existing(in: target.corpus) else { return false }
        return lock.digests.keys.contains { $0.version == target.version && [.sums, .content, .archive].contains($0.kind) }
    }

    private static func wrap(_ what: String, _ body: () throws(FileSystemError) -> Void) throws(FixtureKitError) {
        do { try body() } catch { throw FixtureKitError(what: what, failed: error) }
    }
}
