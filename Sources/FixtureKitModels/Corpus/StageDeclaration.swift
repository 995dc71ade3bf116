import FixtureKitSystem
import FixtureKitCrypto

/// A stage as it runs: what it runs and how, as the configuration declares it
/// with every default filled in. `fixturekit.lock` pins its digest for a stage
/// that shipped (`declaration V FROM H`), so that editing a shipped stage's
/// program, arguments, environment or connection in `fixturekit.json` fails
/// `verify` as editing its files does. The `timeout` is not part of it: it does
/// not change what the stage does.
package struct StageDeclaration: Encodable, Equatable, Sendable {
    var from: String
    var to: String
    var sql: String?
    var folder: String?
    var through: String?
    var exec: [String]?
    var swift: String?
    var transaction: StageTransaction?
    var record: StageRecord?
    /// The settings that apply to it: SQLite's and `TZ` for a stage that runs
    /// in fixturekit's process, the environment for a program.
    var connection: ConnectionSettings

    package init(_ stage: CorpusConfiguration.Stage, in configuration: CorpusConfiguration) {
        (from, to, sql, folder, through, exec, swift, record) = (stage.from, stage.to, stage.sql, stage.folder, stage.through, stage.exec, stage.swift, stage.record)
        transaction = stage.runsSQL ? stage.transaction ?? .eachFile : nil
        connection = configuration.appliedConnection(of: stage)
    }

    /// The SHA-256 of its canonical JSON (sorted keys, no blank space).
    package var digest: SHA256Digest {
        // Hashing bytes in memory cannot fail.
        (try? SHA256.hash(Array(CanonicalJSON.encode(self).utf8))) ?? SHA256Digest(checkedBytes: [UInt8](repeating: 0, count: 32))
    }
}

extension CorpusConfiguration {
    /// The settings that apply to `stage`, as reports state them: fixturekit's
    /// connection's SQLite settings and the process' `TZ` for an SQL or Swift
    /// stage; the environment a program gets for an `exec` stage (a program opens
    /// the store with its own connection).
    package func appliedConnection(of stage: Stage) -> ConnectionSettings {
        let settings = connection(of: stage)
        guard stage.exec == nil else { return ConnectionSettings(environment: settings.environment) }
        var applied = settings.sqlite
        applied.environment = ["TZ": processTimeZone]
        return applied
    }
}
