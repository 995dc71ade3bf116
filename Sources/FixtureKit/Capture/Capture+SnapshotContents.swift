import Dispatch
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// The content hash and row counts of the snapshot `capture --mode snapshot`
/// copies, read on a thread of its own through a second connection to the source
/// while the first one copies it: the copy and the read of every row run on the
/// two cores at once, and the copy is not read again afterwards. The row counts
/// are those of the content hash's scan (``Database/contentHashAndRowCounts()``),
/// not a second pass. (The rest of the contents, the schema, the foreign-key
/// violations and the model, the first connection reads once its copy is done:
/// ``Capture/contents(of:hashedBy:)``.)
///
/// The second connection must read the very snapshot the backup copies, and is
/// used only when that is proven:
/// - a WAL store at rest, or a main file read `immutable=1`: each connection
///   reads the files as they are, and the whole read is done again when they
///   changed meanwhile (``Capture/readingSource(_:firstPage:failure:_:)``); the
///   second connection starts with the first, before its transaction;
/// - a store read in place in rollback mode: the first connection's shared
///   lock keeps every writer from committing until the second has begun: the
///   second connection begins its transaction while the first holds its own.
///
/// Never for a WAL store read in place: telling that the two snapshots are one
/// would mean reading the `-shm` beside SQLite, and closing any descriptor of a
/// file drops every POSIX lock the process holds on it, the first connection's
/// read lock included (a checkpoint of another process could then overwrite
/// pages of the snapshot the backup is still copying).
///
/// Otherwise (a WAL store read in place, a pending writer kept the second
/// connection out, SQLite could not read the contents), ``contents()`` answers
/// `nil` and the capture reads the copy afterwards as before: the manifest and
/// the content hash are the same either way, only slower.
final class SnapshotContentsReader {
    private let stage = BackgroundStage()
    /// What the second connection read.
    struct Hashed: Sendable {
        let contentHash: String
        let rowCounts: [String: Int]
        /// The schema the rows were read with, and the violations of the keys
        /// counted from them (``ForeignKeyTally``).
        let schema: SchemaSnapshot
        let foreignKeyViolations: [StoreContents.ForeignKeyID: Int]
    }

    /// Written by the reading thread before it signals or leaves its stage,
    /// read after waiting on them.
    private let slot = Handoff<Hashed>()
    private let begun = DispatchSemaphore(value: 0)
    private var waitedForBegin = false

    /// How long the second connection waits for a lock, in milliseconds: a
    /// writer that waits for the first connection's lock would otherwise hold
    /// the second one out until the copy is done.
    static let busyTimeout: Int32 = 100

    /// Starts the read. Call it while the first connection is in its read
    /// transaction (for files read as they are, at any time in the first
    /// connection's read of them).
    init(_ opener: Capture.SourceOpener) {
        let slot = self.slot
        let begun = self.begun
        stage.start {
            var signalled = false
            defer { if !signalled { begun.signal() } }
            let database = try opener.open(busyTimeout: Self.busyTimeout)
            defer { try? database.close() }
            try database.inTransaction { () throws(SQLiteError) in
                _ = try database.scalar("PRAGMA page_count")
                var same = true
                if opener.read == .inPlace { same = try database.scalar("PRAGMA journal_mode")?.text != "wal" }
                signalled = true
                begun.signal()
                guard same else { return }
                let schema = try SchemaSnapshot(database: database)
                let tally = ForeignKeyTally(schema: schema)
                let (digest, rowCounts) = try database.contentHashAndRowCounts(observing: tally.observer)
                slot.value = Hashed(contentHash: digest.hex, rowCounts: rowCounts, schema: schema, foreignKeyViolations: tally.counts())
            }
        }
    }

    /// Waits until the second connection has begun its read transaction (or
    /// given up): the first one may end its own then.
    func waitForBegin() {
        guard !waitedForBegin else { return }
        waitedForBegin = true
        begun.wait()
    }

    /// The snapshot's content hash and row counts; nil when they could not be
    /// read from the same snapshot (see above).
    func hashed() -> Hashed? {
        waitForBegin()
        do { try stage.wait() } catch { return nil }
        return slot.value
    }

    /// Waits for the thread, ignoring what it found: for paths that already have an error.
    func drain() {
        waitForBegin()
        stage.drain()
    }
}
