import CSQLite
import FixtureKitSystem

extension Database {
    /// How much of the WAL a checkpoint moves into the database file.
    /// See <https://www.sqlite.org/c3ref/wal_checkpoint_v2.html>.
    public enum CheckpointMode: Sendable {
        /// As much as possible without waiting for readers or writers.
        case passive
        /// Waits for writers, then copies every frame.
        case full
        /// As `full`, then waits for readers so the next writer restarts the log.
        case restart
        /// As `restart`, then truncates the `-wal` to zero bytes.
        case truncate

        var rawValue: Int32 {
            switch self {
            case .passive: SQLITE_CHECKPOINT_PASSIVE
            case .full: SQLITE_CHECKPOINT_FULL
            case .restart: SQLITE_CHECKPOINT_RESTART
            case .truncate: SQLITE_CHECKPOINT_TRUNCATE
            }
        }
    }

    /// What a checkpoint did.
    public struct CheckpointResult: Sendable, Equatable {
        /// Frames in the WAL when the checkpoint ran.
        public package(set) var logFrames: Int
        /// Frames copied into the database file (all of them, when it completed).
        public package(set) var checkpointedFrames: Int
        /// Frames not yet copied.
        public var framesLeft: Int { logFrames - checkpointedFrames }

        package init(logFrames: Int, checkpointedFrames: Int) {
            self.logFrames = logFrames
            self.checkpointedFrames = checkpointedFrames
        }
    }

    /// Runs a WAL checkpoint of the main database.
    ///
    /// - Throws: ``SQLiteError``; `SQLITE_BUSY` when readers or writers kept a
    ///   `full`, `restart` or `truncate` checkpoint from completing within the
    ///   busy timeout.
    public func checkpoint(_ mode: CheckpointMode) throws(SQLiteError) -> CheckpointResult {
        // A connection learns that the file is in WAL mode when it first reads
        // it; before that, a checkpoint does nothing and says so with success.
        _ = try scalar("PRAGMA schema_version")
        var logFrames: Int32 = -1
        var checkpointed: Int32 = -1
        let code = sqlite3_wal_checkpoint_v2(handle, "main", mode.rawValue, &logFrames, &checkpointed)
        guard code == SQLITE_OK else { throw SQLiteError(connection: handle, code: code, sql: "PRAGMA wal_checkpoint") }
        return CheckpointResult(logFrames: Int(max(logFrames, 0)), checkpointedFrames: Int(max(checkpointed, 0)))
    }

    /// Turns off the automatic checkpoint after commits, so the WAL keeps every
    /// frame until checkpointed explicitly (tests build stores this way).
    package func disableAutomaticCheckpoint() {
        sqlite3_wal_autocheckpoint(handle, 0)
    }
}

extension Database {
    /// Whether closing the last connection checkpoints the WAL and deletes it.
    ///
    /// SQLite's default (`true`) folds `-wal` into the main file on close; with
    /// `false`, the `-wal` stays as it is, which is what a store set left by a
    /// crashed app looks like. See `SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`.
    package func setCheckpointOnClose(_ enabled: Bool) throws(SQLiteError) {
        var result: Int32 = 0
        let code = fixturekit_sqlite_db_config_int(handle, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, enabled ? 0 : 1, &result)
        guard code == SQLITE_OK else { throw SQLiteError(connection: handle, code: code) }
    }
}
