import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// `status` says which rules each fixture was anonymized with, and warns when
/// they are not the corpus' current rules.
@Suite struct StatusRulesTests {
    static let environment = ["FIXTUREKIT_ANON_KEY": "a-test-key-that-is-long-enough-0123456789"]
    static let first = #"{"tables": {"notes": {"title": {"strategy": "fake", "kind": "text"}}}}"#
    static let second = #"{"tables": {"notes": {"title": {"strategy": "fake", "kind": "text"}, "uuid": "keep"}}}"#

    @Test func fixturesAnonymizedWithOtherRulesAreWarnedAbout() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.url("live"), withIntermediateDirectories: true)
        let store = try HeldWALStore(in: folder.url("live"), notes: 10)
        let corpus = folder.url("corpus")
        try folder.write("corpus/anonymize.json", Self.first)
        try folder.write("corpus/migrations/1.sql", "PRAGMA user_version = 2;")
        try folder.write("corpus/migrations/2.sql", "PRAGMA user_version = 3;")
        try folder.write("corpus/fixturekit.json", """
            {"store": "App.sqlite", "current": "3.0.0", "supported": ["1.0.0", "2.0.0"], "anonymize": "anonymize.json",
             "stages": [{"from": "1.0.0", "to": "2.0.0", "sql": "migrations/1.sql"}, {"from": "2.0.0", "to": "3.0.0", "sql": "migrations/2.sql"}]}
            """)
        for (number, version) in ["1.0.0", "2.0.0"].enumerated() {
            try store.database.execute("PRAGMA user_version = \(number + 1)")
            #expect(fixturekit(["capture", store.path, "--version", version, "--corpus", corpus], environment: Self.environment).status == 0)
        }
        let same = fixturekit("status", "--config", corpus + "/fixturekit.json")
        #expect(!same.standardError.contains("warning:"), "\(same.standardError)")

        // The rules change; 3.0.0 is frozen with the new ones.
        try folder.write("corpus/anonymize.json", Self.second)
        try store.database.execute("PRAGMA user_version = 3")
        #expect(fixturekit(["capture", store.path, "--version", "3.0.0", "--corpus", corpus], environment: Self.environment).status == 0)
        let old = String(try SHA256.hash(Array(Self.first.utf8)).hex.prefix(8))
        let new = String(try SHA256.hash(Array(Self.second.utf8)).hex.prefix(8))
        let status = fixturekit("status", "--config", corpus + "/fixturekit.json", "--json", "--quiet")
        // A warning fails nothing.
        #expect(status.status == 0, "\(status.standardError)")
        let warning = "1.0.0 (rules \(old)), 2.0.0 (rules \(old)) were anonymized with rules other than \(corpus)/anonymize.json (rules \(new)): a column the current rules rewrite may be as it was there (hint: anonymize each again with the current rules, or freeze them again)"
        #expect(status.standardError == "warning: \(warning)\n")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any])
        #expect(object["warnings"] as? [String] == [warning])
        let text = fixturekit("status", "--config", corpus + "/fixturekit.json")
        #expect(text.standardError.hasSuffix("warning: \(warning)\nstatus: 3 versions, no problems, 1 warning\n"), "\(text.standardError)")
        let rows = text.standardError.split(separator: "\n")
        #expect(rows.contains { $0.hasPrefix("1.0.0 ") && $0.contains("rules \(old), key ") })
        #expect(rows.contains { $0.hasPrefix("3.0.0 ") && $0.contains("rules \(new), key ") })

        // Anonymized again with the current rules, the fixture is no longer named.
        let again = fixturekit(["anonymize", corpus + "/1.0.0", "--rules", corpus + "/anonymize.json", "--force"], environment: Self.environment)
        #expect(again.status == 0, "\(again.standardError)")
        let after = fixturekit("status", "--config", corpus + "/fixturekit.json", "--quiet")
        #expect(after.standardError == "warning: 2.0.0 (rules \(old)) was anonymized with rules other than \(corpus)/anonymize.json (rules \(new)): a column the current rules rewrite may be as it was there (hint: anonymize it again with the current rules, or freeze it again)\n")
        _ = store
    }
}
