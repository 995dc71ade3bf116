import Foundation
import Testing
@testable import FixtureKitTestSupport

/// What the sources must not do, found by reading them: tell checks apart by
/// their names' text (every report goes by ``CheckKind``), or read the signals'
/// global below the tool (the operations look at the ``Cancellation`` they are given).
@Suite struct CheckSourceScanTests {
    /// The built-in checks' names, which only `CheckKind.swift` spells out.
    static let names = [
        "integrity_check", "foreign_key_check", "user_version", "row counts", "data preserved",
        "open the migrated store", "read the migrated store", "lock the store after the stages",
    ]
    /// How the names that hold a version begin.
    static let prefixes = ["fixture ", "copy fixture ", "chain of stages", "stage ", "schema matches ", "version "]
    /// Where a name is a word of a message, not a check's: `status` says a fixture's `user_version` was bumped;
    /// the authorizer's name of the pragma a statement runs (`StatementActions.checksForeignKeys`).
    static let allowed: Set<String> = ["FixtureKit/Status/CorpusStatus+Read.swift: \"user_version\"", "FixtureKitSQLite/ScriptCursor.swift: \"foreign_key_check\""]

    /// The lines of `text` (the file `file` of Sources/) that tell checks apart by name.
    static func nameMatches(in text: String, file: String) throws -> [String] {
        let prefixes = Self.prefixes.joined(separator: "|")
        let names = Self.names.map { NSRegularExpression.escapedPattern(for: $0) }.joined(separator: "|")
        let literal = try pattern("\"(\(names))\"")
        // Code that makes or reports checks: where a name could be matched.
        let handlesChecks = text.contains(try pattern(#"CheckResult|PathResult|UpgradeResult|MigrationReport|CheckKind|\.checks\b"#))
        let matching = try [
            // `$0.name.hasPrefix("stage ")`, `check.name == ...`, `... == check.name`
            pattern(#"(\$0|check|failure|result)\.name\s*(==|!=|\.hasPrefix|\.hasSuffix|\.contains|\.starts)"#),
            pattern(#"[=!]=\s*(\$0|check|failure|result)\.name\b"#),
            // `switch check.name {`
            pattern(#"switch\s+[\w$.]*\bname\b"#),
            // `name.hasPrefix("schema matches ")`
            pattern("\\bname\\.(hasPrefix|hasSuffix|contains|starts)\\(\\s*\"(\(prefixes))"),
            // The constant that stood for a name.
            pattern(#"\bdataCheckName\b"#),
        ]
        var found: [String] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let code = line.trimmingCharacters(in: .whitespaces)
            if code.hasPrefix("//") { continue }
            let where_ = "\(file):\(index + 1): \(code)"
            if file != "FixtureKit/Migrate/CheckKind.swift", let match = line.firstMatch(of: literal), !allowed.contains("\(file): \(line[match.range])") {
                found.append(where_)
            } else if handlesChecks, matching.contains(where: { line.contains($0) }) {
                found.append(where_)
            }
        }
        return found
    }

    /// Every Swift file under Sources/, by its path there, with its text.
    static func sources() throws -> [(String, String)] {
        let sources = repositoryRoot.appendingPathComponent("Sources")
        let walker = try #require(FileManager.default.enumerator(atPath: sources.path))
        var files: [(String, String)] = []
        for case let relative as String in walker where relative.hasSuffix(".swift") {
            files.append((relative, try String(contentsOf: sources.appendingPathComponent(relative), encoding: .utf8)))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    @Test func noCodeTellsChecksApartByTheirNames() throws {
        let files = try Self.sources()
        // The scan reads the sources: with nothing read it would prove nothing.
        #expect(files.contains { $0.0 == "fixturekit/MigrationText.swift" } && files.contains { $0.0 == "FixtureKit/Migrate/CheckKind.swift" })
        var found: [String] = []
        for (file, text) in files { found += try Self.nameMatches(in: text, file: file) }
        #expect(found == [], "\(found.joined(separator: "\n"))")
    }

    /// The scan finds what the reports did before they went by kind (their lines, as they were).
    @Test func theScanFindsNameMatches() throws {
        let before = """
            let time = check.name == Upgrade.dataCheckName ? "" : ""
            let stages = result.checks.filter { $0.name.hasPrefix("stage ") }.count
            switch check.name {
            case "data preserved": parts.append("data diff " + seconds(time))
            if name.hasPrefix("schema matches ") { return "schema" }
            guard let connection = check.connection, !seen.contains(where: { $0.stage == check.name }) else { continue }
            run.fail("data preserved", error.description, seconds: run.preservationSeconds)
            // A comment may say "data preserved".
            if name.contains("/") { return nil }
            """
        let found = try Self.nameMatches(in: before, file: "fixturekit/MigrationText.swift").map { $0.split(separator: ":")[1] }
        #expect(found == ["1", "2", "3", "4", "5", "6", "7"])
        // A name spelled out in a file that makes no check is still found; the status' word is not.
        #expect(try Self.nameMatches(in: "let x = \"row counts\"", file: "FixtureKit/Pack/Pack.swift").count == 1)
        #expect(try Self.nameMatches(in: "let bump = \"user_version\"", file: "FixtureKit/Status/CorpusStatus+Read.swift") == [])
    }

    /// The operations look at the cancellation they are given, never at the
    /// signals' global: only the tool (which installs the handlers and ends
    /// itself with the signal) and `Interruption` itself do.
    @Test func theLibraryReadsNoSignalGlobal() throws {
        let global = try pattern(#"Interruption\.(received|cancellation|install)"#)
        var found: [String] = []
        for (file, text) in try Self.sources() where !file.hasPrefix("fixturekit/") && file != "FixtureKitSystem/Process/Interruption.swift" {
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                if !code.hasPrefix("///"), !code.hasPrefix("//"), line.contains(global) { found.append("\(file):\(index + 1): \(code)") }
            }
        }
        #expect(found == [], "\(found.joined(separator: "\n"))")
    }
}

/// A regular expression whose `\b` is a boundary between a word character and
/// another (Swift's default, Unicode's rules, sees none in `result.checks.filter`).
private func pattern(_ text: String) throws -> Regex<AnyRegexOutput> {
    try Regex(text).wordBoundaryKind(.simple)
}
