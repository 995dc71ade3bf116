import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

extension MigrationRunner {
    /// L001 under the other `legacy_alter_table` setting, for a stage that renamed a
    /// table under a view or trigger (where the setting changes what the RENAME
    /// does): a fresh copy of `path`'s fixture taken through the stages before it,
    /// unwatched, then the stage at `index` with `legacy_alter_table` turned over,
    /// watched. Its L001 observations; none when the copy cannot be made or an
    /// earlier stage fails.
    func otherLegacyObservations(_ path: MigrationPath, stage index: Int, legacy: Bool, cancellation: Cancellation?) -> [LintObservation] {
        let source = fixture(path.source)
        guard source.problem == nil, cancellation?.isCancelled != true,
              let copy = try? MigrationCopy(fixture: source.folder, store: configuration.store, swiftStages: swiftStages, cancellation: cancellation) else { return [] }
        var log: [String] = []
        for stage in path.stages.prefix(index) where copy.run(stage, configuration: configuration, log: &log) != nil { return [] }
        var stage = path.stages[index]
        var settings = stage.connection ?? ConnectionSettings()
        settings.legacyAlterTable = !legacy
        stage.connection = settings
        let watcher = LintWatcher(version: path.source, configuration: configuration) { try? copy.open() }
        copy.stages.watcher = watcher
        defer { copy.stages.watcher = nil }
        _ = watcher.run(stage, on: copy, configuration: configuration, log: &log)
        return watcher.observations.filter { $0.rule == .staleReference }
    }
}

extension LintWatcher {
    /// Takes the observations of another run of this fixture (``MigrationRunner/otherLegacyObservations(_:stage:legacy:cancellation:)``)
    /// that this run did not make itself.
    func adopt(_ others: [LintObservation]) {
        for other in others where !observations.contains(where: { $0.rule == other.rule && $0.file == other.file && $0.line == other.line && $0.subject == other.subject }) {
            observe(other.rule, other.file.map { StagePlace(file: $0, line: other.line ?? 0) }, other.subject, detail: other.detail, count: other.count)
        }
    }
}
