import Foundation
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitArchiveIO
import FixtureKitModels

/// Looking at a fixture, an archive or a store without touching it: every query
/// runs on a temporary copy (verified for a fixture or an archive), removed afterwards.
public enum StoreQuery {
    /// Runs every statement of `sql` on a temporary copy of what `path` names.
    ///
    /// Statements that change the store change the copy only.
    /// - Throws: ``FixtureKitError``: `path` does not verify (exit 1), cannot be
    ///   read or copied, or a statement fails (exit 2).
    public static func run(_ sql: String, on path: String, progress: WorkProgress? = nil) throws(FixtureKitError) -> [QueryResult] {
        try withCopy(of: path, progress: progress) { (store: String) throws(FixtureKitError) in
            let database: Database
            do throws(SQLiteError) { database = try Database(path: store, options: .init(busyTimeout: 0)) } catch {
                throw FixtureKitError(what: "sql", path: path, why: error.description, cause: error)
            }
            do throws(SQLiteError) { return try database.results(of: sql) } catch {
                throw FixtureKitError(what: "sql", path: path, why: error.description, cause: error)
            }
        }
    }

    /// Runs `sqlite3` on a temporary copy of what `path` names, with this process'
    /// terminal, and waits for it; the copy is removed when it exits.
    /// - Returns: `sqlite3`'s exit status.
    /// - Throws: ``FixtureKitError``: as ``run(_:on:progress:)``, or `sqlite3` cannot be started.
    public static func interactive(on path: String, program: String = "sqlite3") throws(FixtureKitError) -> Int32 {
        try withCopy(of: path) { (store: String) throws(FixtureKitError) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [program, store]
            do { try process.run() } catch {
                throw FixtureKitError(what: "sql", path: path, why: "cannot start \(program): \(error.localizedDescription)", hint: "install sqlite3, or give a query")
            }
            process.waitUntilExit()
            if process.terminationStatus == 127 {
                throw FixtureKitError(what: "sql", path: path, why: "\(program) not found", hint: "install sqlite3, or give a query")
            }
            return process.terminationStatus
        }
    }

    /// A temporary copy of the store `path` names, handed to `body` by its main
    /// file's path and removed afterwards: a fixture folder (or a store inside
    /// one) is copied and the copy verified; an archive is unpacked (and so
    /// verified); a store is copied through SQLite's backup API, one consistent
    /// snapshot, its files untouched.
    static func withCopy<T>(of path: String, progress: WorkProgress? = nil, _ body: (String) throws(FixtureKitError) -> T) throws(FixtureKitError) -> T {
        let scratch: ScratchFolder
        do { scratch = try ScratchFolder() } catch {
            throw FixtureKitError(what: "sql", failed: error)
        }
        let store: String
        if ArchiveFormat(fileName: path) != nil, !FixtureLocator.isFolder(path) {
            let folder = scratch.path.appendingPath("fixture")
            let result = try FixtureArchive.unpack(path, to: folder, progress: progress)
            if !result.extracted, let problem = result.contents.verification.problems.first {
                throw FixtureKitError(what: "sql", path: path, why: "entry \"\(problem.file)\": \(problem.summary)", category: .checkFailed, code: .checksumMismatch)
            }
            store = try FixtureLocator.storePath(inFixture: folder)
        } else if FixtureLocator.isFolder(path) {
            store = try VerifiedCopy.verifiedCopy(of: path, in: scratch).store
        } else if let fixture = FixtureLocator.fixture(holding: path) {
            // A fixture's store, named by its file: the fixture, verified, on a copy.
            store = try VerifiedCopy.verifiedCopy(of: fixture, in: scratch, store: path).store
        } else {
            let set = try StoreSet.locate(path)
            do { _ = try set.header() } catch {
                throw FixtureKitError(what: "sql", path: path, why: error.why, cause: error)
            }
            store = scratch.path.appendingPath(set.storeName)
            if set.has(.journal) {
                // A hot journal is rolled back in the copy, where SQLite may write.
                do { _ = try ScratchCopy(storeSet: set, in: scratch) } catch {
                    throw FixtureKitError(what: "sql: copy", failed: error.cause)
                }
            } else {
                do { try Capture.snapshot(set, to: store) } catch { throw error.within("sql") }
            }
        }
        return try withExtendedLifetime(scratch) { () throws(FixtureKitError) in try body(store) }
    }
}
