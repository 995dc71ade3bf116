import FixtureKitSystem
import FixtureKitCrypto
import FixtureKitModels

/// One line a write of `fixturekit.lock` recomputed, and what it held before.
public struct LockEdit: Sendable, Equatable, Codable {
    public internal(set) var fact: CorpusLock.Fact
    /// The digest the lock held; `nil` for a line added.
    public internal(set) var old: String?
    /// The digest it holds now; `nil` for a line removed.
    public internal(set) var new: String?

    /// Whether the line changed (added, removed or another digest).
    public var changed: Bool { old != new }
}

/// Where a command that writes a fixture or an archive stands with its corpus' lock.
public struct LockTarget: Sendable, Equatable {
    /// The corpus folder, resolved.
    public var corpus: String
    public var version: String
    /// Whether the corpus has a `fixturekit.lock`.
    public var hasLock: Bool
    /// Whether the lock has lines of what is about to be written (the version's
    /// `sums` or `content`, or the archive's line): a rewrite of shipped history.
    public var locked: Bool = false
}

extension CorpusLock {
    /// Refuses, unless `force`, to rewrite what `fixturekit.lock` records: the
    /// fixture folder `path` (`kind` nil) or the archive `path` (`kind` `.archive`),
    /// as the version `version` of the corpus that holds it.
    ///
    /// - Returns: the corpus and version, for ``update(_:kinds:known:create:)``;
    ///   `nil` when `path` is not in a corpus (a folder with `fixturekit.json` or
    ///   `fixturekit.lock`) or its name is not a version.
    /// - Throws: ``FixtureKitError`` (exit status 2) `<what>: <path>: the fixture is
    ///   locked in fixturekit.lock (hint: --force rewrites it and its lock line)`.
    static func guardRewrite(of path: String, version: String? = nil, archive: Bool = false, what: String, force: Bool) throws(FixtureKitError) -> LockTarget? {
        guard let (corpus, name) = LockCheck.locate(path) else { return nil }
        let hasLock = (try? POSIX.lstatIfPresent(corpus.appendingPath(fileName))) != nil
        let hasConfiguration = (try? POSIX.lstatIfPresent(corpus.appendingPath(CorpusConfiguration.fileName))) != nil
        guard hasLock || hasConfiguration else { return nil }
        let configuration = hasConfiguration ? try? CorpusConfiguration.load(corpus.appendingPath(CorpusConfiguration.fileName)) : nil
        guard let version = version ?? (archive ? CorpusFacts.archiveVersion(name, configuration: configuration) : name), Version(version) != nil else { return nil }
        var target = LockTarget(corpus: corpus, version: version, hasLock: hasLock)
        guard hasLock else { return target }
        let lock = try existing(in: corpus) ?? CorpusLock()
        target.locked = archive
            ? lock.digests[Fact(.archive, version, name)] != nil
            : lock.digests.keys.contains { $0.version == version && ($0.kind == .sums || $0.kind == .content) }
        guard target.locked, !force else { return target }
        throw FixtureKitError(
            what: what, path: path, why: "the \(archive ? "archive" : "fixture") is locked in \(fileName)",
            remedy: .replaceLockedFixture)
    }

    /// Recomputes the lines of `kinds` of `target`'s version from the corpus as it is
    /// now, and writes the lock (`.tmp`, fsync, rename), under an exclusive `flock`
    /// of the corpus folder so that two commands do not lose each other's lines.
    ///
    /// A line whose file is gone is removed. A corpus without a lock gets one only
    /// with `create` (a capture into a corpus with `fixturekit.json`).
    /// - Parameter known: digests the caller just computed (the content hash a
    ///   capture wrote into the manifest), taken instead of computing them again.
    /// - Returns: every line recomputed, changed or not.
    @discardableResult
    static func update(_ target: LockTarget, kinds: Set<Kind>, known: [Fact: SHA256Digest] = [:], create: Bool = false) throws(FixtureKitError) -> [LockEdit] {
        guard target.hasLock || create else { return [] }
        return try update(corpus: target.corpus, versions: [target.version], kinds: kinds, known: known)
    }

    /// `fixturekit lock`: (re)writes the lock of the corpus whose configuration is at
    /// `configPath` from every fixture, archive and shipped stage it holds, once
    /// any replacement of a fixture that a killed run left decided is finished
    /// (``FixtureReplacement``).
    /// - Returns: every line, with what it held before.
    public static func write(config configPath: String) throws(FixtureKitError) -> [LockEdit] {
        let configuration = try CorpusConfiguration.load(configPath)
        // A replacement of a fixture that a killed run left decided is finished first.
        for version in try Verifier.fixtureFolders(in: configuration.folder) {
            try FixtureReplacement.finish(configuration.folder.appendingPath(version), what: "lock")
        }
        return try update(corpus: configuration.folder, versions: nil, kinds: Set(Kind.allCases), known: [:])
    }

    private static func update(corpus: String, versions: Set<String>?, kinds: Set<Kind>, known: [Fact: SHA256Digest]) throws(FixtureKitError) -> [LockEdit] {
        let path = corpus.appendingPath(fileName)
        let folder: FileDescriptor
        do { folder = try FileDescriptor.open(corpus, .readOnly, options: .directory) } catch {
            throw FixtureKitError(what: "write lock", failed: error)
        }
        defer { try? folder.close() }
        do throws(FileSystemError) { try folder.lock(.exclusive) } catch {
            throw FixtureKitError(what: "write lock: flock", path: corpus, why: error.reason, cause: error)
        }
        var lock = try existing(in: corpus) ?? CorpusLock()
        let configPath = corpus.appendingPath(CorpusConfiguration.fileName)
        let configuration = (try? POSIX.lstatIfPresent(configPath)) == nil ? nil : try CorpusConfiguration.load(configPath)
        let facts = try CorpusFacts(corpus: corpus, configuration: configuration, versions: versions)
        var kinds = kinds
        // A lock written before stage declarations were pinned gets them from `fixturekit lock` alone.
        if versions != nil && !LockCheck.pinsDeclarations(lock, configuration: configuration) { kinds.remove(.declaration) }
        var edits: [LockEdit] = []
        for fact in lock.digests.keys where kinds.contains(fact.kind) && (versions?.contains(fact.version) ?? true) && facts.sources[fact] == nil {
            edits.append(LockEdit(fact: fact, old: lock.digests[fact]?.hex, new: nil))
            lock.digests[fact] = nil
        }
        for fact in facts.sources.keys where kinds.contains(fact.kind) {
            let digest: SHA256Digest
            if let given = known[fact] { digest = given } else { digest = try facts.digest(of: fact) }
            edits.append(LockEdit(fact: fact, old: lock.digests[fact]?.hex, new: digest.hex))
            lock.digests[fact] = digest
        }
        let bytes = lock.rendered()
        if (try? POSIX.readFile(path, limit: 16 << 20)) != bytes {
            do { try AtomicFile.write(bytes, to: path) } catch {
                throw FixtureKitError(what: "write lock", failed: error)
            }
        }
        // In the lock's own order.
        return edits.sorted { Array($0.fact.description.utf8).lexicographicallyPrecedes(Array($1.fact.description.utf8)) }
    }
}
