import Foundation
import FixtureKitSystem
import FixtureKitSQLite

/// An SQLite connection on a store set that can never change its files.
///
/// Opening a store in place is how fixtures get damaged: the last connection to
/// close a WAL store checkpoints it and deletes `-wal`. A store set with
/// sidecars is therefore copied into a fresh temporary folder and opened there;
/// the folder goes away with this value.
package final class ScratchStore {
    package let database: Database
    private let copy: ScratchCopy
    /// The copy's main file.
    var path: String { database.path }

    /// Copies the store set into a temporary folder and opens the copy.
    /// - Parameter operation: what the copy is for (`inspect`), said in the error.
    /// - Throws: ``StoreError``: ``StoreError/Problem/copy(_:)`` when the copy
    ///   fails, ``StoreError/Problem/sqlite(_:)`` when SQLite cannot open or read it.
    package init(copying set: StoreSet, operation: String) throws(StoreError) {
        do {
            copy = try ScratchCopy(storeSet: set)
        } catch {
            throw StoreError(store: set.storePath, problem: .copy(error.cause), operation: operation)
        }
        do {
            database = try Database(path: copy.path, options: .init(busyTimeout: 0))
            // Reading the header now makes SQLite replay the copied WAL.
            _ = try database.scalar("SELECT count(*) FROM sqlite_schema")
        } catch {
            throw StoreError(store: set.storePath, problem: .sqlite(error), operation: operation)
        }
    }
}

extension ScratchStore {
    /// Opens a single-file store read-only with `immutable=1`: SQLite takes no
    /// lock, creates no sidecar and writes nothing. Only for a store the caller
    /// owns and has finished writing (a capture's staging copy).
    /// - Throws: ``StoreError`` (``StoreError/Problem/sqlite(_:)``).
    package static func openImmutable(_ path: String) throws(StoreError) -> Database {
        do {
            let database = try Database(path: fileURI(path) + "?immutable=1", options: .init(readOnly: true, uri: true, busyTimeout: 0))
            _ = try database.scalar("SELECT count(*) FROM sqlite_schema")
            return database
        } catch {
            throw StoreError(store: path, problem: .sqlite(error))
        }
    }

    /// A `file:` URI for `path`: every byte outside the unreserved set percent-encoded.
    package static func fileURI(_ path: String) -> String { Database.fileURI(path) }
}
