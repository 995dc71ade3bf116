import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitCrypto
@testable import FixtureKitModels
@testable import FixtureKitSystem
@testable import FixtureKitTestSupport

/// SHA256SUMS written and checked by the library, against GNU coreutils and Perl's shasum.
@Suite struct ChecksumsTests {
    /// Names that need escaping, or that tools get wrong: space, backslash, LF, CR, non-ASCII.
    static let awkwardNames = [
        "plain.sqlite", "with space.txt", "back\\slash", "line\nfeed", "carriage\rreturn",
        "Заметки.sqlite", "笔记", "emoji 📝", "nested/deeper/file", ".App_SUPPORT/_EXTERNAL_DATA/ABC",
    ]

    @Test func writesExactlyWhatSha256sumWrites() throws {
        let folder = try TemporaryFolder()
        for (index, name) in Self.awkwardNames.enumerated() { try folder.write(name, "content \(index)\n") }
        let sums = try Checksums.writeSums(for: folder.path)
        #expect(sums.entries.count == Self.awkwardNames.count)

        // sha256sum sorts nothing: give it the names in the bytewise order SHA256SUMS uses.
        let sorted = Self.awkwardNames.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let reference = try run(["sha256sum", "--"] + sorted, in: folder.path)
        #expect(reference.status == 0)
        #expect(try folder.read("SHA256SUMS") == Array(reference.standardOutput.utf8))

        let check = try run(["sha256sum", "-c", "--strict", "SHA256SUMS"], in: folder.path)
        #expect(check.status == 0, "\(check.standardError)")
    }

    /// A digest the caller computed is taken for a file of the size it was
    /// computed over, and ignored for a file of another size.
    @Test func writeSumsTakesAKnownDigestOnlyForItsSize() throws {
        let folder = try TemporaryFolder()
        try folder.write("App.sqlite", "store bytes\n")
        try folder.write("manifest.json", "{}\n")
        let stand = try SHA256.hash(Array("something else".utf8))
        let real = try SHA256.hash(Array("store bytes\n".utf8))

        let taken = try Checksums.writeSums(for: folder.path, known: ["App.sqlite": FileDigest(digest: stand, size: 12)])
        #expect(taken.entries.map(\.path.description) == ["App.sqlite", "manifest.json"])
        #expect(taken.entries.first?.digest == stand)
        #expect(try folder.read("SHA256SUMS") == Array("\(stand.hex)  App.sqlite\n\(try SHA256.hash(Array("{}\n".utf8)).hex)  manifest.json\n".utf8))

        let ignored = try Checksums.writeSums(for: folder.path, known: ["App.sqlite": FileDigest(digest: stand, size: 13)])
        #expect(ignored.entries.first?.digest == real)
        let check = try run(["sha256sum", "-c", "--strict", "SHA256SUMS"], in: folder.path)
        #expect(check.status == 0, "\(check.standardError)")
    }

    @Test(arguments: [
        ["sha256sum"], ["sha256sum", "--tag"], ["sha256sum", "--binary"], ["shasum", "-a", "256"], ["shasum", "-a", "256", "--tag"],
    ])
    func readsWhatOtherToolsWrite(tool: [String]) throws {
        let folder = try TemporaryFolder()
        for (index, name) in Self.awkwardNames.enumerated() { try folder.write(name, "content \(index)\n") }
        let written = try run(tool + ["--"] + Self.awkwardNames, in: folder.path)
        #expect(written.status == 0, "\(written.standardError)")
        try folder.write("SHA256SUMS", written.standardOutput)

        let parsed = SHA256Sums(parsing: try folder.read("SHA256SUMS"))
        #expect(parsed.problems == [])
        #expect(Set(parsed.entries.map(\.path.description)) == Set(Self.awkwardNames))
        let result = try Checksums.verifyFolder(folder.path)
        #expect(result.problems == [])
        #expect(result.verifiedFiles == Self.awkwardNames.count)
    }
}
