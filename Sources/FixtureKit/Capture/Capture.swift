import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitCrypto
import FixtureKitModels

/// How `capture` copies a live store.
public enum CaptureMode: String, Sendable, CaseIterable, Codable {
    /// A consistent online copy through SQLite's backup API; the source is left
    /// untouched and every committed transaction is in the copy.
    case snapshot
    /// Folds the source's WAL into its main file, then copies the main file while
    /// no writer can start.
    case checkpoint
    /// The main file, `-wal` and `-shm` as they are, copied as one consistent set.
    case raw
}

/// What `capture` wrote.
public struct CaptureResult: Sendable {
    /// The fixture folder.
    public let fixture: String
    public let manifest: Manifest
    public let sums: SHA256Sums
    /// Whether an existing fixture was replaced (`--force`).
    public let replacedExisting: Bool
    /// The lines of `fixturekit.lock` the capture wrote (in a corpus with `fixturekit.json`).
    public internal(set) var lock: [LockEdit] = []
}

/// Freezes a live store into a fixture folder of a corpus.
public enum Capture {
    /// How long a locked source is waited for, in milliseconds.
    package static let busyTimeout: Int32 = 5000
    /// How long the write lock of `checkpoint` and `raw` captures is waited for,
    /// in milliseconds: a busy writer holds it again and again.
    static let lockTimeout: Int32 = 15_000

    /// Writes the fixture `corpus/version/` from the store at `storePath`.
    ///
    /// The fixture is built in `corpus/.version.tmp/` (store set, `manifest.json`,
    /// `SHA256SUMS`, each fsynced) and renamed into place, so it appears whole or
    /// not at all. An existing fixture is history: it is replaced only with `force`.
    /// The corpus' anonymization rules, when its `fixturekit.json` names some, are
    /// applied in the staging folder before the fixture is installed.
    /// - Throws: ``FixtureKitError``.
    /// - Parameter progress: told of each step.
    public static func capture(store storePath: String, version: String, corpus: String, mode: CaptureMode, force: Bool = false, anonymize: CaptureAnonymization = CaptureAnonymization(), progress: WorkProgress? = nil) throws(FixtureKitError) -> CaptureResult {
        let target = try FixtureFolder.path(of: version, in: corpus, what: "capture", path: storePath)
        // Shipped history is rewritten only when told: a locked version, even
        // without its folder, is refused before anything is read or written.
        let lockTarget = try CorpusLock.guardRewrite(of: target, version: version, what: "capture", force: force)
        // A new corpus gets its lock with its first fixture; an existing one without
        // a lock adopts one explicitly (`fixturekit lock`), after a review.
        let createsLock = lockTarget.map { !$0.hasLock && isNewCorpus(corpus, besides: version) } ?? false
        let set = try StoreSet.locate(storePath)
        // SQLite would take an empty file for an empty database: refuse it first.
        do { _ = try set.header() } catch {
            throw FixtureKitError(what: "capture", path: storePath, why: error.why, cause: error)
        }
        let identity = try? POSIX.lstat(storePath)
        // Anonymization (Anonymize/): the rules and key are loaded before anything is copied.
        let anonymization = try CorpusAnonymization(corpus: corpus, store: storePath, mode: mode, options: anonymize)
        let staging: String
        do {
            try FixtureFolder.createFolders(corpus)
            try FixtureFolder.recover(target)
            if try POSIX.lstatIfPresent(target) != nil && !force {
                throw FixtureKitError(
                    what: "capture", path: target, why: "the fixture exists, and a fixture is history",
                    remedy: .replaceExisting)
            }
            staging = try FixtureFolder.prepareStaging(for: target)
        } catch let error as FixtureKitError {
            throw error
        } catch let error as FileSystemError {
            throw FixtureKitError(what: "capture", failed: error)
        } catch {
            throw FixtureKitError(what: "capture", path: target, why: "\(error)")
        }
        do throws(FixtureKitError) {
            let staged = staging.appendingPath(set.storeName)
            progress?.begin("capture \(storePath): copy (\(mode.rawValue))")
            var copied = SnapshotCopyFacts()
            switch mode {
            case .snapshot: copied = try snapshot(set, to: staged, readingContents: !anonymization.rewritesStore)
            case .checkpoint: if try !copyWholeMainFile(set, to: staged) { try checkpointThenCopy(set, to: staged) }
            case .raw: if try !copyWholeMainFile(set, to: staged) { try rawCopy(set, into: staging) }
            }
            if set.has(.support) {
                try wrap("copy", set.path(of: .support)) { () throws(FileSystemError) in
                    try FileCopy.copyFolder(from: set.path(of: .support), to: staging.appendingPath(set.fileName(of: .support)))
                }
            }
            // Anonymization (Anonymize/): rewrites the staged store before anything is installed.
            progress?.begin("capture \(storePath): anonymize")
            let anonymized = try anonymization.apply(staging: staging, storeName: set.storeName, display: storePath, fixture: target)
            progress?.begin("capture \(storePath): hash and inspect")
            defer { progress?.end() }
            // The staged store is complete and nothing writes to it any more: more
            // threads sync it, hash its bytes and its content while its facts are read.
            let stagedSet = try StoreSet.locate(staged)
            // The digest of the copy's writes, and the contents read from the source
            // while it was copied, hold only for the copy as written.
            let known = anonymization.rewritesStore ? nil : copied
            let storeWork = StagedStoreWork(staged, hashContent: stagedSet.present.isEmpty && known?.contents == nil, known: known?.digest)
            defer { storeWork.drain() }
            // The staged copy is ours: read it in place, immutable, without another copy
            // (anonymization leaves one file, without sidecars); a raw set with its
            // -wal is read, and its content hashed, on a copy. Contents already read
            // are not read again: only the copy's header is.
            var inspection = try StoreInspection(
                set: stagedSet, readContents: known?.contents == nil, access: .ownedFileImmutable, hashContent: !stagedSet.present.isEmpty)
            if let contents = known?.contents { inspection.contents = contents }
            var manifest = try Manifest(version: version, mode: mode.rawValue, inspection: inspection)
            manifest.anonymization = anonymized
            if let contentHash = try storeWork.contentHash() { manifest.contentHash = contentHash }
            try wrap("write manifest", staging) { () throws(FileSystemError) in
                try AtomicFile.write(manifest.rendered(), to: staging.appendingPath(Manifest.fileName))
            }
            let digest = try storeWork.finish()
            let sums = try Checksums.writeSums(for: staging, known: digest.map { [set.storeName: $0] } ?? [:])
            if let moved = moved(storePath, since: identity) { throw moved }
            let replaced = try wrap("install fixture", target) { () throws(FileSystemError) in
                try FixtureFolder.install(staging, at: target, replace: force)
            }
            var result = CaptureResult(fixture: target, manifest: manifest, sums: sums, replacedExisting: replaced)
            if let lockTarget {
                result.lock = try CorpusLock.update(lockTarget, kinds: Set(CorpusLock.Kind.allCases), known: Self.known(version, sums: sums, manifest: manifest), create: createsLock)
            }
            return result
        } catch {
            ScratchFolder.remove(staging)
            // A store that moved is why whatever else failed did.
            if let moved = moved(storePath, since: identity) { throw moved }
            throw error.within("capture")
        }
    }

    /// Whether `corpus` holds no fixture folder nor archive but `version`'s.
    private static func isNewCorpus(_ corpus: String, besides version: String) -> Bool {
        let folders = ((try? Verifier.fixtureFolders(in: corpus)) ?? []).filter { $0 != version }
        return folders.isEmpty && Verifier.archiveFiles(in: corpus).isEmpty
    }

    /// The digests of the `sums` and `content` lines of `version` that a capture (or a
    /// rewrite of a fixture) has just computed: not computed again for the lock.
    static func known(_ version: String, sums: SHA256Sums, manifest: Manifest) -> [CorpusLock.Fact: SHA256Digest] {
        var known: [CorpusLock.Fact: SHA256Digest] = [:]
        known[CorpusLock.Fact(.sums, version)] = try? SHA256.hash(sums.rendered())
        known[CorpusLock.Fact(.content, version)] = manifest.contentHash.flatMap { SHA256Digest(hex: $0) }
        return known
    }

    /// Why the file at `path` is no longer the store the capture started from:
    /// removed, or another file renamed over it (as a restore does). SQLite may
    /// then have read the old main file with the new `-wal`, and a raw copy
    /// opens the files by name: the copy could mix two stores.
    private static func moved(_ path: String, since start: FileStatus?) -> FixtureKitError? {
        guard let start else { return nil }
        let now: FileStatus?
        do { now = try POSIX.lstatIfPresent(path) } catch { return nil }
        guard let now else { return FixtureKitError(what: "capture", path: path, why: "vanished during the capture") }
        guard now.isSameFile(as: start) else {
            return FixtureKitError(what: "capture", path: path, why: "replaced during the capture", hint: "capture it again")
        }
        return nil
    }

    // MARK: - Modes

    /// What ``snapshot(_:to:readingContents:)`` knows of its copy without reading it.
    struct SnapshotCopyFacts {
        /// The copy's SHA-256, computed from its bytes as SQLite wrote them
        /// (``SnapshotCopy``); `nil` when they were not written in an order that
        /// allows it: the copy is then hashed from the disk.
        var digest: FileDigest?
        /// Its contents and content hash, read from the source's snapshot while it
        /// was copied (``SnapshotContentsReader``); `nil` when not asked for or not
        /// read: the copy is then read.
        var contents: StoreContents?
    }

    /// The online backup API copies one consistent snapshot, WAL content
    /// included, through a read-only connection that never checkpoints and
    /// creates, removes and changes no file of the source's set
    /// (``readingSource(_:firstPage:failure:_:)``).
    /// - Parameter readingContents: also read the snapshot's contents on a second
    ///   connection, on another thread, while it is copied.
    @discardableResult
    static func snapshot(_ set: StoreSet, to destination: String, readingContents: Bool = false) throws(FixtureKitError) -> SnapshotCopyFacts {
        func failure(_ error: SQLiteError) -> FixtureKitError {
            if error.resultCode == .ioError || error.resultCode == .full {
                // Reading the source rarely fails this way; writing the copy does.
                return FixtureKitError(what: "snapshot: write", path: destination, why: "\(error.message) (disk full, or a file-size limit)")
            }
            if error.isHotJournal { return hotJournal(set) }
            return FixtureKitError(what: "snapshot", path: set.storePath, why: error.description, hint: hint(for: error), cause: error)
        }
        let firstPage = SourceFirstPage()
        return try readingSource(set, firstPage: firstPage, failure: failure) { (source, opener) throws(FixtureKitError) -> SnapshotCopyFacts in
            var reader: SnapshotContentsReader?
            defer { reader?.drain() }
            // Files read as they are (at rest, or immutable) need no order between
            // the two connections: the second one starts now, and the reading of
            // the -wal each connection does before its first page (a store at rest
            // has no -shm to share) runs on both cores at once.
            if readingContents, opener.read != .inPlace { reader = SnapshotContentsReader(opener) }
            let digest: FileDigest?
            var contents: StoreContents?
            do throws(SQLiteError) {
                // No journal nor sync on the staged copy: it is fsynced once at the
                // end, and the staging folder is what makes the capture atomic. (The
                // source is not memory-mapped: mapped pages count in the process'
                // memory, up to the size of the store.)
                try? POSIX.removeFile(destination)
                // The copy's file, made here so that its write-back can start while
                // it is written: the `fsync` at the end then has little left to do.
                // Closed after SQLite's connection (closing a descriptor of a file
                // drops the process' locks on it).
                let output = try? FileDescriptor.open(destination, .readOnly, options: [.exclusiveCreate, .noFollow])
                defer { try? output?.close() }
                // A copy nothing reads again (its contents come from the source) goes
                // to the disk around the page cache, where the file system lets it
                // (``HashedWrites/init(firstPage:writeback:direct:)``). Not that of a
                // WAL store read in place, whose contents are read from the copy.
                let readAgain = !readingContents || (opener.read == .inPlace && opener.set.has(.wal))
                let direct = !readAgain && output != nil ? FileDescriptor.OpenOptions.direct.flatMap { try? FileDescriptor.open(destination, .writeOnly, options: [$0, .noFollow]) } : nil
                defer { try? direct?.close() }
                // The snapshot's read transaction first, so that its page 1 is known
                // before the copy is written: the backup copies that same snapshot.
                digest = try source.inTransaction { () throws(SQLiteError) -> FileDigest? in
                    let pageCount = try source.scalar("PRAGMA page_count")?.integer ?? 0
                    if readingContents, reader == nil { reader = SnapshotContentsReader(opener) }
                    let expected = firstPage.firstPage.flatMap { SnapshotCopy.firstPage(of: $0, pageCount: pageCount) }
                    let sink = expected.flatMap { try? HashedWrites(firstPage: $0, writeback: output?.rawValue, direct: direct) }
                    let sinkID = sink.map { CaptureVFS.register($0) }
                    defer { if let sinkID { CaptureVFS.unregister(sinkID) } }
                    let copy: Database
                    if let sinkID {
                        copy = try Database(path: CaptureVFS.uri(destination, [("fixturekit_sink", String(sinkID))]), options: .init(create: true, uri: true))
                    } else {
                        copy = try Database(path: destination, options: .init(create: true))
                    }
                    try copy.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
                    try source.backup(to: copy, timeout: .milliseconds(Int(lockTimeout)))
                    try copy.close()
                    // The second connection begins while this one holds its snapshot.
                    reader?.waitForBegin()
                    let digest = try SnapshotCopy.digest(sink?.finish(), of: destination)
                    contents = reader.flatMap { Self.contents(of: source, hashedBy: $0) }
                    return digest
                }
            } catch {
                throw failure(error)
            }
            return SnapshotCopyFacts(digest: digest, contents: contents)
        }
        // (`capture` syncs the copy while it reads its facts, in every mode.)
    }

    /// The contents of the snapshot `source` reads (in its transaction, once its
    /// copy is written): the schema, the model and the foreign-key violations
    /// no scan of rows counts, read here while the second connection still hashes
    /// the rows, then its content hash, row counts and the violations it counted
    /// (``ForeignKeyTally``). `nil` when either could not be read: the capture
    /// then reads the copy.
    private static func contents(of source: Database, hashedBy reader: SnapshotContentsReader) -> StoreContents? {
        guard var contents = try? StoreContents(reading: source, countingForeignKeys: false, countingRows: false) else { return nil }
        let tallied = ForeignKeyTally(schema: contents.schema).candidates
        guard let untallied = try? StoreContents.countForeignKeyViolations(source, schema: contents.schema, excluding: tallied),
              let hashed = reader.hashed() else { return nil }
        do {
            try contents.countRows(source, known: hashed.rowCounts)
            // The keys the scan could not count (another storage class, too many
            // values), or all of them if it read another schema, by their anti-joins.
            let counted = hashed.schema == contents.schema ? hashed.foreignKeyViolations : [:]
            contents.foreignKeyViolations = try untallied + StoreContents.countForeignKeyViolations(source, of: tallied, counted: counted, schema: contents.schema)
        } catch {
            return nil
        }
        contents.contentHash = hashed.contentHash
        return contents
    }

    /// A TRUNCATE checkpoint, then a copy of the main file taken while no writer
    /// can start: a first connection holds the write lock, a second one folds in
    /// whatever was committed between the two (a passive checkpoint needs no
    /// write lock), and the main file then holds every committed transaction.
    /// Readers of older snapshots that keep frames from being folded in beyond
    /// the busy timeout make it fail (exit 2).
    static func checkpointThenCopy(_ set: StoreSet, to destination: String) throws(FixtureKitError) {
        var framesLeft = -1
        var truncateTried = false
        // Outside the write lock, between attempts, a checkpoint of another process
        // that waits for it can finish; its busy handler sleeps up to 100 ms at a time.
        let copied: Void? = try Database.retrying(within: .milliseconds(Int(busyTimeout)), firstPause: 10_000, maximumPause: 250_000) { () throws(FixtureKitError) -> Void? in
            let copied = try underWriteLock(set) { (held) throws(FixtureKitError) -> Bool in
                let folder: Database
                do throws(SQLiteError) { folder = try openSource(set, readOnly: false) } catch {
                    throw FixtureKitError(what: "checkpoint", path: set.storePath, why: error.description, hint: hint(for: error), cause: error)
                }
                defer { try? folder.close() }
                // Readers of older snapshots hold back frames they still need, and
                // another process' checkpoint makes ours fail at once (SQLITE_BUSY).
                framesLeft = -1
                let folded: Void? = try Database.retrying(attempts: 10, firstPause: 5_000, maximumPause: 5_000) { () throws(FixtureKitError) -> Void? in
                    do throws(SQLiteError) {
                        framesLeft = try folder.checkpoint(.passive).framesLeft
                    } catch {
                        guard error.resultCode == .busy else {
                            throw FixtureKitError(what: "checkpoint", path: set.storePath, why: error.description, hint: hint(for: error), cause: error)
                        }
                    }
                    return framesLeft == 0 ? () : nil
                }
                guard folded != nil else { return false }
                // Not synced here: writers wait while the lock is held, and
                // `capture` syncs the copy afterwards, while it reads its facts.
                try wrap("copy", set.storePath) { () throws(FileSystemError) in
                    try FileCopy.copy(from: set.storePath, sourceDescriptor: try held.open(set.storePath), to: destination, sync: false)
                }
                return true
            } before: { (database) in
                // Fold the WAL in and truncate it, as an app's own checkpoint would.
                // A busy writer can starve a TRUNCATE checkpoint, which waits for a
                // moment without writers; the passive checkpoint under the write
                // lock then folds everything in all the same.
                guard !truncateTried else { return }
                truncateTried = true
                database.setBusyTimeout(truncateTimeout)
                _ = try? database.checkpoint(.truncate)
                database.setBusyTimeout(busyTimeout)
            }
            return copied ? () : nil
        }
        guard copied != nil else {
            throw FixtureKitError(
                what: "checkpoint", path: set.storePath,
                why: framesLeft < 0 ? "other checkpoints kept it busy" : "readers kept \(StoreInspection.frames(framesLeft)) from being checkpointed",
                remedy: .closeAppOrSnapshot)
        }
    }

    /// How long the TRUNCATE checkpoint of `--mode checkpoint` waits for writers, in milliseconds.
    static let truncateTimeout: Int32 = 1000

    /// Copies `-shm`, the main file and `-wal` while holding the write lock: no
    /// writer can append to the WAL nor start it over, so the WAL copy is the
    /// whole log; the `-shm` is copied first, so it never claims that a
    /// checkpoint copied more frames into the main file than the main file's copy holds.
    static func rawCopy(_ set: StoreSet, into folder: String) throws(FixtureKitError) {
        try underWriteLock(set) { (held) throws(FixtureKitError) in
            for sidecar in [StoreSet.Sidecar.shm, nil, .wal] {
                let source = sidecar.map(set.path(of:)) ?? set.storePath
                let name = sidecar.map(set.fileName(of:)) ?? set.storeName
                if sidecar != nil, (try? POSIX.lstatIfPresent(source)).flatMap({ $0 }) == nil { continue }
                // The main file is synced after the lock is let go, with the
                // rest of `capture`'s work on it; the sidecars here.
                try wrap("copy", source) { () throws(FileSystemError) in
                    try FileCopy.copy(from: source, sourceDescriptor: try held.open(source), to: folder.appendingPath(name), sync: sidecar != nil)
                }
            }
        } before: { _ throws(FixtureKitError) in }
    }

    // MARK: - Locks

    /// Descriptors of the source opened under SQLite's locks. POSIX `close()`
    /// drops every fcntl lock the process holds on a file, SQLite's included, so
    /// these are closed only after SQLite's connection is closed.
    final class HeldDescriptors {
        private(set) var descriptors: [FileDescriptor] = []

        func open(_ path: String) throws(FileSystemError) -> FileDescriptor {
            let file = try FileDescriptor.open(path, .readOnly, options: [.noFollow, .nonBlocking])
            descriptors.append(file)
            return file
        }

        func closeAll() {
            for file in descriptors { try? file.close() }
            descriptors.removeAll()
        }
    }

    static func openSource(_ set: StoreSet, readOnly: Bool) throws(SQLiteError) -> Database {
        FaultInjection.reached(.willOpen, set.storePath)
        let database = try Database(path: set.storePath, options: .init(readOnly: readOnly, busyTimeout: busyTimeout))
        FaultInjection.reached(.opened, set.storePath)
        try database.setCheckpointOnClose(false)
        return database
    }

    /// A store whose last write was interrupted: its `-journal` is hot, and only
    /// a connection that may write rolls it back.
    static func hotJournal(_ set: StoreSet) -> FixtureKitError {
        let journal = set.fileName(of: .journal)
        return FixtureKitError(
            what: "snapshot", path: set.storePath,
            why: "the store has a hot journal (\(journal)): a write was interrupted, and SQLite must roll it back before the store can be read, which a read-only copy cannot do",
            hint: "let the app open the store once, or run `sqlite3 \(set.storePath) 'PRAGMA user_version'`, which rolls it back; then try again")
    }

    static func hint(for error: SQLiteError) -> String? {
        error.isBusy ? "another process holds the store; retry, or close the app" : StoreHint.opening(error)
    }
}

/// Runs a file-system step and names it in the error.
@discardableResult
func wrap<T>(_ what: String, _ path: String, _ body: () throws(FileSystemError) -> T) throws(FixtureKitError) -> T {
    do { return try body() } catch {
        throw FixtureKitError(what: "\(what)", failed: error)
    }
}
