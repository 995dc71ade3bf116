import Foundation
import FixtureKitSystem
import FixtureKitModels

/// The lint as SARIF 2.1.0 (<https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html>),
/// the format code-scanning pages read: one run of the tool `fixturekit`, its
/// rules with their default levels, and a result for each finding at its stage
/// file and line, an ignored finding as a result suppressed with its reason.
extension LintReport {
    struct SARIF: Encodable {
        struct Message: Encodable { var text: String }
        struct Rule: Encodable {
            struct Configuration: Encodable { var level: String }
            var id: String
            var shortDescription: Message
            var defaultConfiguration: Configuration
        }
        struct Driver: Encodable {
            var name = "fixturekit"
            var version: String
            var rules: [Rule]
        }
        struct Tool: Encodable { var driver: Driver }
        struct Location: Encodable {
            struct Physical: Encodable {
                struct Artifact: Encodable { var uri: String }
                struct Region: Encodable { var startLine: Int }
                var artifactLocation: Artifact
                var region: Region?
            }
            var physicalLocation: Physical
        }
        struct Suppression: Encodable {
            var kind = "external"
            var justification: String
        }
        struct Result: Encodable {
            var ruleId: String
            var ruleIndex: Int
            var level: String
            var message: Message
            var locations: [Location]?
            var suppressions: [Suppression]?
        }
        struct Run: Encodable {
            var tool: Tool
            var results: [Result]
        }
        var schema = "https://json.schemastore.org/sarif-2.1.0.json"
        var version = "2.1.0"
        var runs: [Run]

        enum CodingKeys: String, CodingKey {
            case schema = "$schema", version, runs
        }
    }

    /// SARIF's level of a severity: `error`, `warning`, `note`; `none` for a rule turned off.
    static func level(_ severity: LintSeverity) -> String {
        severity == .off ? "none" : severity.rawValue
    }

    /// The report as a SARIF 2.1.0 log: pretty-printed JSON, keys sorted.
    public func sarif() -> String {
        let rules = LintRule.all.map { rule in
            SARIF.Rule(
                id: rule.code, shortDescription: .init(text: rule.summary), defaultConfiguration: .init(level: Self.level(rule.defaultSeverity)))
        }
        let results = findings.map { finding in
            SARIF.Result(
                ruleId: finding.rule, ruleIndex: LintRule.all.firstIndex { $0.code == finding.rule } ?? 0, level: Self.level(finding.severity),
                message: .init(text: String(finding.text.drop { $0 != " " }.dropFirst())),
                locations: finding.file.map { file in
                    [SARIF.Location(physicalLocation: .init(artifactLocation: .init(uri: file), region: finding.line.map { .init(startLine: $0) }))]
                },
                suppressions: finding.ignored.map { [SARIF.Suppression(justification: $0)] })
        }
        let log = SARIF(runs: [SARIF.Run(tool: SARIF.Tool(driver: SARIF.Driver(version: FixtureKitLibrary.version, rules: rules)), results: results)])
        return String(decoding: CanonicalJSON.file(log), as: UTF8.self)
    }

    /// The findings as GitHub Actions workflow commands, one line each
    /// (`::error file=migrations/a.sql,line=3,title=U001::message`): the annotations
    /// a workflow run shows on the stage's line. Ignored findings are left out.
    public func githubAnnotations() -> [String] {
        standing.map { finding in
            let command = finding.severity == .note ? "notice" : finding.severity.rawValue
            var properties: [String] = []
            if let file = finding.file { properties.append("file=" + Self.escapeProperty(file)) }
            if let line = finding.line { properties.append("line=\(line)") }
            properties.append("title=" + Self.escapeProperty(finding.rule))
            let text = String(finding.text.drop { $0 != " " }.dropFirst())
            return "::\(command) \(properties.joined(separator: ","))::\(Self.escapeData(text))"
        }
    }

    /// A workflow command's message: `%`, CR and LF escaped, as the Actions toolkit does.
    static func escapeData(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(of: "\n", with: "%0A")
    }

    /// A workflow command's property value: also `:` and `,`.
    static func escapeProperty(_ text: String) -> String {
        escapeData(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }

    /// Writes the SARIF log to `path` atomically (`path.tmp`, fsync, rename).
    /// - Throws: ``FixtureKitError`` (`write SARIF report: ...`) when it cannot be written.
    public func writeSARIF(to path: String) throws(FixtureKitError) {
        do { try AtomicFile.write(Array(sarif().utf8), to: path) } catch {
            throw FixtureKitError(what: "write SARIF report", failed: error)
        }
    }
}
