import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport
@testable import FixtureKitTool

/// The README and docs/ say what the tool does: the five minutes run as
/// written, every command's page ends with its --help.
@Suite struct ReadmeTests {
    static let root = repositoryRoot
    static func read(_ path: String) throws -> String { try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8) }

    /// One command of a console block, with the output the README shows for it.
    struct Step {
        var command: String
        var output: [String]
        /// A CI step shows no output: only its exit status is checked.
        var showsOutput = true
    }

    /// The commands of the README's section `title`, in order: each `$ ` line of
    /// a console block (with the lines of a here-document), then its output; each
    /// `run:` line of a YAML block.
    static func steps(inSection title: String, of readme: String) -> [Step] {
        let lines = readme.components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: "## " + title) else { return [] }
        let end = lines[(start + 1)...].firstIndex { $0.hasPrefix("## ") } ?? lines.count
        var steps: [Step] = []
        var fence: String?
        var hereDocumentEnd: String?
        for line in lines[(start + 1)..<end] {
            if line.hasPrefix("```") {
                fence = fence == nil ? String(line.dropFirst(3)) : nil
                continue
            }
            switch fence {
            case "console"?:
                if let terminator = hereDocumentEnd {
                    steps[steps.count - 1].command += "\n" + line
                    if line == terminator { hereDocumentEnd = nil }
                } else if line.hasPrefix("$ ") {
                    steps.append(Step(command: String(line.dropFirst(2)), output: []))
                    if let range = line.range(of: "<<'") {
                        hereDocumentEnd = String(line[range.upperBound...].prefix { $0 != "'" })
                    }
                } else {
                    steps[steps.count - 1].output.append(line)
                }
            case "yaml"?:
                if let range = line.range(of: "- run: ") { steps.append(Step(command: String(line[range.upperBound...]), output: [], showsOutput: false)) }
            default:
                break
            }
        }
        return steps
    }

    /// What varies from run to run: digests, times, sizes.
    static func normalized(_ text: String) -> String {
        var result = text
        for (pattern, replacement) in [("[0-9a-f]{64}", "<sha256>"), ("[0-9]+\\.[0-9]{2} s", "<t> s"), ("[0-9]+(\\.[0-9])? (B|KiB|MiB)", "<size>")] {
            result = result.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return result
    }

    @Test func yourOwnAppInFiveMinutesRunsAsWritten() throws {
        let steps = Self.steps(inSection: "Your own app in five minutes", of: try Self.read("README.md"))
        #expect(steps.count >= 10)
        #expect(steps.map(\.command).contains { $0.hasPrefix("fixturekit init") })
        #expect(steps.map(\.command).contains { $0.hasPrefix("fixturekit freeze") })
        #expect(steps.map(\.command).contains { $0.hasPrefix("fixturekit verify") })
        #expect(steps.map(\.command).contains { $0.hasPrefix("fixturekit migrate") })
        // The user's own stores: version 1.0.0's, and one a 1.1.0 build wrote.
        let folder = try TemporaryFolder()
        for (path, schema) in [
            ("App.sqlite", "CREATE TABLE contacts (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT, phone TEXT, notes TEXT)"),
            ("v1.1/App.sqlite", "CREATE TABLE contacts (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT, phone TEXT, notes TEXT, starred INTEGER NOT NULL DEFAULT 0)"),
        ] {
            try FileManager.default.createDirectory(atPath: folder.url(path).components(separatedBy: "/").dropLast().joined(separator: "/"), withIntermediateDirectories: true)
            let database = try Database(path: folder.url(path), options: .init(create: true))
            try database.execute("PRAGMA journal_mode = WAL; \(schema); INSERT INTO contacts (name, email, phone, notes) VALUES ('Ann Lee', 'ann@example.com', '+1 555 0100', 'met at the conference'), ('Bo Chen', 'bo@example.com', NULL, 'https://cards.example/bo'), ('Cy Diaz', 'cy@example.com', '+44 20 7946 0000', 'cy.diaz@work.example')")
            if path.hasPrefix("v1.1") { try database.execute("DELETE FROM contacts WHERE id > 1") }
            try database.close()
        }
        // One shell runs every command in turn, as a user types them, and marks where each ends.
        var script = "set -u\n"
        for (index, step) in steps.enumerated() {
            script += "printf '\\n@@step \(index)\\n'\n{\n\(step.command)\n} 2>&1\nprintf '\\n@@status %d\\n' $?\n"
        }
        let toolFolder = URL(fileURLWithPath: toolExecutable).deletingLastPathComponent().path
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = toolFolder + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["FIXTUREKIT_ANON_KEY"] = nil
        try folder.write("five.sh", script)
        let result = try run(["bash", folder.url("five.sh")], in: folder.path, environment: environment)
        let blocks = result.standardOutput.components(separatedBy: "\n@@step ").dropFirst()
        #expect(blocks.count == steps.count, "\(result.standardOutput)\(result.standardError)")
        for (step, block) in zip(steps, blocks) {
            var lines = block.components(separatedBy: "\n")
            let statusLine = lines.last { $0.hasPrefix("@@status ") } ?? "@@status ?"
            lines = Array(lines.dropFirst().prefix { !$0.hasPrefix("@@status ") })
            if lines.last == "" { lines.removeLast() }
            #expect(statusLine == "@@status 0", "\(step.command): \(lines.joined(separator: "\n"))")
            guard step.showsOutput else { continue }
            #expect(Self.normalized(lines.joined(separator: "\n")) == Self.normalized(step.output.joined(separator: "\n")), "\(step.command)")
        }
    }

    @Test func everyCommandsHelpIsOnItsPage() throws {
        let readme = try Self.read("README.md")
        for command in Tool.visibleCommands {
            let page = "docs/commands/\(command.name).md"
            let text = try Self.read(page)
            let help = fixturekit(command.name, "--help").standardOutput
            #expect(text.hasSuffix("## `--help`\n\n```text\n" + help + "```\n"), "\(page) does not end with `fixturekit \(command.name) --help` (scripts/update-help-docs.sh rewrites it)")
            #expect(readme.contains("](\(page))"), "the README does not link \(page)")
        }
        // No page for a command that does not exist.
        let pages = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("docs/commands").path)
        #expect(Set(pages) == Set(Tool.visibleCommands.map { $0.name + ".md" }))
    }

    @Test func theReadmeStaysShortAndEveryLinkResolves() throws {
        let readme = try Self.read("README.md")
        #expect(readme.components(separatedBy: "\n").count <= 300)
        var documents = ["README.md", "BENCHMARKS.md"]
        for folder in ["docs", "docs/commands", "docs/formats"] {
            documents += try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent(folder).path)
                .filter { $0.hasSuffix(".md") }.map { "\(folder)/\($0)" }
        }
        let link = try NSRegularExpression(pattern: "\\]\\(([^)#: ]+)(#[^)]*)?\\)")
        for document in documents {
            let text = try Self.read(document)
            let base = URL(fileURLWithPath: document).deletingLastPathComponent().relativePath
            for match in link.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let target = String(text[Range(match.range(at: 1), in: text)!])
                let path = Self.root.appendingPathComponent(base == "." ? target : base + "/" + target).path
                #expect(FileManager.default.fileExists(atPath: path), "\(document) links \(target), which is not there")
            }
        }
    }
}
