import Testing
@testable import FixtureKitModels

/// Version labels: exactly SemVer 2.0.0, ordered by its precedence, and never
/// anything that could not be a plain file name.
@Suite struct VersionTests {
    @Test(arguments: [
        "0.0.0", "1.2.3", "10.20.30", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-0.3.7", "1.0.0-x.7.z.92",
        "1.0.0-x-y-z.--", "1.0.0-0a", "1.0.0+20130313144700", "1.0.0-beta+exp.sha.5114f85", "1.0.0+21AF26D3----117B344092BD",
        "1.0.0+001", "1.0.0-rc.1+build.1", "99999999999999999999999.0.0", "1.0.0+build-1",
    ])
    func acceptsSemanticVersions(label: String) throws {
        let version = try #require(Version(label))
        #expect(version.label == label)
        #expect(version.description == label)
    }

    @Test func splitsTheParts() throws {
        let version = try #require(Version("1.20.300-rc.1+build.7"))
        #expect(version.numbers == ["1", "20", "300"])
        #expect(version.prerelease == ["rc", "1"])
        #expect(Version("2.0.0")?.prerelease == [])
    }

    @Test(arguments: [
        "", "1", "1.0", "1.0.0.0", "v1.0.0", "V1.0.0", "01.0.0", "1.00.0", "1.0.00", "-1.0.0", "1.-1.0", "1.0.-0",
        "1.0.0-", "1.0.0+", "1.0.0-01", "1.0.0-00.1", "1.0.0-a..b", "1.0.0-.a", "1.0.0-a.", "1.0.0+a..b", "1.0.0+a+b",
        "1.0.0-alpha_1", "1.0.0-é", "1.0.0+ü", "１.0.0", "1.٠.0", "1.0.0 ", " 1.0.0", "1. 0.0", "1.0.0\n", "1.0.0\r",
        "1.0.0\0", "1.0.0\t", "\u{1b}[31m1.0.0", "../1.0.0", "1.0.0/..", "1.0.0/x", "a/1.0.0", "..", ".", "1.0.0-../x",
        "1.0.0+../x", "1.0.0-a/b", "1.0.0\\x", "1.0.0-*", "1.0.0-a b", "1,0,0", "1.0.0.", ".1.0.0", "1..0",
        "latest", "1.0.0-\u{200B}", "1.0.0\u{0301}",
    ])
    func refusesEverythingElse(label: String) {
        #expect(Version(label) == nil)
    }

    /// SemVer 2.0.0's own example order, then numbers of every length.
    @Test func ordersByPrecedence() throws {
        let ordered = [
            "0.0.0", "0.0.1", "0.1.0", "0.9.9", "0.10.0", "1.0.0-0", "1.0.0-1", "1.0.0-2", "1.0.0-10", "1.0.0-10a",
            "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11",
            "1.0.0-rc.1", "1.0.0", "1.0.0+a", "1.0.0+b", "1.0.1", "1.9.0", "1.10.0", "1.11.0", "2.0.0", "9.0.0",
            "10.0.0", "99.0.0", "100.0.0", "99999999999999999999.0.0", "100000000000000000000.0.0",
        ].map { Version($0)! }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            #expect(ordered.shuffled(using: &generator).sorted() == ordered)
        }
        // A strict total order: each pair compares one way only.
        for (i, left) in ordered.enumerated() {
            for (j, right) in ordered.enumerated() {
                #expect((left < right) == (i < j), "\(left) < \(right)")
                #expect((left == right) == (i == j), "\(left) == \(right)")
            }
        }
    }

    @Test func equalityIsByLabel() throws {
        #expect(Version("1.0.0+a") != Version("1.0.0+b"))
        #expect(Set(["1.0.0", "1.0.0", "1.0.0+x"].compactMap(Version.init)).count == 2)
    }

    @Test func explainsARefusalOnOneLine() {
        #expect(Version.whyNot("1.0\n\u{1b}") == "'1.0\\n\\u{1b}' is not a semantic version (MAJOR.MINOR.PATCH, then optionally -PRERELEASE and +BUILD, each of [0-9A-Za-z-] separated by dots)")
    }
}
