import FixtureKitSystem
import FixtureKitCrypto
import FixtureKitModels

extension LockCheck {
    /// An archive beside the fixture folder of its version (`App-1.0.0.tar.zst`
    /// and `1.0.0/`) must hold the same fixture: the same files with the same
    /// digests, which the `SHA256SUMS` inside it and the folder's say. A
    /// difference names both, and the files that differ. Checked with or
    /// without a `fixturekit.lock`; `file` of the problem is the archive's name.
    static func folderProblems(ofArchive archive: String, sumsBytes: [UInt8]?) -> [VerificationProblem] {
        guard let (corpus, name) = locate(archive), let sumsBytes else { return [] }
        let configPath = corpus.appendingPath(CorpusConfiguration.fileName)
        let configuration = (try? POSIX.lstatIfPresent(configPath)) != nil ? try? CorpusConfiguration.load(configPath) : nil
        guard let version = CorpusFacts.archiveVersion(name, configuration: configuration) else { return [] }
        // A folder without a readable SHA256SUMS is reported by its own verification.
        guard FixtureLocator.isFolder(corpus.appendingPath(version)),
              let folderBytes = try? POSIX.readFile(corpus.appendingPath(version).appendingPath(SHA256Sums.fileName)) else { return [] }
        let folder = sibling(of: archive, named: version)
        let inArchive = digests(SHA256Sums(parsing: sumsBytes)), inFolder = digests(SHA256Sums(parsing: folderBytes))
        guard inArchive != inFolder else { return [] }
        let differing = Set(inArchive.keys).union(inFolder.keys).filter { inArchive[$0] != inFolder[$0] }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let shown = differing.prefix(3).joined(separator: ", ") + (differing.count > 3 ? " and \(differing.count - 3) more" : "")
        return [VerificationProblem(
            kind: .lock, file: name,
            detail: "holds another fixture than the folder \(folder): \(differing.count == 1 ? "1 file differs" : "\(differing.count) files differ") (\(shown))",
            hint: "one was rewritten without the other: pack the folder again (`fixturekit pack --force \(folder)`), or unpack the archive over it")]
    }

    /// The file or folder `name` beside `path`, as the user named `path`: a bare name beside a bare name.
    static func sibling(of path: String, named name: String) -> String {
        path.contains("/") ? AtomicFile.parentFolder(of: path).appendingPath(name) : name
    }

    /// Path to digest, as a SHA256SUMS lists them.
    private static func digests(_ sums: SHA256Sums) -> [String: SHA256Digest] {
        Dictionary(sums.entries.map { ($0.path.description, $0.digest) }, uniquingKeysWith: { first, _ in first })
    }
}
