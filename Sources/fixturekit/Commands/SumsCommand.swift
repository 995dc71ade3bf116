import FixtureKit

/// `fixturekit sums DIR...`: writes SHA256SUMS for folders.
struct SumsCommand: Command {
    static let folders = Arguments<String>("folder", help: "The folder to list.", minimum: 1, completion: .folder)
    static let force = Flag("--force", help: "Rewrite a fixture that fixturekit.lock locks, and its lines there.")
    static let configuration = CommandConfiguration(
        name: "sums",
        abstract: "Write SHA256SUMS for a folder, in the format `sha256sum -c` checks.",
        discussion: """
            Lists every file below the folder, sorted bytewise, except SHA256SUMS itself, and replaces
            SHA256SUMS atomically. A fixture that its corpus' fixturekit.lock locks is history: refused
            (exit 2) unless --force, which also rewrites its sums and content lines in the lock.
            """,
        arguments: [folders.erased],
        options: [force.erased, Shared.json.erased, Shared.jobs.erased]
    )

    var folders: [String]
    var json: Bool
    var jobs: Int?
    var force: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        folders = try parsed.get(Self.folders)
        json = parsed.get(Shared.json)
        jobs = try parsed.get(Shared.jobs)?.value
        force = parsed.get(Self.force)
    }

    struct Report: Encodable {
        var folder: String
        var files: [File]
        struct File: Encodable { var path: String; var sha256: String }
    }

    func run(_ console: Console) throws -> ExitCode {
        var reports: [Report] = []
        for folder in folders {
            let (sums, lock) = try Checksums.writeSums(for: folder, threads: jobs, force: force)
            reports.append(Report(folder: folder, files: sums.entries.map { .init(path: $0.path.description, sha256: $0.digest.hex) }))
            console.info("\(folder.appendingPathForDisplay(SHA256Sums.fileName)): \(Formatting.count(sums.entries.count, "file"))")
            for line in LockText.report(lock, lock: LockText.lockPath(besideFixture: folder)) { console.message(line) }
        }
        if json { console.output(Formatting.json(reports)) }
        return .success
    }
}

extension String {
    /// `self/name`, without a doubled slash; `name` itself when it is absolute
    /// (a stage file outside the corpus).
    func appendingPathForDisplay(_ name: String) -> String {
        if name.hasPrefix("/") { return name }
        return hasSuffix("/") ? self + name : self + "/" + name
    }
}
