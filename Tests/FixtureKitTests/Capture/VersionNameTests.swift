import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// Version names are SemVer 2.0 exactly, and no path built from one leaves the corpus.
@Suite struct VersionNameTests {
    /// What a version label must never be: a path, a control character, build
    /// metadata outside `[0-9A-Za-z-]` separated by dots, anything but SemVer.
    static let hostile = [
        "1.0.0+/../../x", "1.0.0+a/b", "1.0.0+..", "1.0.0+a..b", "1.0.0+", "1.0.0+.", "1.0.0+a b", "1.0.0+ä", "1.0.0+a\\b", "1.0.0+a_b",
        "1.0.0-../x", "../x", "..", ".", "/tmp/x", "1.0.0/..", "1.0.0/../../escape", "x/1.0.0",
        "1.0.0\0evil", "1.0.0\n", "1.0.0\nx", "1.0.0\r", "1.0.0\t",
        "", "1.0", "1.0.0.0", "01.0.0", "1.00.0", "1.0.0-", "1.0.0-01", "1.0.0-a..b", "v1.0.0", " 1.0.0", "1.0.0 ",
    ]

    /// Every file and folder below `path` with its bytes.
    static func tree(_ path: String) throws -> [String: [UInt8]] { try snapshotOfFiles(path) }

    @Test(arguments: hostile)
    func captureAndFreezeRefuseAndWriteNothingAnywhere(version: String) throws {
        let folder = try TemporaryFolder()
        let live = folder.url("live/App.sqlite")
        try FileManager.default.createDirectory(atPath: folder.url("live"), withIntermediateDirectories: true)
        let database = try Database(path: live, options: .init(create: true))
        try database.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT); INSERT INTO notes (title) VALUES ('a')")
        try database.close()
        try folder.write("deep/er/corpus/fixturekit.json", #"{"store": "App.sqlite", "current": "9.0.0", "supported": [], "stages": []}"#)
        // A fixture that a --force in the wrong place would delete.
        try folder.write("deep/x/SHA256SUMS", "keep me\n")
        let before = try Self.tree(folder.path)
        for arguments in [
            ["capture", "--no-anonymize", live, "--version", version, "--corpus", folder.url("deep/er/corpus")],
            ["capture", "--no-anonymize", live, "--version", version, "--corpus", folder.url("deep/er/corpus"), "--force"],
            ["capture", "--no-anonymize", live, "--version", version, "--corpus", folder.url("deep/er/new")],
            ["freeze", "--no-anonymize", live, "--version", version, "--config", folder.url("deep/er/corpus/fixturekit.json")],
            ["freeze", "--no-anonymize", live, "--version", version, "--config", folder.url("deep/er/corpus/fixturekit.json"), "--force"],
        ] {
            let result = fixturekit(arguments)
            #expect(result.status == 64 || result.status == 2, "\(arguments)")
            #expect(result.standardError.split(separator: "\n", omittingEmptySubsequences: false).count == 2, "\(result.standardError)")
            #expect(try Self.tree(folder.path) == before, "\(arguments)")
        }
        let capture = fixturekit("capture", "--no-anonymize", live, "--version", version, "--corpus", folder.url("deep/er/corpus"))
        #expect(capture.standardError == "fixturekit: capture: \(live): \(Version.whyNot(version)) (hint: use a version such as 1.2.0)\n")
    }

    @Test func aVersionFromTheConfigurationIsCheckedToo() throws {
        let folder = try TemporaryFolder()
        for label in ["1.0.0+/../../x", "1.0", "../1.0.0"] {
            try folder.write("corpus/fixturekit.json", #"{"store": "App.sqlite", "current": "\#(label)", "supported": [], "stages": []}"#)
            let before = try Self.tree(folder.path)
            for arguments in [["migrate", "--config", folder.url("corpus/fixturekit.json")], ["status", "--config", folder.url("corpus/fixturekit.json")], ["lock", folder.url("corpus")]] {
                let result = fixturekit(arguments)
                #expect(result.status == 2)
                #expect(result.standardError == "fixturekit: read configuration: \(folder.url("corpus/fixturekit.json")): \"\(label)\" is not a version label\n")
            }
            #expect(try Self.tree(folder.path) == before)
        }
    }

    @Test func everySemanticVersionIsAcceptedAndNamesItsFolder() throws {
        let folder = try TemporaryFolder()
        let live = try TemporaryFolder()
        let database = try Database(path: live.url("App.sqlite"), options: .init(create: true))
        try database.execute("CREATE TABLE t (x); INSERT INTO t VALUES (1)")
        try database.close()
        for version in ["0.0.0", "1.0.0-alpha.1+build.5-x", "1.0.0+20130313144700", "1.0.0-x-y-z.--", "99999999999999999999.0.0"] {
            let result = fixturekit("capture", "--no-anonymize", live.url("App.sqlite"), "--version", version, "--corpus", folder.url("corpus"))
            #expect(result.status == 0, "\(version): \(result.standardError)")
            #expect(FileManager.default.fileExists(atPath: folder.url("corpus/\(version)/SHA256SUMS")))
        }
    }

    @Test func precedenceIsSemVers() throws {
        // The chain of https://semver.org/spec/v2.0.0.html#spec-item-11, and numbers of any length.
        let ordered = [
            "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1",
            "1.0.0", "1.0.0+build", "1.9.0", "1.10.0", "1.11.0", "2.0.0", "2.1.0", "2.1.1", "10.0.0", "99999999999999999999.0.0",
        ]
        let versions = ordered.compactMap(Version.init)
        #expect(versions.map(\.label) == ordered)
        #expect(versions.shuffled().sorted() == versions)
        for index in versions.indices.dropLast() { #expect(versions[index] < versions[index + 1], "\(ordered[index])") }
        for label in Self.hostile { #expect(Version(label) == nil, "\(label.debugDescription)") }
    }
}
