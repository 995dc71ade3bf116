import FixtureKitSystem
import FixtureKitModels

/// What the corpus' fixtures say about the plan, read from their manifests: which
/// versions share a schema version, and which fixtures hold the same content.
struct SourceFacts: Sendable {
    /// Versions whose fixtures have the same `user_version` and structural schema.
    var evidence: CorpusConfiguration.SchemaEvidence
    /// Each fixture folder's content hash, as its manifest records it.
    var contentHashes: [String: String]

    init(configuration: CorpusConfiguration) {
        var schemas: [String: String] = [:]
        var contentHashes: [String: String] = [:]
        let versions = Set([configuration.current] + configuration.supported + configuration.stages.flatMap { [$0.from, $0.to] })
        for version in versions {
            let path = configuration.resolve(version).appendingPath(Manifest.fileName)
            guard let bytes = try? POSIX.readFile(path, limit: MetadataSink.manifestLimit),
                  let manifest = (try? Manifest.decodeIfWrittenByFixtureKit(bytes)) ?? nil else { continue }
            schemas[version] = "user_version \(manifest.sqlite.userVersion), schema \(manifest.schema.hash)"
            contentHashes[version] = manifest.contentHash
        }
        evidence = CorpusConfiguration.SchemaEvidence([schemas])
        self.contentHashes = contentHashes
    }
}

extension MigrationRunner {
    /// The paths with each distinct source once: a path to `current` whose source
    /// fixture holds the same content (its manifest's content hash) as an earlier
    /// one's, through the same stages, is not run again; the earlier one stands
    /// for it (``MigrationPath/alsoFor``). A patch release whose store the build
    /// did not touch is frozen as the same content as the release before it.
    func distinctSources(_ paths: [MigrationPath]) -> [MigrationPath] {
        var kept: [MigrationPath] = []
        for path in paths {
            if path.kind == .path, let content = sourceFacts.contentHashes[path.source],
               let index = kept.firstIndex(where: { $0.kind == .path && $0.stages == path.stages && $0.target == path.target && sourceFacts.contentHashes[$0.source] == content }) {
                kept[index].alsoFor = (kept[index].alsoFor ?? []) + [path.source]
                continue
            }
            kept.append(path)
        }
        return kept
    }
}
