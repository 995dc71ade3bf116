import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

extension FoldersCorpus {
    /// The one path's result of `probe`: the stages run plainly, then under `kinds`, the copy unchecked.
    func probe(_ kinds: [ProbeKind], swiftStages: [String: SwiftStage] = [:]) throws -> PathResult {
        var options = MigrationRunner.Options(jobs: 1)
        options.probes = kinds
        options.checks = false
        let report = try MigrationRunner.runMatrix(config: config, options: options, swiftStages: swiftStages)
        return try #require(report.paths.first)
    }

    /// Writes `files` (name and SQL) into `migrations/app/` and a configuration whose one stage is that folder.
    func writeFolderStage(_ files: [(String, String)], record: Bool = false, _ edit: (inout [String: Any]) -> Void = { _ in }) throws {
        for (name, sql) in files { try write("migrations/app/\(name)", sql) }
        var stage: [String: Any] = ["folder": "migrations/app"]
        if record { stage["record"] = ["table": "schema_migrations", "column": "version", "value": "version"] }
        try writeConfig(stage: stage, edit)
    }
}

extension PathResult {
    /// The check of the probe `kind`.
    func probe(_ kind: ProbeKind) throws -> CheckResult {
        try #require(checks.first { $0.kind == .probe(kind: kind.rawValue) })
    }
}
