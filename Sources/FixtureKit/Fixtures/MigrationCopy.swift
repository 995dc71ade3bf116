import Foundation
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// A fixture's store set copied into a fresh temporary folder, where stages run.
final class MigrationCopy {
    private let scratch: ScratchFolder
    let storePath: String
    /// Runs the stages on the copy.
    let stages: StageRunner

    init(fixture: String, store: String) throws(FixtureKitError) {
        let set = try StoreSet(storePath: fixture.appendingPath(store))
        do {
            scratch = try ScratchFolder()
            try set.copyMembers(to: scratch.path, sync: false)
        } catch {
            throw FixtureKitError(what: "copy fixture", failed: error)
        }
        let storePath = scratch.path.appendingPath(store)
        self.storePath = storePath
        stages = StageRunner(storePath: storePath, logFolder: scratch.path, timeout: StageRunner.matrixTimeout) { () throws(SQLiteError) in
            try Database(path: storePath, options: .init(busyTimeout: 5000))
        }
    }

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
        for name in (try? FileManager.default.contentsOfDirectory(atPath: scratch.path)) ?? [] {
            try? FileManager.default.moveItem(atPath: scratch.path.appendingPath(name), toPath: folder.appendingPath(name))
        }
    }

    deinit { close() }
}
