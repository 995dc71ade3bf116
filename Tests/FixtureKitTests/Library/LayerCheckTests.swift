import Foundation
import Testing
@testable import FixtureKitTestSupport

/// The layer check's pattern (Plugins/LayerCheck), run with `grep -E` as the
/// plugin runs it: it finds every form of an import of a C module or Glibc, and
/// nothing else; and no file above the primitives has one.
@Suite struct LayerCheckTests {
    /// The plugin's pattern, as written in its source.
    static func pattern() throws -> String {
        let plugin = try String(contentsOf: repositoryRoot.appendingPathComponent("Plugins/LayerCheck/plugin.swift"), encoding: .utf8)
        let start = try #require(plugin.range(of: "static let pattern = #\""))
        let end = try #require(plugin.range(of: "\"#", range: start.upperBound..<plugin.endIndex))
        return String(plugin[start.upperBound..<end.lowerBound])
    }

    /// The lines of `text` that `grep -En pattern` finds, by number.
    static func matches(_ text: String, pattern: String) throws -> [Int] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("layer-check-\(UUID().uuidString).swift")
        try text.write(to: file, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try run(["grep", "-En", pattern, file.path])
        return result.standardOutput.split(separator: "\n").compactMap { Int($0.split(separator: ":").first ?? "") }
    }

    @Test func everyFormOfTheImportIsFoundAndNothingElse() throws {
        let lines = [
            "import Glibc",
            "  @preconcurrency import Glibc",
            "internal import CSQLite",
            "import struct Glibc.stat",
            "@_implementationOnly import CArchive",
            "public import func CCrypto.EVP_sha256",
            "import CSystem",
            "import Foundation",
            "import FixtureKitSystem",
            "// import Glibc",
            "import GlibcExtras",
            "let text = \"import Glibc\"",
        ]
        #expect(try Self.matches(lines.joined(separator: "\n") + "\n", pattern: Self.pattern()) == Array(1...7))
    }

    @Test func noFileAboveThePrimitivesImportsCOrGlibc() throws {
        let pattern = try Self.pattern()
        let sources = repositoryRoot.appendingPathComponent("Sources")
        let primitives: Set = ["FixtureKitSystem", "FixtureKitSQLite", "FixtureKitCrypto", "FixtureKitArchiveIO"]
        let enumerator = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var checked = 0
        for case let file as URL in enumerator where file.pathExtension == "swift" {
            let target = file.path.dropFirst(sources.path.count + 1).split(separator: "/").first.map(String.init) ?? ""
            guard !primitives.contains(target) else { continue }
            checked += 1
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(try Self.matches(text, pattern: pattern).isEmpty, "\(file.path)")
        }
        #expect(checked > 100)
    }
}
