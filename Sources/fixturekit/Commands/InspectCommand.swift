import Foundation
import FixtureKit

/// `fixturekit inspect PATH`: what a store set, a fixture or an archive holds, in plain words.
struct InspectCommand: Command {
    static let path = Argument<String>("path", help: "A store's main file, a fixture folder or an archive (- for one on standard input).")
    static let configuration = CommandConfiguration(
        name: "inspect",
        abstract: "Show what a store set, a fixture or an archive holds: headers, WAL, schema, rows, diagnostics.",
        discussion: """
            A store or a fixture: reads the files' bytes (database header, -wal frames, -shm header) and
            opens only a temporary copy of the store set with SQLite; exit 1 when a diagnostic is a
            problem (transactions SQLite would drop, a log that does not belong to the database).
            An archive (.tar.zst, .tar.gz, .tar.xz, .tar): read once, each entry hashed against the
            SHA256SUMS inside it, nothing written; exit 1 when a file is changed, missing or unlisted,
            2 when the archive is unreadable, malformed or unsafe.
            """,
        arguments: [path.erased],
        options: [Shared.json.erased]
    )

    var path: String
    var json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        path = try parsed.get(Self.path)
        json = parsed.get(Shared.json)
    }

    func run(_ console: Console) throws -> ExitCode {
        if ArchiveInspection.isArchive(path) { return try inspectArchive(console) }
        let storePath = FixtureLocator.isFolder(path) ? try FixtureLocator.storePath(inFixture: path) : path
        let inspection = try StoreInspection(storePath: storePath)
        for (line, isDiagnostic) in InspectionText.lines(inspection) {
            if isDiagnostic { console.message(line) } else { console.info(line) }
        }
        if json { console.output(Formatting.json(inspection)) }
        return inspection.hasProblems ? .checkFailed : .success
    }

    private func inspectArchive(_ console: Console) throws -> ExitCode {
        let contents = try ArchiveInspection.inspect(path, progress: console.work)
        let verification = contents.verification
        if json {
            console.output(Formatting.json(contents))
        } else {
            let ratio = contents.compressedSize > 0 ? Double(contents.expandedSize) / Double(contents.compressedSize) : 0
            if console.verbosity != .quiet { console.lines("""
                archive:      \(path)
                format:       \(contents.format)
                compression:  \(contents.compression)
                size:         \(Formatting.bytes(contents.compressedSize)), expanding to \(Formatting.bytes(contents.expandedSize)) (\(String(format: "%.1f", ratio)):1)
                entries:      \(contents.entries.count)
                """) }
            for entry in contents.entries {
                let size = entry.kind == .folder ? "folder" : Formatting.bytes(entry.size)
                console.info("  " + size.padding(toLength: 12, withPad: " ", startingAt: 0) + entry.path + (entry.kind == .folder ? "/" : ""))
            }
            console.problems(verification, what: "inspect")
            if verification.passed {
                console.info("verification: \(ok: "OK") (\(Formatting.count(verification.verifiedFiles, "file")), \(Formatting.bytes(verification.verifiedBytes)))")
            } else {
                console.message("verification: \(failed: "FAILED") (\(Formatting.count(verification.problems.count, "problem")))")
            }
        }
        return verification.passed ? .success : .checkFailed
    }
}
