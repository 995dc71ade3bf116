import FixtureKitModels
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitArchiveIO
import FixtureKitModels

extension CorpusConfiguration {
    /// Reads and checks `fixturekit.json`, and the anonymization rules it names.
    /// - Throws: ``FixtureKitError`` (exit 2) naming what is wrong.
    public static func load(_ path: String) throws(FixtureKitError) -> CorpusConfiguration {
        let configuration: CorpusConfiguration
        do { configuration = try read(path) } catch { throw FixtureKitError(error) }
        // Every command that reads the configuration says so when its rules cannot be read.
        if let rules = configuration.anonymize?.rulesFile {
            do { _ = try AnonymizationRules.load(configuration.resolve(rules)) } catch {
                throw FixtureKitError(what: "read configuration", path: path, why: "\"anonymize\": \(error.path ?? rules): \(error.why)", hint: error.hint, remedy: error.remedy)
            }
        }
        return configuration
    }

    /// The columns (`table.column`, by `identifierKey`) the anonymization rules mark as
    /// personal: every rule but `keep`. `nil` when rules are named but cannot
    /// be read: then every column counts as personal.
    var personalColumns: Set<String>? {
        guard let file = anonymize?.rulesFile else { return [] }
        guard let rules = try? AnonymizationRules.load(resolve(file)) else { return nil }
        return Set(rules.orderedRules.filter { $0.rule.strategy != .keep }.map { "\($0.table).\($0.column)".identifierKey })
    }

    /// The columns (`table.column`, by `identifierKey`) the anonymization rules `keep`:
    /// known, and not personal. None without rules, or with rules that cannot be read.
    var keptColumns: Set<String> {
        guard let file = anonymize?.rulesFile, let rules = try? AnonymizationRules.load(resolve(file)) else { return [] }
        return Set(rules.orderedRules.filter { $0.rule.strategy == .keep }.map { "\($0.table).\($0.column)".identifierKey })
    }
}
