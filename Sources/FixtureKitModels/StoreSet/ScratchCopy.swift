import FixtureKitSystem

/// A private temporary copy of a fixture folder or of a store set: the one way
/// the operations take a copy to work on, so that the original's files are
/// never opened by SQLite nor changed.
///
/// The copy lives in a fresh ``ScratchFolder`` of its own (made by `mkdtemp`:
/// mode 0700, no one else's) and goes away with this value. Its files are
/// not fsynced unless asked: a copy is thrown away after use, and what is
/// checked in it is read back through the same page cache.
package final class ScratchCopy: Sendable {
    /// The temporary folder that holds the copy.
    package let scratch: ScratchFolder
    /// The copy: the copied fixture folder, or the copied store's main file.
    package let path: String

    /// Why a copy could not be made: the temporary folder could not be created,
    /// or the files could not be copied into it.
    package enum Failure: Error {
        case folder(FileSystemError)
        case copy(FileSystemError)

        /// The file system's error, whichever step failed.
        package var cause: FileSystemError {
            switch self {
            case .folder(let error), .copy(let error): error
            }
        }
    }

    /// Copies the fixture folder `fixture`, its files and subfolders, to a
    /// folder named `name` in a fresh temporary folder (or in `scratch`, one the
    /// caller already made for this operation); ``path`` is the copy.
    package init(fixture: String, named name: String = "fixture", in scratch: ScratchFolder? = nil, sync: Bool = false) throws(Failure) {
        self.scratch = try Self.folder(scratch)
        path = self.scratch.path.appendingPath(name)
        do { try FileCopy.copyFolder(from: fixture, to: path, sync: sync) } catch { throw .copy(error) }
    }

    /// Copies the files of the store set `set` (main file and sidecars, as they
    /// are) into a fresh temporary folder (or into `scratch`, one the caller
    /// already made for this operation); ``path`` is the copy's main file.
    package init(storeSet set: StoreSet, in scratch: ScratchFolder? = nil, sync: Bool = false) throws(Failure) {
        self.scratch = try Self.folder(scratch)
        path = self.scratch.path.appendingPath(set.storeName)
        do { try set.copyMembers(to: self.scratch.path, sync: sync) } catch { throw .copy(error) }
    }

    /// The temporary folder's path.
    package var folder: String { scratch.path }

    /// `given`, else a fresh temporary folder.
    private static func folder(_ given: ScratchFolder?) throws(Failure) -> ScratchFolder {
        if let given { return given }
        do { return try ScratchFolder() } catch { throw .folder(error) }
    }
}
