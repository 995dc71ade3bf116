import Foundation
import Testing
@testable import FixtureKitTestSupport

/// The files the layer check still lets import Glibc above the primitives: the
/// list only shrinks. Each file on it imports Glibc (one that stopped leaves the
/// list, so that it cannot start again unseen), and the list is no longer than
/// when the check began.
@Suite struct LayerCheckListTests {
    /// How many files the list held when the layer check took Glibc in; lower it
    /// as files leave the list, never raise it.
    static let mostFiles = 20

    /// The paths (under Sources/) of the plugin's `glibcAllowed`.
    static func allowed() throws -> [String] {
        let plugin = try String(contentsOf: repositoryRoot.appendingPathComponent("Plugins/LayerCheck/plugin.swift"), encoding: .utf8)
        let start = try #require(plugin.range(of: "static let glibcAllowed: [String] = ["))
        let end = try #require(plugin.range(of: "]", range: start.upperBound..<plugin.endIndex))
        return plugin[start.upperBound..<end.lowerBound].split(separator: "\n").compactMap { line in
            let entry = line.trimmingCharacters(in: .whitespaces)
            guard entry.hasPrefix("\""), entry.hasSuffix("\",") else { return nil }
            return String(entry.dropFirst().dropLast(2))
        }
    }

    @Test func theGlibcListOnlyShrinks() throws {
        let allowed = try Self.allowed()
        #expect(!allowed.isEmpty && allowed.count <= Self.mostFiles, "\(allowed.count) files")
        #expect(Set(allowed).count == allowed.count)
        let importsGlibc = try NSRegularExpression(pattern: #"^[ \t]*(@\w+[ \t]+)*((public|package|internal|fileprivate|private)[ \t]+)?import[ \t]+Glibc\b"#, options: .anchorsMatchLines)
        for file in allowed {
            let path = repositoryRoot.appendingPathComponent("Sources/" + file).path
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                Issue.record("\(file) is listed but not there: take it off the list")
                continue
            }
            #expect(importsGlibc.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil, "\(file) no longer imports Glibc: take it off the list")
        }
    }
}
