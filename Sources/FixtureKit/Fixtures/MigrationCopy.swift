import Foundation
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// A fixture's store set copied into a fresh temporary folder, where stages run.
final class MigrationCopy {
    private let copy: ScratchCopy
    let storePath: String
    /// Runs the stages on the copy.
    let stages: StageRunner

    /// Copies the store set `store` of the fixture folder `fixture`.
    /// - Parameter cancellation: what stops a running stage.
    convenience init(fixture: String, store: String, swiftStages: [String: SwiftStage] = [:], cancellation: Cancellation? = nil) throws(FixtureKitError) {
        self.init(copy: try Self.copyStoreSet(of: fixture, store: store), swiftStages: swiftStages, cancellation: cancellation)
    }

    /// Runs the stages on `copy`, a store set copied by ``copyStoreSet(of:store:)``.
    init(copy: ScratchCopy, swiftStages: [String: SwiftStage] = [:], cancellation: Cancellation? = nil) {
        self.copy = copy
        let storePath = copy.path
        self.storePath = storePath
        stages = StageRunner(
            storePath: storePath, logFolder: copy.folder, timeout: StageRunner.matrixTimeout, swiftStages: swiftStages, cancellation: cancellation
        ) { () throws(SQLiteError) in
            let database = try Database(path: storePath, options: .init(busyTimeout: 5000))
            try database.execute(Self.throwawaySettings)
            return database
        }
    }

    /// The store set `store` of the fixture folder `fixture`, copied into a fresh temporary folder.
    static func copyStoreSet(of fixture: String, store: String) throws(FixtureKitError) -> ScratchCopy {
        let set = try StoreSet.locate(fixture.appendingPath(store))
        do { return try ScratchCopy(storeSet: set) } catch {
            throw FixtureKitError(what: "copy fixture", failed: error.cause)
        }
    }

    /// The settings of the connection that runs the SQL stages on the copy: the
    /// copy is thrown away after its checks, so nothing needs to reach the disk
    /// before they read it (`synchronous = OFF`: no fsync at each commit), and
    /// the pages a stage frees need no zeroing (`secure_delete = OFF`, which
    /// Debian's SQLite has on: dropping a table would otherwise write every page
    /// of it twice, to the journal and as zeros). Neither changes what the stage
    /// does to the rows, the schema or the file's structure that the checks read;
    /// a program stage opens the store with its own settings.
    /// A 32 MiB page cache spares most reads and writes of a stage that
    /// rebuilds a large table and indexes it (a 640 MiB store: 17.1 s with
    /// SQLite's default 2 MiB, 12.5 s with 32 MiB); the checks then read the
    /// migrated store through the same connection. A second thread for SQLite's
    /// sorter (`threads = 1`) sorts a large CREATE INDEX in two halves at once on
    /// the core the stage leaves idle (at most one more cache's worth of memory):
    /// the careful benchmark's stage 6.20 s instead of 6.62 s.
    static let throwawaySettings = "PRAGMA synchronous = OFF; PRAGMA secure_delete = OFF; PRAGMA cache_size = -32768; PRAGMA threads = 1"

    /// The connection to the copy, opened once and reused by the SQL stages.
    func open() throws(SQLiteError) -> Database { try stages.open() }

    /// Closes the connection, so a program can have the store to itself.
    func close() { stages.close() }

    /// Runs one stage; `nil` when it succeeded.
    func run(_ stage: CorpusConfiguration.Stage, configuration: CorpusConfiguration, log: inout [String]) -> StageRunner.Failure? {
        stages.run(stage, configuration: configuration, log: &log)
    }

    /// Moves the migrated store set into `folder` (for `--keep-failed`).
    func move(to folder: String) {
        close()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: copy.folder)) ?? [] {
            try? FileManager.default.moveItem(atPath: copy.folder.appendingPath(name), toPath: folder.appendingPath(name))
        }
    }

    deinit { close() }
}

/// A migration's copy made ahead: the store set of a fixture's private copy,
/// copied again on a thread of its own while that copy is verified, so the
/// first path from the fixture does not copy it after the verification. The
/// private copy is the runner's own and only read meanwhile, so this copy holds
/// the bytes that are verified; it is used only once they are.
final class SpareCopy: Sendable {
    private let made: ThreadedValue<Result<ScratchCopy, FixtureKitError>>

    /// Starts copying the store set `store` of the fixture folder `fixture`.
    init(fixture: String, store: String) {
        made = ThreadedValue { Result { () throws(FixtureKitError) in try MigrationCopy.copyStoreSet(of: fixture, store: store) } }
    }

    /// The copy, or why it could not be made, once it is done: to the first
    /// caller only (`nil` to the others, who copy for themselves).
    func take() -> Result<ScratchCopy, FixtureKitError>? {
        made.take()
    }
}
