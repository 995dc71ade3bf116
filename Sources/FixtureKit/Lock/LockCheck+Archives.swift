import FixtureKitSystem
import FixtureKitCrypto
import FixtureKitModels

extension LockCheck {
    /// An archive beside the fixture folder of its version (`App-1.0.0.tar.zst`
    /// and `1.0.0/`) must hold the same fixture: the same files with the same
    /// digests, as the `SHA256SUMS` inside it and the folder's say (`status` shows
    /// the same differences). A difference names both, and the files that differ.
    /// Checked with or without a `fixturekit.lock`; `file` of the problem is the archive's name.
    static func folderProblems(ofArchive archive: String, sumsBytes: [UInt8]?) -> [VerificationProblem] {
        guard let (corpus, name) = locate(archive), let sumsBytes else { return [] }
        let configPath = corpus.appendingPath(CorpusConfiguration.fileName)
        let configuration = (try? POSIX.lstatIfPresent(configPath)) != nil ? try? CorpusConfiguration.load(configPath) : nil
        guard let version = CorpusFacts.archiveVersion(name, configuration: configuration) else { return [] }
        // A folder without a readable SHA256SUMS is reported by its own verification.
        guard FixtureLocator.isFolder(corpus.appendingPath(version)),
              let folderBytes = try? POSIX.readFile(corpus.appendingPath(version).appendingPath(SHA256Sums.fileName)) else { return [] }
        let differences = Self.differences(folder: SHA256Sums(parsing: folderBytes), archive: SHA256Sums(parsing: sumsBytes))
        guard !differences.isEmpty else { return [] }
        let folder = sibling(of: archive, named: version)
        var shown = differences.prefix(3).joined(separator: "; ")
        if differences.count > 3 { shown += "; and \(differences.count - 3) more" }
        return [VerificationProblem(
            kind: .lock, file: name, detail: "differs from its folder \(folder): \(shown)",
            hint: FixtureKitError.Remedy.packAgain(folder: folder).text)]
    }

    /// How an archive's SHA256SUMS differs from its folder's, file by file in
    /// bytewise order: `App.sqlite: other contents`, `x: only in the folder`.
    static func differences(folder: SHA256Sums, archive: SHA256Sums) -> [String] {
        let inFolder = Dictionary(folder.entries.map { ($0.path, $0.digest) }, uniquingKeysWith: { first, _ in first })
        let inArchive = Dictionary(archive.entries.map { ($0.path, $0.digest) }, uniquingKeysWith: { first, _ in first })
        return Set(inFolder.keys).union(inArchive.keys).sorted().compactMap { path in
            switch (inFolder[path], inArchive[path]) {
            case let (here?, there?): here == there ? nil : "\(path): other contents"
            case (.some, nil): "\(path): only in the folder"
            case (nil, .some): "\(path): only in the archive"
            case (nil, nil): nil
            }
        }
    }

    /// The file or folder `name` beside `path`, as the user named `path`: a bare name beside a bare name.
    static func sibling(of path: String, named name: String) -> String {
        path.contains("/") ? AtomicFile.parentFolder(of: path).appendingPath(name) : name
    }
}
