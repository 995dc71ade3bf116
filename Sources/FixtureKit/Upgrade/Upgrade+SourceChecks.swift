import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitArchiveIO
import FixtureKitModels

extension Upgrade {
    /// The configuration's own checks on the migrated live store, with the
    /// store as it was before (its verified backup, extracted beside it and
    /// checkpointed into one file) attached read-only as `source` when a
    /// check names it; the extracted copy is removed afterwards.
    /// - Parameters:
    ///   - from: the version the store was at: checks limited to other versions' paths do not run.
    ///   - backup: the backup archive taken before the migration.
    /// - Returns: the checks' results; one that names `source` when the backup
    ///   could not serve holds the error: it could not run.
    static func configuredChecks(_ database: Database, configuration: CorpusConfiguration, from: String, backup: String?, storePath: String) -> [CheckResult] {
        let checks = configuration.checks ?? []
        let personal = configuration.personalColumns
        guard let backup, checks.contains(where: { ($0.from?.contains(from) ?? true) && ConfiguredChecks.needsSource($0) }) else {
            return ConfiguredChecks.run(checks, from: from, on: database, source: nil, personal: personal)
        }
        let folder = comparisonFolder(forStore: storePath)
        defer { ScratchFolder.remove(folder) }
        do throws(FixtureKitError) {
            let (source, _) = try extractBackup(backup, into: folder)
            return ConfiguredChecks.run(checks, from: from, on: database, source: source, personal: personal)
        } catch {
            let why = "the backup could not be attached as source: " + (error.what == backupFails ? error.why : error.descriptionWithoutHint)
            return checks.filter { $0.from?.contains(from) ?? true }.map { check in
                ConfiguredChecks.needsSource(check)
                    ? CheckResult(.configured(name: check.name), passed: false, message: why, statement: check.sql, error: error)
                    : ConfiguredChecks.run([check], from: from, on: database, source: nil, personal: personal)[0]
            }
        }
    }
}
