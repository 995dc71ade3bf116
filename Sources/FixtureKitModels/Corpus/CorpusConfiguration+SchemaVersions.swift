import FixtureKitSystem

/// Versions that share a schema version: patch releases that did not touch the store.
///
/// Two versions share one when something says so (`userVersions` gives them the
/// same number, or their fixtures have the same model identity and structural
/// schema) and no stage lies between them: no stage ends after the lower and no
/// later than the higher. Such versions are one source for the plan: a chain
/// from either may take the stages that start at the other, and a chain ends at
/// the first version that shares the target's schema version.
extension CorpusConfiguration {
    /// What says that versions share a schema version: per source of evidence
    /// (the configuration's `userVersions`, the fixtures' manifests), a key per
    /// version; two versions with the same key in one source share one.
    public struct SchemaEvidence: Sendable, Equatable {
        public var sources: [[String: String]]

        public init(_ sources: [[String: String]] = []) { self.sources = sources }

        func sameKey(_ lhs: String, _ rhs: String) -> Bool {
            sources.contains { keys in keys[lhs] != nil && keys[lhs] == keys[rhs] }
        }
    }

    /// The configuration's own evidence: `userVersions`.
    package var declaredSchemaEvidence: SchemaEvidence {
        SchemaEvidence(userVersions.map { [$0.mapValues { "user_version \($0)" }] } ?? [])
    }

    /// Whether a stage lies between two versions: one that ends after the lower
    /// and no later than the higher.
    package func stageLiesBetween(_ lhs: String, _ rhs: String) -> Bool {
        guard let left = Version(lhs), let right = Version(rhs) else { return true }
        let (low, high) = left < right ? (left, right) : (right, left)
        return stages.contains { stage in
            guard let to = Version(stage.to) else { return false }
            return low < to && !(high < to)
        }
    }

    /// Whether `lhs` and `rhs` are one schema version, as ``SchemaEvidence`` and the stages say.
    package func shareSchema(_ lhs: String, _ rhs: String, evidence: SchemaEvidence) -> Bool {
        lhs == rhs || (evidence.sameKey(lhs, rhs) && !stageLiesBetween(lhs, rhs))
    }

    /// The first stage whose `from` is a version of `at`'s schema version:
    /// `at`'s own first, then the nearest `to`.
    package func nextStage(from at: String, evidence: SchemaEvidence) -> Stage? {
        let own = stages.filter { $0.from == at }
        let candidates = own.isEmpty ? stages.filter { shareSchema($0.from, at, evidence: evidence) } : own
        return candidates.min { lhs, rhs in
            guard let left = Version(lhs.to), let right = Version(rhs.to) else { return false }
            return left < right
        }
    }
}
