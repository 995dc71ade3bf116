import Foundation
import Testing
@testable import FixtureKitTestSupport

/// `fixturekit migrate` is written on the library's public API alone, as an
/// app's own test could be (`MatrixClientTests` runs the same steps without
/// package access): its file names nothing the library declares `package` and
/// never `public`, and makes no system call of its own.
@Suite struct MigrateCommandAPITests {
    /// What the library declares `package` and nowhere `public`.
    struct PackageOnly {
        /// Functions, properties and cases, by name.
        var members: Set<String> = []
        /// Initializers, as `Type(label:` (`Type(_:` for an unlabelled first parameter).
        var initializers: Set<String> = []
        var types: Set<String> = []
    }

    static let declaration = #"^(\s*)(?:@\w+(?:\([^)]*\))?\s+)*(public|package)\s+(?:(?:static|final|override|mutating|nonisolated|indirect|convenience|required)\s+)*(func|var|let|init|case|struct|enum|class|actor|protocol|typealias)\b\s*([A-Za-z_]\w*)?(?:\(\s*([A-Za-z_]\w*))?"#
    static let scope = #"^(\s*)(?:[\w@]+(?:\([^)]*\))?\s+)*(?:struct|enum|class|actor|extension|protocol)\s+([A-Za-z_][\w.]*)"#

    /// Reads the declarations of the library's targets (every folder of `sources` but the tool's).
    static func packageOnly(sources: URL) throws -> PackageOnly {
        let declaration = try pattern(Self.declaration), scope = try pattern(Self.scope)
        var declared: [String: (package: Set<String>, public: Set<String>)] = ["member": ([], []), "init": ([], []), "type": ([], [])]
        let walker = try #require(FileManager.default.enumerator(atPath: sources.path))
        for case let relative as String in walker where relative.hasSuffix(".swift") && !relative.hasPrefix("fixturekit/") {
            let text = try String(contentsOf: sources.appendingPathComponent(relative), encoding: .utf8)
            var scopes: [(indent: Int, name: String)] = []
            for line in text.split(separator: "\n") {
                let indent = line.prefix { $0 == " " }.count
                scopes.removeAll { $0.indent >= indent }
                if let match = try declaration.prefixMatch(in: line) {
                    let access = String(match.output[2].substring ?? "")
                    let keyword = String(match.output[3].substring ?? "")
                    let name = String(match.output[4].substring ?? "")
                    var entry: (String, String)
                    switch keyword {
                    case "init": entry = ("init", "\(scopes.last?.name.split(separator: ".").last ?? "?")(\(match.output[5].substring ?? "_"):")
                    case "struct", "enum", "class", "actor", "protocol", "typealias": entry = ("type", name)
                    default: entry = ("member", name)
                    }
                    if access == "public" { declared[entry.0]?.public.insert(entry.1) } else { declared[entry.0]?.package.insert(entry.1) }
                }
                if let match = try scope.prefixMatch(in: line) {
                    scopes.append((indent, String(match.output[2].substring ?? "")))
                }
            }
        }
        func only(_ kind: String) -> Set<String> { (declared[kind]?.package ?? []).subtracting(declared[kind]?.public ?? []) }
        return PackageOnly(members: only("member"), initializers: only("init"), types: only("type"))
    }

    /// What of `api` the Swift `text` uses, but the names `own` (the tool's) declares too.
    static func uses(_ text: String, of api: PackageOnly, own: Set<String>) throws -> [String] {
        var found: [String] = []
        for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
            for match in line.matches(of: try pattern(#"\.([a-z_]\w*)\b"#)) {
                let name = String(match.output[1].substring ?? "")
                if api.members.contains(name), !own.contains(name) { found.append(".\(name)") }
            }
            for match in line.matches(of: try pattern(#"\b([A-Z]\w*)\(\s*(?:([a-z_]\w*)\s*:)?"#)) {
                let call = "\(match.output[1].substring ?? "")(\(match.output[2].substring ?? "_"):"
                if api.initializers.contains(call) { found.append(call) }
            }
            for match in line.matches(of: try pattern(#"\b([A-Z]\w*)\b"#)) {
                let name = String(match.output[1].substring ?? "")
                if api.types.contains(name), !own.contains(name) { found.append(name) }
            }
        }
        return found
    }

    /// Every name the tool's own sources declare (its console, options, texts).
    static func toolNames() throws -> Set<String> {
        let folder = repositoryRoot.appendingPathComponent("Sources/fixturekit")
        let walker = try #require(FileManager.default.enumerator(atPath: folder.path))
        var names: Set<String> = []
        let declared = try pattern(#"\b(?:func|var|let|case|struct|enum|class)\s+([A-Za-z_]\w*)"#)
        for case let relative as String in walker where relative.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(relative), encoding: .utf8)
            for match in text.matches(of: declared) { names.insert(String(match.output[1].substring ?? "")) }
        }
        return names
    }

    @Test func migrateUsesOnlyThePublicAPI() throws {
        let api = try Self.packageOnly(sources: repositoryRoot.appendingPathComponent("Sources"))
        // The scan sees the library's plumbing: if it found none, it would prove nothing.
        #expect(api.types.contains("CanonicalJSON") && api.members.contains("received") && api.initializers.contains("FixtureKitError(what:"))
        let command = try String(contentsOf: repositoryRoot.appendingPathComponent("Sources/fixturekit/Commands/MigrateCommand.swift"), encoding: .utf8)
        #expect(try Self.uses(command, of: api, own: Self.toolNames()) == [])
        // No system call of its own: stdout's state is the console's.
        #expect(!command.contains("Glibc") && !command.contains("fcntl"))
    }

    /// The scan finds what the command did when it was not on the public API (its lines, as they were).
    @Test func theScanFindsPackageAPI() throws {
        let api = try Self.packageOnly(sources: repositoryRoot.appendingPathComponent("Sources"))
        let before = """
            throw FixtureKitError(what: "write JSON report", path: "stdout", why: "not open", hint: "nothing was run")
            throw FixtureKitError(what: "write JSON report", path: "stdout", why: FileSystemError("write", path: "stdout", errno: code).reason)
            Interruption.received == SIGTERM ? .interruptedBySIGTERM : .interruptedBySIGINT
            console.output(String(decoding: CanonicalJSON.file(report), as: UTF8.self))
            // A comment may name CanonicalJSON.
            """
        #expect(try Self.uses(before, of: api, own: Self.toolNames()) == ["FixtureKitError(what:", "FixtureKitError(what:", "FileSystemError(_:", ".received", "CanonicalJSON"])
    }
}

/// A regular expression whose `\b` is a boundary between a word character and
/// another (Swift's default, Unicode's rules, sees none in `result.checks.filter`).
private func pattern(_ text: String) throws -> Regex<AnyRegexOutput> {
    try Regex(text).wordBoundaryKind(.simple)
}
