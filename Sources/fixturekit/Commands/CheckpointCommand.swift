import FixtureKit

/// `fixturekit checkpoint PATH`: folds a WAL into its main file.
struct CheckpointCommand: Command {
    static let path = Argument<String>("path", help: "A fixture folder or a store's main file.")
    static let force = Flag("--force", help: "Checkpoint a fixture that fixturekit.lock locks, and rewrite its sums line.")
    static let configuration = CommandConfiguration(
        name: "checkpoint",
        abstract: "Fold a fixture's or a live store's WAL into its main file.",
        discussion: """
            A fixture folder is checkpointed on a copy: its -wal and -shm are folded in and dropped,
            manifest.json and SHA256SUMS rewritten, and the folder replaced whole; its content hash stays
            the same. A fixture that fixturekit.lock locks is refused unless --force, which rewrites its
            sums line (its content line stays). A live store gets a
            TRUNCATE checkpoint in place; the frames written and left are reported.
            """,
        arguments: [path.erased],
        options: [force.erased, Shared.json.erased]
    )

    var path: String
    var force: Bool
    var json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        path = try parsed.get(Self.path)
        force = parsed.get(Self.force)
        json = parsed.get(Shared.json)
    }

    struct Report: Encodable {
        var path: String
        var framesWritten: Int
        var framesLeft: Int
        var removedSidecars: [String]
        var lock: [LockEdit]? = nil
    }

    func run(_ console: Console) throws -> ExitCode {
        let report: Report
        if FixtureLocator.isFolder(path) {
            let result = try Checkpoint.checkpointFixture(path, force: force)
            report = Report(path: path, framesWritten: result.foldedFrames, framesLeft: 0, removedSidecars: result.removedSidecars, lock: result.lock)
            let removed = result.removedSidecars.isEmpty ? "no sidecars to remove" : "removed " + result.removedSidecars.joined(separator: ", ")
            console.info("\(path): \(Formatting.count(result.foldedFrames, "frame")) folded into the main file; \(removed); manifest.json and SHA256SUMS rewritten")
            for line in LockText.report(result.lock, lock: LockText.lockPath(besideFixture: path)) { console.message(line) }
        } else {
            let result = try Checkpoint.checkpointLiveStore(path)
            report = Report(path: path, framesWritten: result.checkpointedFrames, framesLeft: result.framesLeft, removedSidecars: [])
            console.info("\(path): \(Formatting.count(result.checkpointedFrames, "frame")) written to the main file, \(result.framesLeft) left; the WAL is truncated")
        }
        if json { console.output(Formatting.json(report)) }
        return .success
    }
}
