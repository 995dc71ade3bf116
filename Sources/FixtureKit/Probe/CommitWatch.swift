import Foundation
import Synchronization
import FixtureKitSystem
import FixtureKitModels

/// Counts, from outside, the commits a program makes to a store while it runs:
/// in WAL mode the commit frames of its `-wal` (each generation of the log, which
/// a checkpoint restarts with new salts, counted once); in rollback mode the file
/// change counter of the main file's header, which every commit increments. It
/// sees what it polls: commits that land between two polls are counted together.
final class CommitWatch: Sendable {
    private struct State {
        var startCounter: UInt32?
        /// Commits of the log's earlier generations.
        var banked = 0
        var salt: UInt32?
        var walCommits = 0
        var sawLog = false
        var seen = 0
    }

    private let storePath: String
    private let state: Mutex<State>

    /// Reads where the store stands before the program starts: the commits its
    /// `-wal` already holds (a raw fixture's) are not the program's.
    init(storePath: String) {
        self.storePath = storePath
        var start = State(startCounter: Self.changeCounter(storePath))
        if let log = Self.log(storePath), let header = log.header {
            (start.salt, start.walCommits, start.banked) = (header.salt1, log.commits, -log.commits)
        }
        state = Mutex(start)
    }

    private static func log(_ storePath: String) -> WALFile? {
        FileManager.default.fileExists(atPath: storePath + "-wal") ? try? WALFile(path: storePath + "-wal") : nil
    }

    /// The commits seen so far, polling the files now.
    func commits() -> Int {
        let counter = Self.changeCounter(storePath)
        let log = Self.log(storePath)
        return state.withLock { state in
            if let header = log?.header, let log {
                state.sawLog = true
                if state.salt != header.salt1 {
                    state.banked += state.walCommits
                    state.walCommits = 0
                    state.salt = header.salt1
                }
                state.walCommits = max(state.walCommits, log.commits)
            }
            var count = state.banked + state.walCommits
            // In WAL mode the counter moves at checkpoints, not at commits.
            if !state.sawLog, let counter, let start = state.startCounter { count = Int(counter &- start) }
            state.seen = max(state.seen, count)
            return state.seen
        }
    }

    /// The file change counter: bytes 24 to 27 of the main file's header, big-endian.
    private static func changeCounter(_ path: String) -> UInt32? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let bytes = try? handle.read(upToCount: 28), bytes.count == 28 else { return nil }
        return bytes[24...27].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
