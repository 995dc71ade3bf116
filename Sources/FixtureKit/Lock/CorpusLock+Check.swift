import FixtureKitSystem
import FixtureKitCrypto
import FixtureKitModels

/// What `verify` (and through it `status`), `migrate` and `upgrade` check against
/// a corpus' `fixturekit.lock`. A corpus without the file is not checked against one.
enum LockCheck {
    /// The corpus folder (resolved) that holds `path`, and `path`'s name in it.
    /// `MigrationFixtures/2.0.0/` and `.` run inside it give the same answer.
    static func locate(_ path: String) -> (corpus: String, name: String)? {
        let trimmed = path.trimmingTrailingSlashes
        var name = trimmed.split(separator: "/").last.map(String.init) ?? trimmed
        var parent = AtomicFile.parentFolder(of: trimmed)
        if name == "." || name == ".." || trimmed == "/" {
            guard let resolved = realPath(trimmed) else { return nil }
            name = resolved.split(separator: "/").last.map(String.init) ?? ""
            parent = AtomicFile.parentFolder(of: resolved)
        }
        guard !name.isEmpty, let corpus = realPath(parent) else { return nil }
        return (corpus, name)
    }

    static func realPath(_ path: String) -> String? { POSIX.realPath(path) }

    /// The lock of the corpus that holds `path`, or `nil` when that corpus has none.
    static func lock(around path: String) -> (corpus: String, name: String, lock: Result<CorpusLock, FixtureKitError>)? {
        guard let (corpus, name) = locate(path),
              (try? POSIX.lstatIfPresent(corpus.appendingPath(CorpusLock.fileName))) != nil else { return nil }
        let lock = Result { () throws(FormatError) -> CorpusLock in try CorpusLock.load(corpus: corpus) ?? CorpusLock() }.mapError { FixtureKitError($0) }
        return (corpus, name, lock)
    }

    /// `changed since 2.0.0 was locked`: the words of every digest that differs from the lock.
    static func changed(_ version: String) -> String { "changed since \(version) was locked" }

    // MARK: - A fixture folder

    /// A fixture folder against its `sums` line (and with a content hash from
    /// `verify --deep`, its `content` line): problems named below the folder.
    static func fixtureProblems(_ folder: String, contentHash: String?, storeName: String?) -> [VerificationProblem] {
        guard let (_, version, loaded) = lock(around: folder), Version(version) != nil else { return [] }
        let sums = SHA256Sums.fileName
        let lock: CorpusLock
        switch loaded {
        case .success(let read): lock = read
        case .failure(let error): return [VerificationProblem(kind: .lock, file: sums, detail: "cannot be checked against fixturekit.lock: \(error.why)")]
        }
        guard let locked = lock.digests[CorpusLock.Fact(.sums, version)] else {
            return [VerificationProblem(kind: .lock, file: sums, detail: "not locked: fixturekit.lock has no sums line for \(version) (\(FixtureKitError.Remedy.lockAfterReview.text))")]
        }
        var problems: [VerificationProblem] = []
        // The checksums hold (they were verified first): their file is what is pinned.
        if let actual = try? FileHasher().digest(ofFileAt: folder.appendingPath(sums)).digest, actual != locked {
            problems.append(VerificationProblem(kind: .lock, file: sums, detail: changed(version), expected: locked.hex, actual: actual.hex))
        }
        if let contentHash {
            let file = storeName ?? sums
            switch lock.digests[CorpusLock.Fact(.content, version)] {
            case nil:
                problems.append(VerificationProblem(kind: .lock, file: file, detail: "not locked: fixturekit.lock has no content line for \(version)"))
            case let locked? where locked.hex != contentHash:
                problems.append(VerificationProblem(kind: .lock, file: file, detail: "content " + changed(version), expected: locked.hex, actual: contentHash))
            default:
                break
            }
        }
        return problems
    }

    // MARK: - An archive

    /// An archive against its `archive` line, and when its version has no folder in
    /// the corpus, its `SHA256SUMS` (and with `deep`, its store's content) against
    /// the version's `sums` (and `content`) line. `file` of each problem is the
    /// archive's name.
    static func archiveProblems(_ archive: String, digest: @autoclosure () -> SHA256Digest?, sumsBytes: @autoclosure () -> [UInt8]?, deep: Bool) -> [VerificationProblem] {
        guard let (corpus, name, loaded) = lock(around: archive) else { return [] }
        let configuration = try? CorpusConfiguration.load(corpus.appendingPath(CorpusConfiguration.fileName))
        guard let version = CorpusFacts.archiveVersion(name, configuration: configuration) else { return [] }
        let lock: CorpusLock
        switch loaded {
        case .success(let read): lock = read
        case .failure(let error): return [VerificationProblem(kind: .lock, file: name, detail: "cannot be checked against fixturekit.lock: \(error.why)")]
        }
        guard let locked = lock.digests[CorpusLock.Fact(.archive, version, name)] else {
            return [VerificationProblem(kind: .lock, file: name, detail: "not locked: fixturekit.lock has no archive line for it (\(FixtureKitError.Remedy.lockAfterReview.text))")]
        }
        var problems: [VerificationProblem] = []
        if let actual = digest(), actual != locked {
            problems.append(VerificationProblem(kind: .lock, file: name, detail: changed(version), expected: locked.hex, actual: actual.hex))
        }
        // A version kept as its archive alone: the archive's SHA256SUMS is the fixture's.
        guard !FixtureLocator.isFolder(corpus.appendingPath(version)) else { return problems }
        if let lockedSums = lock.digests[CorpusLock.Fact(.sums, version)], let bytes = sumsBytes(), let actual = try? SHA256.hash(bytes), actual != lockedSums {
            problems.append(VerificationProblem(kind: .lock, file: name, detail: "its SHA256SUMS " + changed(version), expected: lockedSums.hex, actual: actual.hex))
        }
        if deep, let lockedContent = lock.digests[CorpusLock.Fact(.content, version)] {
            do {
                let actual = try ContentHash.of(archive)
                if actual != lockedContent {
                    problems.append(VerificationProblem(kind: .lock, file: name, detail: "its store's content " + changed(version), expected: lockedContent.hex, actual: actual.hex))
                }
            } catch {
                problems.append(VerificationProblem(kind: .lock, file: name, detail: "its content cannot be hashed: \(error.why)"))
            }
        }
        return problems
    }

    // MARK: - The corpus

    /// The lock against the corpus as a whole: every locked version still has a
    /// fixture, every locked archive is there, and the stage files that shipped with
    /// each frozen version are those the lock pins, unchanged. Each fixture folder
    /// and archive is checked against its own lines when it is verified.
    /// - Returns: `nil` when the corpus has no `fixturekit.lock`.
    static func corpusResult(_ corpus: String) -> FolderVerification? {
        let path = corpus.appendingPath(CorpusLock.fileName)
        guard (try? POSIX.lstatIfPresent(path)) != nil else { return nil }
        var result = FolderVerification(path: path, verifiedFiles: 0, verifiedBytes: 0, problems: [], source: .lock)
        let lock: CorpusLock
        do { lock = try CorpusLock.load(corpus: corpus) ?? CorpusLock() } catch {
            result.problems = [VerificationProblem(kind: .lock, file: CorpusLock.fileName, detail: error.why)]
            return result
        }
        result.verifiedFiles = lock.digests.count
        let configPath = corpus.appendingPath(CorpusConfiguration.fileName)
        var configuration: CorpusConfiguration?
        if (try? POSIX.lstatIfPresent(configPath)) != nil {
            do { configuration = try CorpusConfiguration.load(configPath) } catch {
                result.problems.append(VerificationProblem(kind: .lock, file: CorpusConfiguration.fileName, detail: "cannot be read, so its stages cannot be checked against fixturekit.lock: \(error.why)"))
            }
        }
        let facts: CorpusFacts
        do { facts = try CorpusFacts(corpus: corpus, configuration: configuration) } catch {
            result.problems.append(VerificationProblem(kind: .lock, file: CorpusLock.fileName, detail: error.description))
            return result
        }
        result.problems += problems(lock: lock, facts: facts, configured: configuration != nil)
        result.problems.sort { $0.file != $1.file ? $0.file.utf8.lexicographicallyPrecedes($1.file.utf8) : ($0.detail ?? "").utf8.lexicographicallyPrecedes(($1.detail ?? "").utf8) }
        return result
    }

    /// The corpus-wide differences: versions and archives gone, stage files changed,
    /// gone, no longer run, or not locked.
    static func problems(lock: CorpusLock, facts: CorpusFacts, configured: Bool) -> [VerificationProblem] {
        var problems: [VerificationProblem] = []
        for version in lock.versions.sorted(by: CorpusStatus.versionOrder) where !facts.frozen.contains(version) {
            problems.append(VerificationProblem(kind: .lock, file: version, detail: "missing: \(version) is locked in fixturekit.lock, but the corpus holds neither its folder nor its archive"))
        }
        for (fact, locked) in lock.digests where facts.frozen.contains(fact.version) {
            switch fact.kind {
            case .archive where facts.sources[fact] == nil:
                problems.append(VerificationProblem(kind: .lock, file: fact.path ?? "", detail: "missing: fixturekit.lock locks it as an archive of \(fact.version)"))
            case .stage:
                let path = fact.path ?? ""
                let named = facts.configuration?.stages.contains { $0.to == fact.version && $0.lockedFiles(in: facts.corpus).contains(path) } ?? true
                if configured && !named {
                    problems.append(VerificationProblem(kind: .lock, file: path, detail: "locked as a stage that shipped with \(fact.version), but fixturekit.json no longer runs it"))
                    continue
                }
                switch Result(catching: { try FileHasher().digest(ofFileAt: CorpusFacts.resolve(path, in: facts.corpus)).digest }) {
                case .success(let actual) where actual != locked:
                    problems.append(VerificationProblem(kind: .lock, file: path, detail: changed(fact.version), expected: locked.hex, actual: actual.hex))
                case .success:
                    break
                case .failure:
                    problems.append(VerificationProblem(kind: .lock, file: path, detail: "missing: \(fact.version) shipped with it (fixturekit.lock locks it), but it cannot be read"))
                }
            case .declaration where configured:
                if let problem = declarationProblem(fact, locked: locked, current: facts.sources[fact]) { problems.append(problem) }
            default:
                break
            }
        }
        let pins = pinsDeclarations(lock, configuration: facts.configuration)
        for fact in facts.sources.keys where fact.kind == .declaration && pins && lock.digests[fact] == nil {
            problems.append(VerificationProblem(
                kind: .lock, file: CorpusConfiguration.fileName,
                detail: "\(stageName(fact)): not locked: it shipped with \(fact.version), but fixturekit.lock does not record its declaration (\(FixtureKitError.Remedy.lockAfterReview.text))"))
        }
        for fact in facts.sources.keys where fact.kind == .stage && lock.digests[fact] == nil {
            problems.append(VerificationProblem(kind: .lock, file: fact.path ?? "", detail: "not locked: \(fact.version) shipped with it, but fixturekit.lock does not record it (\(FixtureKitError.Remedy.lockAfterReview.text))"))
        }
        return problems
    }

    // MARK: - Stage declarations

    /// Whether `lock` pins the declarations of the stages that shipped: it holds a
    /// `declaration` line, or no stage of the configuration leads to a version it
    /// locks. A lock written before declarations were pinned holds stage files
    /// only; it is checked as it was until `fixturekit lock` adds them.
    static func pinsDeclarations(_ lock: CorpusLock, configuration: CorpusConfiguration?) -> Bool {
        let versions = lock.versions
        return lock.digests.keys.contains { $0.kind == .declaration } || !(configuration?.stages.contains { versions.contains($0.to) } ?? false)
    }

    /// How a declaration is named when it changed.
    static let declarationWords = "its declaration (what it runs and how)"

    /// `stage 1.0.0 -> 2.0.0`: the stage a `declaration` fact is about.
    static func stageName(_ fact: CorpusLock.Fact) -> String {
        "stage \(fact.path ?? "") -> \(fact.version)"
    }

    /// Why a locked declaration is not the configuration's; `nil` when it is.
    /// - Parameter current: where the configuration's digest of the stage comes from; `nil` when it declares none.
    static func declarationProblem(_ fact: CorpusLock.Fact, locked: SHA256Digest, current: CorpusFacts.Source?) -> VerificationProblem? {
        let file = CorpusConfiguration.fileName
        guard case .declaration(let actual)? = current else {
            return VerificationProblem(kind: .lock, file: file, detail: "\(stageName(fact)): locked as a stage that shipped with \(fact.version), but fixturekit.json no longer declares it")
        }
        guard actual != locked else { return nil }
        return VerificationProblem(
            kind: .lock, file: file, detail: "\(stageName(fact)): \(declarationWords) \(changed(fact.version))",
            expected: locked.hex, actual: actual.hex)
    }
}
