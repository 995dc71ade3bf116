import FixtureKitSystem
import FixtureKitModels

/// One run of the matrix: a fixture of `source` taken through `stages` to `target`.
public struct MigrationPath: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Codable {
        /// A supported version all the way to the current one.
        case path
        /// One stage on its own, checked against the fixture of its target version.
        case hop
    }

    public var kind: Kind
    public var source: String
    public var target: String
    /// The stages in order; empty when no chain leads to `target` (see ``gap``).
    public var stages: [CorpusConfiguration.Stage]
    /// Why there is no chain of stages, when there is none: `no stage from 2.0.0`.
    public var gap: String?
    /// The other supported versions this run stands for: their fixtures hold the
    /// same content (content hash) and take the same stages, so they run once.
    public var alsoFor: [String]? = nil

    /// `1.0.0 -> 2.0.0 -> 3.0.0`.
    public var id: String {
        guard !stages.isEmpty else { return "\(source) -> \(target)" }
        return ([source] + stages.map(\.to)).joined(separator: " -> ")
    }
}


extension CorpusConfiguration {
    /// The matrix: for every supported version the chain of stages to `current`,
    /// and every single stage (hop) on its own, each once, in a stable order.
    /// - Parameters:
    ///   - from: only the runs that start at this version.
    ///   - evidence: which versions share a schema version (see ``SchemaEvidence``),
    ///     beyond what `userVersions` says.
    public func migrationPaths(from: String? = nil, evidence: SchemaEvidence = SchemaEvidence()) -> [MigrationPath] {
        var paths: [MigrationPath] = []
        let evidence = SchemaEvidence(declaredSchemaEvidence.sources + evidence.sources)
        for version in supportedVersions {
            let (chain, gap) = chainOfStages(from: version, to: current, evidence: evidence)
            paths.append(MigrationPath(kind: .path, source: version, target: current, stages: chain, gap: gap))
        }
        let ordered = stages.sorted { lhs, rhs in
            (Version(lhs.from).map { [$0] } ?? [], lhs.to) < (Version(rhs.from).map { [$0] } ?? [], rhs.to)
        }
        for stage in ordered {
            let hop = MigrationPath(kind: .hop, source: stage.from, target: stage.to, stages: [stage])
            // A one-stage path to `current` is already in the matrix.
            if !paths.contains(where: { $0.stages == hop.stages && $0.source == hop.source }) { paths.append(hop) }
        }
        return from.map { version in paths.filter { $0.source == version } } ?? paths
    }

    /// The stages from `source` to `target`, each starting where the last ended
    /// (the nearest next version when several start at one version). A version
    /// that shares a schema version with another (``shareSchema(_:_:evidence:)``)
    /// takes the stages that start there, and the chain ends at a version that
    /// shares the target's.
    func chainOfStages(from source: String, to target: String, evidence: SchemaEvidence? = nil) -> ([Stage], String?) {
        let evidence = evidence ?? declaredSchemaEvidence
        var chain: [Stage] = []
        var at = source
        while !shareSchema(at, target, evidence: evidence) {
            guard let next = nextStage(from: at, evidence: evidence) else {
                return ([], "no stage from \(at) (the chain to \(target) stops there)")
            }
            if let to = Version(next.to), let end = Version(target), end < to {
                return ([], "the stage from \(at) goes to \(next.to), past \(target)")
            }
            chain.append(next)
            at = next.to
        }
        return (chain, nil)
    }
}

private func < (lhs: ([Version], String), rhs: ([Version], String)) -> Bool {
    if lhs.0 != rhs.0 { return lhs.0.lexicographicallyPrecedes(rhs.0) }
    return lhs.1.utf8.lexicographicallyPrecedes(rhs.1.utf8)
}
