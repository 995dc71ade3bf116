import Foundation
import FixtureKitSystem
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

/// How ``FixtureArchive/unpack(_:to:options:)`` extracts.
public struct UnpackOptions: Sendable, Equatable {
    public var limits: ArchiveLimits
    /// Replace a destination folder that already exists. Without it, an existing
    /// destination is refused: a fixture folder, once written, is history.
    public var replace: Bool

    public init(limits: ArchiveLimits = ArchiveLimits(), replace: Bool = false) {
        self.limits = limits
        self.replace = replace
    }
}

/// What an extraction did.
public struct UnpackResult: Sendable, Equatable {
    /// The destination, as given (without trailing slashes).
    public internal(set) var destination: String
    public internal(set) var contents: ArchiveContents
    /// Whether the destination now holds the archive's files: only when
    /// `contents.verification` passed. Otherwise nothing was written.
    public internal(set) var extracted: Bool
    /// Whether a folder that was at the destination was replaced.
    public internal(set) var replaced: Bool
    /// The lines of `fixturekit.lock` rewritten, when the folder replaced (with
    /// `replace`) was a fixture that its corpus' lock locks.
    public internal(set) var lock: [LockEdit]? = nil
}

extension FixtureArchive {
    /// Extracts a fixture archive into the folder `destination`, safely and verified.
    ///
    /// Only regular files and folders are extracted, and only the files its own
    /// `SHA256SUMS` (its first entry) lists; see ``ArchiveScanner`` for what is
    /// refused. The files are hashed while they are written into `DEST.tmp`, a
    /// folder beside the destination; every file and folder is flushed to disk, and
    /// only when every listed file was there with its digest is that folder renamed
    /// to `destination` (swapped with the old one in one step when `replace`).
    /// On any failure the destination is as before and `DEST.tmp` is removed. A
    /// `DEST.tmp` left by a killed run is emptied and reused; one that another run
    /// is writing (it holds a lock on it) is refused.
    ///
    /// Files get mode 0644 and folders 0755 whatever the archive says; times are
    /// those of the extraction (a fixture is its bytes).
    /// - Returns: the result; `extracted` is false, and nothing was written, when a
    ///   file is changed, missing or unlisted (see `contents.verification`).
    /// - Throws: ``FixtureKitError`` when the archive is refused (unreadable,
    ///   malformed, unsafe, over a limit) or the destination cannot be written.
    /// - Parameter progress: told of the archive's bytes read.
    public static func unpack(_ archive: String, to destination: String, options: UnpackOptions = UnpackOptions(), progress: WorkProgress? = nil) throws(FixtureKitError) -> UnpackResult {
        try ArchiveLocale.withUTF8 { () throws(FixtureKitError) in try extract(archive, to: destination, options: options, progress: progress) }
    }

    private static func extract(_ archive: String, to destination: String, options: UnpackOptions, progress: WorkProgress?) throws(FixtureKitError) -> UnpackResult {
        let what = "unpack"
        let destination = destination.trimmingTrailingSlashes
        let exists = try checkDestination(destination, replace: options.replace)
        let scanner = try ArchiveScanner(archive: archive, what: what, limits: options.limits)
        scanner.progress = progress
        let staging: StagingFolder
        do {
            staging = try StagingFolder(for: destination)
        } catch {
            throw FixtureKitError.wrapping(error, what: what)
        }
        do {
            let writer = FolderWriter(root: staging.path)
            let contents = try scanner.scan(into: writer)
            guard contents.verification.passed else {
                staging.remove()
                return UnpackResult(destination: destination, contents: contents, extracted: false, replaced: false)
            }
            try writer.syncFolders()
            // Replacing a locked fixture (only ever with `replace`) rewrites its lines.
            let lockTarget = exists ? try CorpusLock.guardRewrite(of: destination, what: what, force: true) : nil
            try staging.publish(as: destination, replacing: exists)
            var result = UnpackResult(destination: destination, contents: contents, extracted: true, replaced: exists)
            if let lockTarget, lockTarget.locked {
                result.lock = try CorpusLock.update(lockTarget, kinds: [.sums, .content])
            }
            return result
        } catch {
            staging.remove()
            if let error = error as? FixtureKitError { throw error }
            throw FixtureKitError.wrapping(error, what: what)
        }
    }

    /// Whether a folder is at `destination` (and may be replaced); throws when
    /// there is something else, or a folder without `replace`.
    private static func checkDestination(_ destination: String, replace: Bool) throws(FixtureKitError) -> Bool {
        let what = "unpack"
        guard !destination.isEmpty, destination != "/" else {
            throw FixtureKitError(what: what, path: destination, why: "not a folder that can be created", category: .usage)
        }
        let parent = AtomicFile.parentFolder(of: destination)
        do {
            guard let info = try POSIX.lstatIfPresent(parent), info.kind == .folder else {
                throw FixtureKitError(what: what, path: parent, why: "no such folder", hint: "create it first")
            }
            guard let info = try POSIX.lstatIfPresent(destination) else { return false }
            switch info.kind {
            case .folder where replace:
                return true
            case .folder:
                throw FixtureKitError(
                    what: what, path: destination, why: "already exists",
                    remedy: .unpackIntoNewFolder)
            default:
                throw FixtureKitError(what: what, path: destination, why: "exists and " + FileKind.describe(info.mode).replacingOccurrences(of: "regular file", with: "folder"))
            }
        } catch let error as FixtureKitError {
            throw error
        } catch {
            throw FixtureKitError.wrapping(error, what: what)
        }
    }
}

/// Writes the files of an archive scan below a folder, creating their folders on
/// the way: files 0644, folders 0755, each file flushed to disk when complete.
final class FolderWriter: ArchiveScanSink {
    let root: String
    /// The folders made, outermost first.
    private var created: [RelativePath] = []
    private var existing: Set<RelativePath> = []
    private var fd: FileDescriptor?
    private var currentPath = ""
    private var writeback = WritebackTracker()

    init(root: String) { self.root = root }

    deinit { try? fd?.close() }

    /// The file being written (`EBADF` between files).
    private func current(_ operation: String) throws(FileSystemError) -> FileDescriptor {
        guard let fd else { throw FileSystemError(operation, path: currentPath, code: .badFileDescriptor) }
        return fd
    }

    func beginFile(_ path: RelativePath) throws {
        for folder in path.ancestors where !existing.contains(folder) {
            try POSIX.makeFolder(root.appendingPath(folder.description), mode: ArchiveWriter.folderMode)
            existing.insert(folder)
            created.append(folder)
        }
        currentPath = root.appendingPath(path.description)
        // O_EXCL and O_NOFOLLOW: never through something that was already there.
        let file = try FileDescriptor.open(currentPath, .writeOnly, options: [.exclusiveCreate, .noFollow], permissions: ArchiveWriter.fileMode)
        fd = file
        try file.setPermissions(ArchiveWriter.fileMode)
        writeback = WritebackTracker()
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        let fd = try current("write")
        try fd.writeAll(bytes)
        writeback.wrote(bytes.count, to: fd.rawValue)
    }

    func endFile() throws {
        try current("fsync").sync()
        try? fd?.close()
        fd = nil
    }

    /// Flushes every folder made, innermost first: their entries are on disk.
    func syncFolders() throws {
        for folder in created.reversed() {
            try POSIX.fsyncDirectory(root.appendingPath(folder.description))
        }
    }
}

/// The temporary folder an extraction is written into, `DEST.tmp` beside the
/// destination, locked with `flock` while a run uses it: a run tells one left by
/// a killed run (not locked: emptied and reused) from one in use (refused, once
/// the lock has been tried for half a second: ``POSIX/lock(_:_:grace:)``).
final class StagingFolder {
    let path: String
    private var fd: FileDescriptor?

    /// The mode while it is written: only its owner sees half-written files.
    static let stagingMode: FileMode = 0o700

    init(for destination: String) throws(FileSystemError) {
        path = AtomicFile.temporaryPath(for: destination)
        var fresh = true
        do throws(FileSystemError) { try POSIX.createFolder(path, mode: Self.stagingMode) } catch where error.code == .fileExists { fresh = false }
        if !fresh {
            let info = try POSIX.lstat(path)
            guard info.kind == .folder else {
                throw FileSystemError("create folder", path: path, message: "exists and " + FileKind.describe(info.mode).replacingOccurrences(of: "regular file", with: "folder"))
            }
        }
        let fd = try FileDescriptor.open(path, .readOnly, options: [.directory, .noFollow])
        guard (try? fd.tryLock(.exclusive)) == true else {
            try? fd.close()
            throw FileSystemError("lock", path: path, message: "another unpack is writing there")
        }
        guard !fresh else {
            self.fd = fd
            return
        }
        // Left by a run that was killed: start from an empty folder.
        do throws(FileSystemError) {
            for name in try POSIX.listDirectory(path) {
                try POSIX.removeTree(path.appendingPath(String(pathBytes: name)))
            }
            try fd.setPermissions(Self.stagingMode)
        } catch {
            try? fd.close()
            throw error
        }
        self.fd = fd
    }

    deinit { try? fd?.close() }

    /// Renames the folder to `destination` and flushes the parent folder.
    ///
    /// When `replacing`, the folder there is swapped with this one in one step,
    /// then removed. Until it is gone a tree of hard links to its files
    /// (`.DEST.unpack-kept`, beside it) keeps every one of them: if anything fails, the
    /// swap is undone and whatever was already removed is linked back, so the
    /// destination is exactly as before, files, modes and all.
    func publish(as destination: String, replacing: Bool) throws(FileSystemError) {
        guard let fd else { throw FileSystemError("chmod", path: path, code: .badFileDescriptor) }
        try fd.setPermissions(ArchiveWriter.folderMode)
        try fd.sync()
        let parent = AtomicFile.parentFolder(of: destination)
        if replacing {
            let keep = Self.keptPath(for: destination)
            // Left by a killed run: the destination it kept is whole again (below).
            try POSIX.removeTree(keep)
            do throws(FileSystemError) {
                try POSIX.linkTree(destination, to: keep)
            } catch {
                try? POSIX.removeTree(keep)
                throw error
            }
            try POSIX.exchange(path, destination)
            do throws(FileSystemError) {
                // `path` now names the old folder.
                try POSIX.fsyncDirectory(parent)
                try POSIX.removeTree(path)
            } catch {
                // Back as it was: the old folder in place, whole.
                if (try? POSIX.exchange(path, destination)) != nil {
                    try? POSIX.restoreTree(destination, from: keep)
                    try? POSIX.removeTree(keep)
                    try? POSIX.fsyncDirectory(parent)
                }
                throw error
            }
            try POSIX.removeTree(keep)
        } else {
            try POSIX.renameNoReplace(path, destination)
        }
        try POSIX.fsyncDirectory(parent)
        try? fd.close()
        self.fd = nil
    }

    /// The tree of hard links that keeps the replaced destination's files until it is gone.
    static func keptPath(for destination: String) -> String {
        let name = destination.split(separator: "/").last.map(String.init) ?? destination
        return AtomicFile.parentFolder(of: destination).appendingPath(".\(name).unpack-kept")
    }

    /// Removes the folder and what is in it; for failure paths, so it reports nothing.
    func remove() {
        try? POSIX.removeTree(path)
        try? fd?.close()
        fd = nil
    }
}

extension String {
    /// The path without trailing slashes (`/` stays `/`).
    var trimmingTrailingSlashes: String {
        var path = self
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }
}
