import Foundation
import Synchronization
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitArchiveIO
import FixtureKitModels

extension MigrationRunner {
    /// A version's fixture: verified once, its contents read once from a copy,
    /// whichever paths ask for it at the same time (the others wait for the
    /// first). When the corpus has no folder for it but its archive
    /// (`App-1.0.0.tar.zst`, as `pack` names it), the archive is unpacked,
    /// verified on the way, into a temporary folder.
    /// - Parameter spare: when this call is the one that reads the fixture, a
    ///   copy of its store set is made while it is verified (``FixtureState/spare``):
    ///   a path that is about to copy it asks so.
    func fixture(_ version: String, spare: Bool = false) -> FixtureState {
        let slot = fixtures.withLock { slots in
            if let slot = slots[version] { return slot }
            let slot = FixtureSlot()
            slots[version] = slot
            return slot
        }
        return slot.resolve { readFixture(version, spare: spare) }
    }

    private func readFixture(_ version: String, spare wantsSpare: Bool) -> FixtureState {
        var state = FixtureState(folder: configuration.resolve(version))
        var isOwnCopy = false
        if !FixtureLocator.isFolder(state.folder) {
            if let archive = configuration.archivePath(of: version) {
                do {
                    let scratch = try ScratchFolder()
                    temporaryFolders.withLock { $0.append(scratch) }
                    let folder = scratch.path.appendingPath(version)
                    let result = try FixtureArchive.unpack(archive, to: folder)
                    let problems = result.contents.verification.problems
                    if !problems.isEmpty { state.problem = .archiveDoesNotVerify(archive: archive, problems: problems) }
                    state.folder = folder
                    isOwnCopy = true
                } catch {
                    state.problem = .unreadable(error)
                }
            } else {
                state.problem = .missing(version: version, folder: state.folder)
            }
        }
        if state.problem == nil {
            let folder = state.folder
            do throws(FixtureKitError) {
                // The paths read a copy that is verified as it was copied: a fixture
                // that changes afterwards (another process, a stage program) cannot
                // change what they migrate.
                let copy = isOwnCopy ? .success(folder) : privateCopy(of: folder)
                // The copy's contents are read on a second thread while it is
                // verified; they are used only once it verifies.
                let reading = BackgroundStage()
                let read = Handoff<Result<(StoreContents, String), FixtureKitError>>()
                if case .success(let own) = copy {
                    let store = own.appendingPath(configuration.store)
                    reading.start { [self] in read.value = Result { () throws(FixtureKitError) in try readCopy(of: StoreSet.locate(store)) } }
                }
                defer { reading.drain() }
                // The migration's copy, made from the private copy meanwhile.
                var spare = wantsSpare ? (try? copy.get()).map { SpareCopy(fixture: $0, store: configuration.store) } : nil
                // One that is not handed on is waited for, and goes away with this call.
                defer { if let spare { _ = spare.take() } }
                let problems = try Verifier.fixtureProblems((try? copy.get()) ?? folder)
                reading.drain()
                if !problems.isEmpty {
                    state.problem = .folderDoesNotVerify(folder: folder, problems: problems)
                } else {
                    let verified = try copy.get()
                    guard let result = read.value else { throw FixtureKitError(what: "read fixture", path: verified, why: "not read") }
                    let (contents, reference) = try result.get()
                    state.folder = verified
                    // What was verified must be what the lock records of the version.
                    if let problem = history?.fixtureProblem(version, verifiedFolder: verified, archive: isOwnCopy ? configuration.archivePath(of: version) : nil) {
                        state.problem = .notAsLocked(problem)
                    } else {
                        state.contents = contents
                        state.copy = reference
                        // The copies of the keys go in a folder of their own, removed with the run's.
                        let keysFolder = try? ScratchFolder(prefix: "fixturekit-keys")
                        if let keysFolder { temporaryFolders.withLock { $0.append(keysFolder) } }
                        state.keys = SourceKeys(reference: reference, schema: contents.schema, keys: configuration.keys ?? [:], folder: keysFolder?.path)
                        state.pages = SourcePages(reference: reference)
                        state.values = SourceValues(reference: reference, schema: contents.schema)
                        state.spare = spare
                        spare = nil
                    }
                }
            } catch {
                state.problem = .unreadable(error)
            }
        }
        return state
    }

    /// Copies a fixture folder into a folder of the runner's, under its own name.
    /// A folder holding something else than files and folders (a link, a FIFO),
    /// or a file that vanishes meanwhile, cannot be copied: verifying the
    /// fixture itself then says what is wrong with it.
    private func privateCopy(of folder: String) -> Result<String, FixtureKitError> {
        let name = folder.trimmingTrailingSlashes.split(separator: "/").last.map(String.init) ?? ""
        do {
            let copy = try ScratchCopy(fixture: folder, named: ["", ".", ".."].contains(name) ? "fixture" : name)
            temporaryFolders.withLock { $0.append(copy.scratch) }
            return .success(copy.path)
        } catch {
            return .failure(FixtureKitError(what: "copy fixture", failed: error.cause))
        }
    }

    /// Copies a fixture's store set into a folder of the runner's, reads its
    /// contents there and folds its WAL in, so that the copy is one file that
    /// the paths can attach.
    private func readCopy(of set: StoreSet) throws(FixtureKitError) -> (StoreContents, String) {
        // A lone main file in rollback mode, in the runner's own verified copy
        // of the fixture, is already what the paths need: read it there.
        let inPlace = set.memberNames == [set.storeName] && (try? set.readHeader())?.writeVersion == FileFormat.legacyFormatVersion
        var path = set.storePath
        if !inPlace {
            do {
                let copy = try ScratchCopy(storeSet: set)
                temporaryFolders.withLock { $0.append(copy.scratch) }
                path = copy.path
            } catch {
                throw FixtureKitError(what: "read fixture: copy", failed: error.cause)
            }
        }
        do {
            let database = try Database(path: path, options: .init(readOnly: inPlace, busyTimeout: 0))
            // The source's foreign-key violations are not compared with anything.
            let contents = try StoreContents(database: database, countingForeignKeys: false)
            if inPlace {
                try? database.close()
            } else {
                _ = try database.checkpoint(.truncate)
                // Out of WAL mode: the checks attach it read-only, which a
                // WAL store without its -shm cannot be.
                try database.execute("PRAGMA journal_mode = DELETE")
                try database.close()
            }
            return (contents, path)
        } catch let error as FixtureKitError {
            throw error
        } catch {
            throw FixtureKitError(what: "read fixture", path: set.storePath, why: "\(error)")
        }
    }
}

/// One version's ``MigrationRunner/FixtureState``, made by the first path that
/// needs it while the others wait.
final class FixtureSlot: Sendable {
    private let state = Mutex<MigrationRunner.FixtureState?>(nil)

    /// The state, once made.
    var made: MigrationRunner.FixtureState? { state.withLock { $0 } }

    func resolve(_ make: () -> MigrationRunner.FixtureState) -> MigrationRunner.FixtureState {
        state.withLock { known in
            if let known { return known }
            let made = make()
            known = made
            return made
        }
    }
}
