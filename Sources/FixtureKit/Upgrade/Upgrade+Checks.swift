import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

extension Upgrade {
    /// The checks of a migrated live store, on the locked connection: integrity,
    /// foreign keys (no more violations than before the migration), the version,
    /// the schema against the current version's fixture when the corpus has one,
    /// row counts against those before, and the configuration's own checks.
    /// The backup is attached read-only as `source` for the checks that name it.
    /// A check that could not run for want of the machine (SQLite's `SQLITE_FULL`
    /// or an I/O error; the backup could not be attached as `source`), not
    /// because the migrated store failed it, holds the error (``CheckResult/error``).
    static func checks(_ database: Database, configuration: CorpusConfiguration, from source: String, marker: UpgradeMarker, storePath: String) -> [CheckResult] {
        let current = configuration.current
        var results: [CheckResult] = []
        do {
            results.append(try MigrationChecks.integrity(database))
            results.append(try MigrationChecks.foreignKeys(database, baseline: marker.foreignKeyViolations ?? 0))
        } catch {
            results.append(CheckResult(.integrity, passed: false, message: error.description, statement: error.sql, error: error.isMachineFailure ? error : nil))
            return results
        }
        let versionCheck = CheckKind.version(target: current)
        do {
            let version = try configuration.storeVersion(of: database)
            results.append(version.label == current
                ? CheckResult(versionCheck, passed: true)
                : CheckResult(versionCheck, passed: false, message: "the store reads as \(version.description) after the stages"))
        } catch {
            results.append(CheckResult(versionCheck, passed: false, message: error.why))
        }
        let contents: StoreContents
        do { contents = try StoreContents(database: database) } catch {
            results.append(CheckResult(.readMigratedStore, passed: false, message: error.why))
            return results
        }
        if FixtureLocator.isFolder(configuration.resolve(current)) {
            let schema = CheckKind.schema(target: current)
            let reference = MigrationRunner(configuration: configuration).fixture(current)
            if let expected = reference.contents {
                let differences = SchemaDiff.differences(contents.schema, from: expected.schema, referenceName: current)
                results.append(CheckResult(schema, passed: differences.isEmpty, message: differences.isEmpty ? nil : differences.joined(separator: "\n")))
            } else {
                results.append(CheckResult(schema, passed: false, message: reference.problem?.description ?? "the fixture of \(current) cannot be read"))
            }
        }
        results.append(MigrationChecks.counts(rules: configuration.countRules, source: source, before: marker.tables ?? [:], after: contents.tables, atCurrent: true, renamed: configuration.renamedTables))
        results += configuredChecks(database, configuration: configuration, from: source, backup: marker.backup, storePath: storePath)
        return results
    }
}

extension SQLiteError {
    /// A failure of the machine, not of the SQL: the disk is full, an I/O error.
    var isMachineFailure: Bool { resultCode == .full || resultCode == .ioError }
}
