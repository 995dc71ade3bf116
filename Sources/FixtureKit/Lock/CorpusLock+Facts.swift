import FixtureKitSystem
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

/// The facts a corpus holds now, as ``CorpusLock`` records them, and where each
/// one's digest comes from. Listing them reads no file's contents; a digest is
/// computed when it is asked for.
struct CorpusFacts {
    /// Where the digest of one fact comes from.
    enum Source: Sendable, Equatable {
        /// The SHA-256 of a file's bytes (SHA256SUMS, an archive, a stage file).
        case file(String)
        /// The SHA-256 of the `SHA256SUMS` inside an archive (a version kept as its archive alone).
        case archiveSums(String)
        /// The content hash of a fixture folder's store, on a copy.
        case fixtureContent(String)
        /// The content hash of an archive's store, unpacked into a temporary folder.
        case archiveContent(String)
        /// A stage's declaration in the configuration (``StageDeclaration``).
        case declaration(SHA256Digest)
    }

    let corpus: String
    let configuration: CorpusConfiguration?
    /// Every fact of the corpus (of the versions asked for), with its source.
    private(set) var sources: [CorpusLock.Fact: Source] = [:]
    /// The versions frozen in the corpus: a fixture folder, or an archive.
    private(set) var frozen: Set<String> = []

    /// Lists the facts of `corpus`: each fixture folder named as a version (its
    /// `sums` and `content`), each archive of a version (`archive`, and `sums` and
    /// `content` from the archive when the version has no folder), and each stage
    /// file that leads to a frozen version (`stage`).
    /// - Parameter versions: only the facts of these versions; all when `nil`.
    /// - Throws: ``FixtureKitError`` when the corpus folder cannot be listed.
    init(corpus: String, configuration: CorpusConfiguration?, versions: Set<String>? = nil) throws(FixtureKitError) {
        self.corpus = corpus
        self.configuration = configuration
        let folders = try Verifier.fixtureFolders(in: corpus).filter { Version($0) != nil && FixtureLocator.isFolder(corpus.appendingPath($0)) }
        for version in folders where versions?.contains(version) ?? true {
            frozen.insert(version)
            sources[CorpusLock.Fact(.sums, version)] = .file(corpus.appendingPath(version).appendingPath(SHA256Sums.fileName))
            sources[CorpusLock.Fact(.content, version)] = .fixtureContent(corpus.appendingPath(version))
        }
        for name in Verifier.archiveFiles(in: corpus) {
            guard let version = Self.archiveVersion(name, configuration: configuration), versions?.contains(version) ?? true else { continue }
            let archive = corpus.appendingPath(name)
            sources[CorpusLock.Fact(.archive, version, name)] = .file(archive)
            if !folders.contains(version) && !frozen.contains(version) {
                sources[CorpusLock.Fact(.sums, version)] = .archiveSums(archive)
                sources[CorpusLock.Fact(.content, version)] = .archiveContent(archive)
            }
            frozen.insert(version)
        }
        for stage in configuration?.stages ?? [] where frozen.contains(stage.to) {
            // A stage file that is not there cannot be pinned: running the stage says so.
            for path in stage.lockedFiles(in: corpus) where (try? POSIX.lstatIfPresent(Self.resolve(path, in: corpus))) != nil {
                sources[CorpusLock.Fact(.stage, stage.to, path)] = .file(Self.resolve(path, in: corpus))
            }
            if let configuration {
                sources[CorpusLock.Fact(.declaration, stage.to, stage.from)] = .declaration(StageDeclaration(stage, in: configuration).digest)
            }
        }
    }

    /// The version an archive of the corpus holds, from its name: as `pack` names
    /// it for the configuration's store (`App-1.0.0.tar.zst`), or without a
    /// configuration, the first `-` after which the name is a version.
    static func archiveVersion(_ name: String, configuration: CorpusConfiguration?) -> String? {
        if let configuration { return configuration.archiveVersion(fileName: name) }
        guard let format = ArchiveFormat(fileName: name) else { return nil }
        let stem = name.dropLast(format.suffix.count)
        var index = stem.startIndex
        while let dash = stem[index...].firstIndex(of: "-") {
            let rest = String(stem[stem.index(after: dash)...])
            if Version(rest) != nil, dash != stem.startIndex { return rest }
            index = stem.index(after: dash)
        }
        return nil
    }

    static func resolve(_ path: String, in corpus: String) -> String {
        path.hasPrefix("/") ? path : corpus.appendingPath(path)
    }

    /// The digest of `fact` as the corpus holds it now.
    /// - Throws: ``FixtureKitError`` when its file cannot be read (`missing`,
    ///   `unreadable`), or its store or archive cannot be hashed.
    func digest(of fact: CorpusLock.Fact) throws(FixtureKitError) -> SHA256Digest {
        guard let source = sources[fact] else {
            throw FixtureKitError(what: "lock", path: corpus, why: "no \(fact) in the corpus")
        }
        switch source {
        case .file(let path):
            do { return try FileHasher().digest(ofFileAt: path).digest } catch {
                throw FixtureKitError.wrapping(error, what: "hash", path: path)
            }
        case .archiveSums(let archive):
            let metadata = try ArchiveMetadata.read(archive, what: "lock")
            do { return try SHA256.hash(metadata.sumsBytes) } catch {
                throw FixtureKitError(what: "lock", path: archive, why: error.description, cause: error)
            }
        case .fixtureContent(let folder):
            return try ContentHash.of(folder)
        case .archiveContent(let archive):
            return try ContentHash.of(archive)
        case .declaration(let digest):
            return digest
        }
    }

    /// Every fact and its digest: what ``CorpusLock`` would record of the corpus now.
    func lock() throws(FixtureKitError) -> CorpusLock {
        var lock = CorpusLock()
        for fact in sources.keys { lock.digests[fact] = try digest(of: fact) }
        return lock
    }
}

extension CorpusConfiguration.Stage {
    /// The files of the corpus this stage runs, as the configuration names them:
    /// its SQL file; each migration's SQL file of its folder; or its program, when
    /// named by a path (`migrations/2.0.0-3.0.0.sh`, not a program found on PATH),
    /// and every argument that names a regular file of the corpus (the script a
    /// `python3` is given). A Swift stage's code is the app's: it has none.
    func lockedFiles(in corpus: String) -> [String] {
        if let sql { return [sql] }
        if let folder {
            // A folder that cannot be read runs nothing: running the stage says why.
            return ((try? MigrationFolder.read(folder, corpus: corpus, through: through))?.migrations ?? []).map(\.file)
        }
        guard let argv = exec, let program = argv.first else { return [] }
        var files = program.contains("/") ? [program] : []
        for argument in argv.dropFirst() where !argument.isEmpty && !argument.hasPrefix("-") && !files.contains(argument) {
            guard let info = try? POSIX.lstatIfPresent(CorpusFacts.resolve(argument, in: corpus)), info.kind == .regular else { continue }
            files.append(argument)
        }
        return files
    }
}
