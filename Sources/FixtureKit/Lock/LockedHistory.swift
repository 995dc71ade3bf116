import FixtureKitSystem
import FixtureKitCrypto
import FixtureKitModels

/// A corpus' `fixturekit.lock` as `migrate` and `upgrade` check against it, before
/// they use a fixture or run a stage: the fixture verified must be the one locked,
/// a stage that shipped with a frozen version must be the file locked.
struct LockedHistory: Sendable {
    let configuration: CorpusConfiguration
    let lock: Result<CorpusLock, FixtureKitError>
    /// The versions frozen in the corpus (a folder or an archive): their stages are shipped.
    let frozen: Set<String>

    /// The corpus' lock; `nil` when the corpus has none.
    init?(configuration: CorpusConfiguration) {
        let path = configuration.folder.appendingPath(CorpusLock.fileName)
        guard (try? POSIX.lstatIfPresent(path)) != nil else { return nil }
        self.configuration = configuration
        lock = Result { () throws(FormatError) -> CorpusLock in try CorpusLock.load(corpus: configuration.folder) ?? CorpusLock() }.mapError { FixtureKitError($0) }
        frozen = (try? CorpusFacts(corpus: configuration.folder, configuration: configuration).frozen) ?? []
    }

    /// Why the fixture of `version`, verified in `verifiedFolder` (a copy of it, or
    /// the archive `archive` unpacked), is not what the lock records; `nil` when it is.
    func fixtureProblem(_ version: String, verifiedFolder: String, archive: String?) -> String? {
        let lock: CorpusLock
        switch self.lock {
        case .success(let read): lock = read
        case .failure(let error): return error.description
        }
        let folder = configuration.resolve(version)
        guard let locked = lock.digests[CorpusLock.Fact(.sums, version)] else {
            return "\(archive ?? folder): not locked: fixturekit.lock has no sums line for \(version) (\(FixtureKitError.Remedy.lockAfterReview.text))"
        }
        guard let actual = (try? FileHasher())?.digestIfReadable(verifiedFolder.appendingPath(SHA256Sums.fileName)), actual == locked else {
            return (archive.map { "\($0): its SHA256SUMS " } ?? "\(folder.appendingPath(SHA256Sums.fileName)): ") + LockCheck.changed(version)
        }
        if let archive {
            let name = archive.split(separator: "/").last.map(String.init) ?? archive
            guard let locked = lock.digests[CorpusLock.Fact(.archive, version, name)] else {
                return "\(archive): not locked: fixturekit.lock has no archive line for it"
            }
            if (try? FileHasher())?.digestIfReadable(archive) != locked { return "\(archive): " + LockCheck.changed(version) }
        }
        return nil
    }

    /// Why `stage` may not run: it shipped with a frozen version, and one of its
    /// files is not what the lock records (`migrations/1.0.0-2.0.0.sql: changed
    /// since 2.0.0 was locked`), or its declaration in the configuration (`fixturekit.json:
    /// its declaration (what it runs and how) changed since 2.0.0 was locked`), or
    /// is not locked at all; `nil` otherwise.
    func stageProblem(_ stage: CorpusConfiguration.Stage) -> String? {
        guard frozen.contains(stage.to) else { return nil }
        let lock: CorpusLock
        switch self.lock {
        case .success(let read): lock = read
        case .failure(let error): return error.description
        }
        for path in stage.lockedFiles(in: configuration.folder) {
            guard let locked = lock.digests[CorpusLock.Fact(.stage, stage.to, path)] else {
                return "\(path): not locked: \(stage.to) shipped with it, but fixturekit.lock does not record it (\(FixtureKitError.Remedy.lockAfterReview.text))"
            }
            // A file that cannot be read is the stage's own failure to report.
            guard let actual = (try? FileHasher())?.digestIfReadable(CorpusFacts.resolve(path, in: configuration.folder)) else { continue }
            if actual != locked { return "\(path): " + LockCheck.changed(stage.to) }
        }
        guard LockCheck.pinsDeclarations(lock, configuration: configuration) else { return nil }
        guard let locked = lock.digests[CorpusLock.Fact(.declaration, stage.to, stage.from)] else {
            return "\(CorpusConfiguration.fileName): its declaration is not locked: \(stage.to) shipped with it, but fixturekit.lock does not record it (\(FixtureKitError.Remedy.lockAfterReview.text))"
        }
        if StageDeclaration(stage, in: configuration).digest != locked {
            return "\(CorpusConfiguration.fileName): \(LockCheck.declarationWords) " + LockCheck.changed(stage.to)
        }
        return nil
    }
}
