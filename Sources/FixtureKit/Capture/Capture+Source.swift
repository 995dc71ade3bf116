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
/// Elsewhere SQLite reads the files without its shared memory:
/// - a WAL store without `-wal` is whole in its main file, read with
///   `immutable=1` (no lock, no sidecar, nothing written): SQLite's
///   `SQLITE_FCNTL_PERSIST_WAL` would keep a `-wal` it made, and `nolock=1` still
///   makes one;
/// - a WAL store at rest (its `-wal` held by no connection, or without `-shm`) is
///   read in place through ``CaptureVFS`` (`fixturekit_at_rest=1`): SQLite's
///   exclusive locking mode keeps the wal-index in the process' memory, rebuilt
///   from the `-wal`, so the `-shm` is neither made nor read, and the files are
///   opened read-only.
///
/// An app that opens the store meanwhile is seen afterwards: the main file
/// (and the `-wal`) must be as they were when the read started, else the read
/// is done again, as the app has left it.
extension Capture {
    /// How the snapshot reads the store set.
    enum SourceRead: Equatable, Sendable {
        /// SQLite, read-only, in place, never checkpointing.
        case inPlace
        /// SQLite, on the main file with `immutable=1`.
        case immutable
        /// SQLite, read-only, in place, with the wal-index in its own memory
        /// rather than in the `-shm`.
        case atRest

        /// How to read `set` as its files are now.
        init(_ set: StoreSet) {
            if set.has(.wal) {
                let held = set.has(.shm) ? FileLocks.isHeld(set.path(of: .shm)) ?? true : false
                self = held ? .inPlace : .atRest
            } else {
                self = (try? set.readHeader())?.isWAL == true ? .immutable : .inPlace
            }
        }

        /// The files whose state must not change while they are read without
        /// SQLite's locks, and whether the time of their last change is part of
        /// it: not for a `-wal`, whose owner SQLite sets again when it runs as root.
        func watched(_ set: StoreSet) -> [(path: String, changeTime: Bool)] {
            switch self {
            case .inPlace: []
            case .immutable: [(set.storePath, true)]
            case .atRest: [(set.storePath, true), (set.path(of: .wal), false)]
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
        if let firstPage { observer = CaptureVFS.register(firstPage) }
        defer { if let observer { CaptureVFS.unregister(observer) } }
        for attempt in 1...sourceReadAttempts {
            let current = (try? StoreSet(storePath: set.storePath)) ?? set
            let read = SourceRead(current)
            let watched = { read.watched(current).map { FileState(path: $0.path, changeTime: $0.changeTime) } }
            let before = watched()
            firstPage?.reset()
            let result: T
            do {
                let database: Database
                do throws(SQLiteError) { database = try open(current, read, observer: observer) } catch { throw failure(error) }
                result = try body(database, SourceOpener(set: current, read: read))
                do throws(SQLiteError) { try database.close() } catch { throw failure(error) }
            }
            if watched() == before { return result }
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

        /// - Parameter busyTimeout: how long a lock is waited for, in milliseconds.
        func open(busyTimeout: Int32) throws(SQLiteError) -> Database {
            switch read {
            case .inPlace:
                let database = try Database(path: set.storePath, options: .init(readOnly: true, busyTimeout: busyTimeout))
                try database.setCheckpointOnClose(false)
                return database
            case .immutable:
                return try Database(path: ScratchStore.fileURI(set.storePath) + "?immutable=1", options: .init(readOnly: true, uri: true, busyTimeout: 0))
            case .atRest:
                return try Capture.openAtRest(set, observer: 0, busyTimeout: busyTimeout)
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

    /// A read-only connection to the WAL store at rest `set`, in place, that
    /// neither makes nor reads its `-shm` (``CaptureVFS``'s `fixturekit_at_rest`).
    /// - Parameter observer: the ``SourceFirstPage`` registered to watch the reads, or 0.
    static func openAtRest(_ set: StoreSet, observer: Int64, busyTimeout: Int32) throws(SQLiteError) -> Database {
        try CaptureVFS.register()
        let uri = CaptureVFS.uri(set.storePath, [("mode", "ro"), ("fixturekit_source", String(observer)), ("fixturekit_at_rest", "1")])
        let database = try Database(path: uri, options: .init(readOnly: true, uri: true, busyTimeout: busyTimeout))
        do {
            // Before the first read, which would otherwise map the -shm.
            try database.execute("PRAGMA locking_mode = EXCLUSIVE")
            try database.setCheckpointOnClose(false)
        } catch {
            try? database.close()
            throw error
        }
        return database
    }

    /// - Parameter observer: the ``SourceFirstPage`` registered to watch the reads:
    ///   the connection then goes through ``CaptureVFS``.
    private static func open(_ set: StoreSet, _ read: SourceRead, observer: Int64?) throws(SQLiteError) -> Database {
        func uri(_ path: String, _ parameters: [(String, String)]) throws(SQLiteError) -> String {
            guard let observer else { return ScratchStore.fileURI(path) + "?" + parameters.map { "\($0.0)=\($0.1)" }.joined(separator: "&") }
            try CaptureVFS.register()
            return CaptureVFS.uri(path, parameters + [("fixturekit_source", String(observer))])
        }
        switch read {
        case .inPlace:
            guard observer != nil else { return try openSource(set, readOnly: true) }
            FaultInjection.reached(.willOpen, set.storePath)
            let database = try Database(path: try uri(set.storePath, [("mode", "ro")]), options: .init(readOnly: true, uri: true, busyTimeout: busyTimeout))
            FaultInjection.reached(.opened, set.storePath)
            try database.setCheckpointOnClose(false)
            return database
        case .immutable:
            FaultInjection.reached(.willOpen, set.storePath)
            let database = try Database(path: try uri(set.storePath, [("immutable", "1")]), options: .init(readOnly: true, uri: true, busyTimeout: busyTimeout))
            FaultInjection.reached(.opened, set.storePath)
            return database
        case .atRest:
            FaultInjection.reached(.willOpen, set.storePath)
            let database = try openAtRest(set, observer: observer ?? 0, busyTimeout: busyTimeout)
            FaultInjection.reached(.opened, set.storePath)
            return database
        }
    }
}
