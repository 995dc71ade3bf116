import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// Every JSON file fixturekit reads tells a fault at its line and column, the
/// values Foundation's parser refuses included (a number no Double holds, half
/// a surrogate pair, bytes that are not UTF-8): the rules and a fixture's manifest
/// here, the configuration in CorpusConfigurationFormatTests.
@Suite struct JSONFaultTests {
    @Test(arguments: [
        ("1e999", "the number 1e999 is too large: a JSON number here must fit a 64-bit floating-point number (at most about 1.8e308)"),
        (String(repeating: "1", count: 5000), "a number of 5000 characters is too large: a JSON number here must fit a 64-bit floating-point number (at most about 1.8e308)"),
        ("\"\\udead\"", "\"\\udead\" is the second half of a surrogate pair, without the first"),
    ])
    func aRulesValueFoundationRefusesIsToldAtItsPlace(value: String, why: String) throws {
        let before = "  \"salary\": {\"strategy\": \"noise\", \"ratio\": "
        let text = "{\"tables\": {\"people\": {\n" + before + value + "}}}}"
        // A string's fault is at its escape, inside the quotes.
        let column = before.count + (value.hasPrefix("\"") ? 2 : 1)
        do {
            _ = try AnonymizationRules.parse(Array(text.utf8), path: "rules.json")
            Issue.record("accepted \(value)")
        } catch {
            #expect(error.description == "read rules: rules.json: line 2, column \(column): \(why)")
        }
    }

    @Test func aManifestThatIsNotJSONIsToldAtItsPlace() throws {
        let folder = try TemporaryFolder()
        let store = try HeldWALStore(in: folder.path, notes: 3)
        #expect(fixturekit("capture", "--no-anonymize", store.path, "--version", "1.0.0", "--corpus", folder.url("corpus")).status == 0)
        var manifest = String(decoding: try folder.read("corpus/1.0.0/manifest.json"), as: UTF8.self)
        manifest = manifest.replacingOccurrences(of: "\"pageSize\" : 4096", with: "\"pageSize\" : 4096e400")
        try folder.write("corpus/1.0.0/manifest.json", manifest)
        #expect(fixturekit("sums", "--quiet", folder.url("corpus/1.0.0")).status == 0)
        let result = fixturekit("verify", "--quiet", folder.url("corpus/1.0.0"))
        #expect(result.status == 1)
        let lines = manifest.split(separator: "\n", omittingEmptySubsequences: false)
        let number = try #require(lines.firstIndex { $0.contains("4096e400") })
        let column = try #require(lines[number].range(of: "4096e400")).lowerBound.utf16Offset(in: lines[number]) + 1
        #expect(result.standardError.hasPrefix("fixturekit: verify: \(folder.url("corpus/1.0.0/manifest.json")): not a fixturekit manifest: line \(number + 1), column \(column): the number 4096e400 is too large"), "\(result.standardError)")
    }
}
