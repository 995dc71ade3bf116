import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// Reading a live store without touching it: no file of its set created,
/// removed or changed, whatever its journal mode.
///
/// SQLite reads a WAL store only through its `-wal` and `-shm`: a connection to a
/// WAL store that has none creates both, and a read-only one (which cannot
/// checkpoint) leaves them behind; the first connection to a set nobody holds
/// rebuilds its `-shm`. So SQLite opens the source in place only where that
/// creates and changes nothing:
/// - a rollback-journal store without `-wal`: a reader takes SQLite's shared lock
///   and writes nothing;
/// - a WAL store whose `-wal` and `-shm` a live connection holds (a lock on
///   either, in the kernel's table): fixturekit reads as one more of the app's
///   readers, its read mark in the shared memory SQLite gives every reader.
///
/// Elsewhere the files are read, not opened in place:
/// - a WAL store without `-wal` is whole in its main file, read with
///   `immutable=1` (no lock, no sidecar, nothing written): SQLite's
///   `SQLITE_FCNTL_PERSIST_WAL` would keep a `-wal` it made, and `nolock=1` still
///   makes one;
/// - a WAL store at rest (its `-wal` held by no connection, or without `-shm`) is
///   copied, main file and `-wal`, into a temporary folder, and the copy read.
///
/// An app that opens the store meanwhile is seen afterwards: the main file
/// (and the `-wal` copied) must be as they were when the read started, else the
/// read is done again, as the app has left it.
extension Capture {
    /// How the snapshot reads the store set.
    enum SourceRead: Equatable, Sendable {
        /// SQLite, read-only, in place, never checkpointing.
        case inPlace
        /// SQLite, on the main file with `immutable=1`.
        case immutable
        /// SQLite, on a copy of the main file and its `-wal`.
        case copy

        /// How to read `set` as its files are now.
        init(_ set: StoreSet) {
            if set.has(.wal) {
                let held = set.has(.shm) ? FileLocks.isHeld(set.path(of: .shm)) ?? true : false
                self = held ? .inPlace : .copy
            } else {
                self = (try? set.readHeader())?.isWAL == true ? .immutable : .inPlace
            }
        }

        /// The files whose state must not change while they are read without
        /// SQLite's locks.
        func watched(_ set: StoreSet) -> [String] {
            switch self {
            case .inPlace: []
            case .immutable: [set.storePath]
            case .copy: [set.storePath, set.path(of: .wal)]
            }
        }
    }

    /// How many times a read that an app's writes overtook is done again.
    static let sourceReadAttempts = 3

    /// Runs `body` with a read-only connection to the store set `set` that creates,
    /// removes and changes none of its files (see above), and closes it after.
    /// - Throws: ``FixtureKitError``: the files could not be copied, they kept
    ///   changing while they were read, or what `body` throws; ``SQLiteError``s
    ///   of the opening come through `body`'s error type as `failure`.
    /// - Parameter firstPage: when given, the connection reads through ``CaptureVFS``,
    ///   which keeps the first page SQLite reads (page 1 of the snapshot) in it; the
    ///   files are opened read-only all the same.
    /// - Parameter body: given the connection, and what opens more connections to
    ///   the same files while it runs (``SourceOpener``).
    static func readingSource<T>(
        _ set: StoreSet, firstPage: SourceFirstPage? = nil, failure: (SQLiteError) -> FixtureKitError, _ body: (Database, SourceOpener) throws(FixtureKitError) -> T
    ) throws(FixtureKitError) -> T {
        // Registered while the connection is open: SQLite opens the -wal later.
        var observer: Int64?
        if let firstPage {
            do throws(SQLiteError) { try CaptureVFS.register() } catch { throw failure(error) }
            observer = CaptureVFS.register(firstPage)
        }
        defer { if let observer { CaptureVFS.unregister(observer) } }
        for attempt in 1...sourceReadAttempts {
            let current = (try? StoreSet(storePath: set.storePath)) ?? set
            let read = SourceRead(current)
            let watched = read.watched(current)
            let before = watched.map(FileState.init(path:))
            let scratch = try read == .copy ? copyForReading(current) : nil
            firstPage?.reset()
            let result: T
            do {
                let database: Database
                do throws(SQLiteError) { database = try open(current, read, copy: scratch, observer: observer) } catch { throw failure(error) }
                result = try body(database, SourceOpener(set: current, read: read, scratch: scratch))
                do throws(SQLiteError) { try database.close() } catch { throw failure(error) }
            }
            if watched.map(FileState.init(path:)) == before { return result }
            guard attempt < sourceReadAttempts else { break }
        }
        throw FixtureKitError(
            what: "snapshot", path: set.storePath, why: "changed while it was read, \(sourceReadAttempts) times",
            hint: "another process writes it: retry, or close the app")
    }

    /// Opens more read-only connections to the files a ``readingSource(_:firstPage:failure:_:)``
    /// body reads, as its first one was opened (without ``CaptureVFS``'s observer,
    /// nor the fault-injection points of the first opening).
    struct SourceOpener: Sendable {
        let set: StoreSet
        let read: SourceRead
        /// The copy a `.copy` read opens (removed once the read is done).
        let scratch: ScratchFolder?

        /// - Parameter busyTimeout: how long a lock is waited for, in milliseconds.
        func open(busyTimeout: Int32) throws(SQLiteError) -> Database {
            switch read {
            case .inPlace:
                let database = try Database(path: set.storePath, options: .init(readOnly: true, busyTimeout: busyTimeout))
                try database.setCheckpointOnClose(false)
                return database
            case .immutable:
                return try Database(path: ScratchStore.fileURI(set.storePath) + "?immutable=1", options: .init(readOnly: true, uri: true, busyTimeout: 0))
            case .copy:
                return try Database(path: (scratch?.path ?? set.folder).appendingPath(set.storeName), options: .init(readOnly: true, busyTimeout: busyTimeout))
            }
        }
    }

    /// For `checkpoint` and `raw`: a WAL store without `-wal` is whole in its
    /// main file, with nothing to fold in and no log to keep; it is copied as it
    /// is, and checked unchanged after the copy, rather than opened (which would
    /// leave a `-wal` and a `-shm` beside it, and put them in the fixture).
    /// - Returns: whether the store was such a one, and copied to `destination`.
    static func copyWholeMainFile(_ set: StoreSet, to destination: String) throws(FixtureKitError) -> Bool {
        for _ in 1...sourceReadAttempts {
            let current = (try? StoreSet(storePath: set.storePath)) ?? set
            guard SourceRead(current) == .immutable else {
                try? POSIX.removeFile(destination)
                return false
            }
            let before = FileState(path: set.storePath)
            FaultInjection.reached(.willOpen, set.storePath)
            try wrap("copy", set.storePath) { () throws(FileSystemError) in
                try? POSIX.removeFile(destination)
                try FileCopy.copy(from: set.storePath, to: destination, sync: false)
            }
            FaultInjection.reached(.opened, set.storePath)
            if FileState(path: set.storePath) == before, !current.has(.wal), (try? POSIX.lstatIfPresent(set.path(of: .wal))) ?? nil == nil {
                return true
            }
        }
        throw FixtureKitError(
            what: "copy", path: set.storePath, why: "changed while it was read, \(sourceReadAttempts) times",
            hint: "another process writes it: retry, or close the app")
    }

    /// The main file and `-wal` copied into a fresh temporary folder, where SQLite
    /// may make the `-shm` it needs.
    private static func copyForReading(_ set: StoreSet) throws(FixtureKitError) -> ScratchFolder {
        let scratch: ScratchFolder
        do { scratch = try ScratchFolder() } catch { throw FixtureKitError(what: "snapshot", failed: error) }
        FaultInjection.reached(.willOpen, set.storePath)
        for name in [set.storeName, set.fileName(of: .wal)] {
            try wrap("snapshot: copy", set.folder.appendingPath(name)) { () throws(FileSystemError) in
                try FileCopy.copy(from: set.folder.appendingPath(name), to: scratch.path.appendingPath(name), sync: false)
            }
        }
        FaultInjection.reached(.opened, set.storePath)
        return scratch
    }

    /// - Parameter observer: the ``SourceFirstPage`` registered to watch the reads:
    ///   the connection then goes through ``CaptureVFS``.
    private static func open(_ set: StoreSet, _ read: SourceRead, copy: ScratchFolder?, observer: Int64?) throws(SQLiteError) -> Database {
        func uri(_ path: String, _ parameters: [(String, String)]) -> String {
            guard let observer else { return ScratchStore.fileURI(path) + "?" + parameters.map { "\($0.0)=\($0.1)" }.joined(separator: "&") }
            return CaptureVFS.uri(path, parameters + [("fixturekit_source", String(observer))])
        }
        switch read {
        case .inPlace:
            guard observer != nil else { return try openSource(set, readOnly: true) }
            FaultInjection.reached(.willOpen, set.storePath)
            let database = try Database(path: uri(set.storePath, [("mode", "ro")]), options: .init(readOnly: true, uri: true, busyTimeout: busyTimeout))
            FaultInjection.reached(.opened, set.storePath)
            try database.setCheckpointOnClose(false)
            return database
        case .immutable:
            FaultInjection.reached(.willOpen, set.storePath)
            let database = try Database(path: uri(set.storePath, [("immutable", "1")]), options: .init(readOnly: true, uri: true, busyTimeout: busyTimeout))
            FaultInjection.reached(.opened, set.storePath)
            return database
        case .copy:
            let path = (copy?.path ?? set.folder).appendingPath(set.storeName)
            guard observer != nil else { return try Database(path: path, options: .init(busyTimeout: 0)) }
            return try Database(path: uri(path, []), options: .init(uri: true, busyTimeout: 0))
        }
    }
}
