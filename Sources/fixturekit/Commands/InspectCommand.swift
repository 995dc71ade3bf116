import Foundation
import FixtureKit

/// `fixturekit inspect FILE`: what an archive holds, and whether it matches its SHA256SUMS.
struct InspectCommand: Command {
    static let configuration = CommandConfiguration(
        name: "inspect",
        abstract: "Describe an archive: format, compression, entries, sizes and its check.",
        discussion: """
            Reads the archive once, hashing each entry against the SHA256SUMS inside it; writes nothing.
            Exit status: 0 the archive passes, 1 a file is changed, missing or unlisted, 2 the archive is
            unreadable, malformed or unsafe, or PATH is not an archive.
            """,
        arguments: [ArgumentDefinition(name: "path", help: "The archive (.tar.zst, .tar.gz, .tar.xz, .tar).")],
        options: [.json])

    var path: String
    var json: Bool

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Self.configuration.parse(arguments)
        path = parsed.positionals[0]
        json = parsed.flag("--json")
    }

    func run(_ console: Console) throws -> ExitCode {
        guard ArchiveInspection.isArchive(path) else {
            throw FixtureKitError(what: "inspect", path: path, why: "not an archive", hint: "inspect reads .tar.zst, .tar.gz, .tar.xz and .tar archives")
        }
        let contents = try ArchiveInspection.inspect(path)
        let verification = contents.verification
        if json {
            console.output(Formatting.json(contents))
        } else {
            let ratio = contents.compressedSize > 0 ? Double(contents.expandedSize) / Double(contents.compressedSize) : 0
            console.message("""
                archive:      \(path)
                format:       \(contents.format)
                compression:  \(contents.compression)
                size:         \(Formatting.bytes(contents.compressedSize)), expanding to \(Formatting.bytes(contents.expandedSize)) (\(String(format: "%.1f", ratio)):1)
                entries:      \(contents.entries.count)
                """)
            for entry in contents.entries {
                let size = entry.kind == .folder ? "folder" : Formatting.bytes(entry.size)
                console.message("  " + size.padding(toLength: 12, withPad: " ", startingAt: 0) + entry.path.escapingControlCharacters() + (entry.kind == .folder ? "/" : ""))
            }
            console.problems(verification, what: "inspect")
            let outcome = verification.passed
                ? console.styled("OK", .ok) + " (\(Formatting.count(verification.verifiedFiles, "file")), \(Formatting.bytes(verification.verifiedBytes)))"
                : console.styled("FAILED", .failed) + " (\(Formatting.count(verification.problems.count, "problem")))"
            console.message("verification: \(outcome)")
        }
        return verification.passed ? .success : .checkFailed
    }
}
