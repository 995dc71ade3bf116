import Testing
@testable import FixtureKitModels

/// SHA256SUMS lines that are not checksum lines, as values: each with its line.
@Suite struct SHA256SumsTests {
    static let digest = String(repeating: "0f", count: 32)

    @Test func everyBadLineIsKeptWithItsNumber() throws {
        let text = "\(Self.digest)  App.sqlite\n# a comment\nnot a checksum line\n\(Self.digest)  App.sqlite-wal\n\(Self.digest)\n"
        let sums = SHA256Sums(parsing: Array(text.utf8))
        #expect(sums.entries.map(\.line) == [1, 4])
        #expect(sums.entries.map(\.path.description) == ["App.sqlite", "App.sqlite-wal"])
        #expect(sums.problems.map(\.line) == [3, 5])
        #expect(sums.problems.allSatisfy { !$0.reason.isEmpty })
        #expect(sums.problems.first?.description.hasPrefix("line 3: ") == true)
    }
}
