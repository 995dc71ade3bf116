// The public API is exactly what docs/library.md lists: every public type of every
// library target, and every public function of the operations (Sources/FixtureKit), is
// named there in backticks; every type the page names exists and is public.
import Foundation
import Testing

/// The repository's root, found from this file's path.
private let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A public declaration found in the sources.
struct PublicDeclaration: CustomStringConvertible {
    var file: String
    var line: Int
    var keyword: String
    var name: String
    var topLevel: Bool
    var description: String { "\(file):\(line): \(keyword) \(name)" }
}

/// The public API as the sources declare it and as the page names it.
struct PublicAPI {
    /// Every public or open declaration of the library's targets (not the tool's).
    var declarations: [PublicDeclaration] = []
    /// Every `public extension` or `open` line: the API is declared on types, never in extensions.
    var publicExtensions: [String] = []
    /// The library targets: the folders of Sources/ with Swift files, but the tool's.
    var modules: [String] = []

    static let tool = "fixturekit"
    static let declarationPattern = #"^(\s*)(?:@\w+(?:\([^)]*\))? )*(public|open) (?:final |indirect )?(struct|enum|class|actor|protocol|typealias|func|let|var|static func|static let|static var|init)\b ?([A-Za-z_][A-Za-z0-9_]*)?"#

    /// Reads the sources of every library target under `sources`.
    init(sources: URL) throws {
        let manager = FileManager.default
        let declaration = try Regex(Self.declarationPattern)
        for module in try manager.contentsOfDirectory(atPath: sources.path).sorted() where module != Self.tool {
            let folder = sources.appendingPathComponent(module)
            guard let walker = manager.enumerator(atPath: folder.path) else { continue }
            var swiftFiles = 0
            for case let relative as String in walker where relative.hasSuffix(".swift") {
                swiftFiles += 1
                let path = module + "/" + relative
                let text = try String(contentsOf: folder.appendingPathComponent(relative), encoding: .utf8)
                for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let trimmed = line.drop { $0 == " " }
                    if trimmed.hasPrefix("public extension") || trimmed.hasPrefix("open ") {
                        publicExtensions.append("\(path):\(index + 1): \(trimmed)")
                    }
                    guard let match = try declaration.prefixMatch(in: line) else { continue }
                    let indent = match.output[1].substring ?? ""
                    let keyword = String(match.output[3].substring ?? "")
                    let name = String(match.output[4].substring ?? "")
                    declarations.append(PublicDeclaration(file: path, line: index + 1, keyword: keyword, name: name, topLevel: indent.isEmpty))
                }
            }
            if swiftFiles > 0 { modules.append(module) }
        }
    }

    static let typeKeywords: Set<String> = ["struct", "enum", "class", "actor", "protocol", "typealias"]

    /// The public types, top-level ones and those nested in them.
    var typeNames: Set<String> { Set(declarations.filter { Self.typeKeywords.contains($0.keyword) }.map(\.name)) }
}

/// The names a page writes in backticks: every identifier of every code span.
struct DocumentedNames {
    var spans: [String] = []
    var identifiers: Set<String> = []

    init(markdown: String) throws {
        let span = try Regex("`([^`]+)`")
        let identifier = try Regex("[A-Za-z_][A-Za-z0-9_]*")
        for match in markdown.matches(of: span) {
            let text = String(match.output[1].substring ?? "")
            spans.append(text)
            for word in text.matches(of: identifier) { identifiers.insert(String(text[word.range])) }
        }
    }

    /// The type names the page cites: a code span that begins with a capitalized name
    /// (`Capture.capture(...)`, `SHA256Sums(parsing:)`, `Options.phases`), not a path.
    var citedTypes: Set<String> {
        var names: Set<String> = []
        let leading = try! Regex("^[A-Z][A-Za-z0-9]*")
        for text in spans where !text.contains("/") && !text.contains(" ") && !text.contains("\n") {
            if let match = text.prefixMatch(of: leading) { names.insert(String(text[match.range])) }
        }
        return names
    }
}

/// Protocol witnesses: public because a public conformance needs them, not API of their own.
private let witnesses: Set<String> = ["encode", "hash", "description", "rawValue", "id"]

/// Finds what breaks "public is exactly what docs/library.md lists".
func publicAPIProblems(sources: URL, page: String) throws -> [String] {
    let api = try PublicAPI(sources: sources)
    let documented = try DocumentedNames(markdown: page)
    var problems: [String] = api.publicExtensions.map { "public extension or open: \($0)" }
    for declaration in api.declarations where declaration.topLevel {
        if !documented.identifiers.contains(declaration.name) {
            problems.append("public but not in docs/library.md: \(declaration)")
        }
    }
    // The operations: each public function is a documented call (or a conformance's witness).
    for declaration in api.declarations where declaration.file.hasPrefix("FixtureKit/")
        && declaration.keyword.hasSuffix("func") && !witnesses.contains(declaration.name) && !declaration.name.isEmpty {
        if !documented.identifiers.contains(declaration.name) {
            problems.append("public function not in docs/library.md: \(declaration)")
        }
    }
    let known = api.typeNames.union(api.modules)
    for name in documented.citedTypes.sorted() where !known.contains(name) {
        problems.append("docs/library.md names `\(name)`, which is not a public type")
    }
    return problems
}

@Suite struct PublicAPITests {
    @Test func everyPublicDeclarationIsDocumentedAndEveryDocumentedTypeIsPublic() throws {
        let page = try String(contentsOf: root.appendingPathComponent("docs/library.md"), encoding: .utf8)
        let sources = root.appendingPathComponent("Sources")
        let api = try PublicAPI(sources: sources)
        // The scan sees the library: if it found nothing, it would prove nothing.
        #expect(api.modules.contains("FixtureKit") && api.modules.contains("FixtureKitSQLite"))
        #expect(api.typeNames.contains("Database") && api.typeNames.contains("FixtureKitError"))
        let problems = try publicAPIProblems(sources: sources, page: page)
        #expect(problems == [], "\(problems.joined(separator: "\n"))")
    }

    /// The check fails on what it guards against: an undocumented public type, a public
    /// function of an operation the page does not name, a documented type that is gone.
    @Test func theCheckCatchesAnUndocumentedPublicThingAndADocumentedGhost() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fixturekit-api-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let operations = folder.appendingPathComponent("FixtureKit/Capture")
        let primitives = folder.appendingPathComponent("FixtureKitSystem")
        let tool = folder.appendingPathComponent("fixturekit")
        for made in [operations, primitives, tool] {
            try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
        }
        try Data("""
        public enum Capture {
            public static func capture(store: String) {}
            package static func helper() {}
            public static func undocumentedCall() {}
            public init() {}
        }
        public struct CaptureResult: Encodable {
            public func encode(to encoder: any Encoder) throws {}
        }
        package struct Plumbing {}
        struct Hidden {}

        """.utf8).write(to: operations.appendingPathComponent("Capture.swift"))
        try Data("""
        @preconcurrency public final class ScratchFolder {}
        public extension String { var loud: String { uppercased() } }

        """.utf8).write(to: primitives.appendingPathComponent("ScratchFolder.swift"))
        try Data("public struct ToolOnly {}\n".utf8).write(to: tool.appendingPathComponent("main.swift"))
        let page = "- **Fixtures**: `Capture.capture(store:)`, `CaptureResult`, `VanishedResult`; see `Tests/FixtureKitClientTests`."
        let problems = try publicAPIProblems(sources: folder, page: page)
        #expect(problems == [
            "public extension or open: FixtureKitSystem/ScratchFolder.swift:2: public extension String { var loud: String { uppercased() } }",
            "public but not in docs/library.md: FixtureKitSystem/ScratchFolder.swift:1: class ScratchFolder",
            "public function not in docs/library.md: FixtureKit/Capture/Capture.swift:4: static func undocumentedCall",
            "docs/library.md names `VanishedResult`, which is not a public type",
        ])
    }
}
