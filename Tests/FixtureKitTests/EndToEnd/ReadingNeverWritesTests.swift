import Foundation
import Synchronization
import Testing
@testable import FixtureKit
@testable import FixtureKitSystem
@testable import FixtureKitTestSupport

/// Every command that leaves its input as it is (`sql`, `inspect`, `verify`,
/// `hash`, `status`, `list`, `drift`, `capture`'s source, `backup`'s source)
/// leaves every file of the input's store set, and the set of files, exactly as
/// before: for stores in every journal mode, live or at rest, with and without
/// sidecars, and for fixtures named by their folder, their store's file or their
/// archive.
@Suite struct ReadingNeverWritesTests {
    /// A store as an app leaves it.
    enum Source: String, CaseIterable, Sendable {
        /// A WAL store the app closed cleanly: no `-wal`, no `-shm`; the main file says WAL.
        case walWithoutSidecars
        /// A WAL store at rest with its `-wal` (commits not checkpointed) and `-shm`: an app that was killed.
        case walAtRest
        /// The same without its `-shm`.
        case walAtRestWithoutShm
        /// Rollback-journal stores, each journal mode that leaves files as they are.
        case delete, truncate, persist
    }

    /// Makes the store `folder/App.sqlite` as `source` says, with 40 notes.
    static func makeStore(_ source: Source, in folder: String) throws -> String {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/App.sqlite"
        let database = try Database(path: path, options: .init(create: true))
        try database.execute("PRAGMA page_size = 4096")
        switch source {
        case .walWithoutSidecars, .walAtRest, .walAtRestWithoutShm: try database.execute("PRAGMA journal_mode = WAL")
        case .delete, .truncate, .persist: try database.execute("PRAGMA journal_mode = \(source.rawValue)")
        }
        if source == .walAtRest || source == .walAtRestWithoutShm {
            database.disableAutomaticCheckpoint()
            try database.setCheckpointOnClose(false)
        }
        try database.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, title TEXT)")
        for index in 1...40 { try database.execute("INSERT INTO notes (uuid, title) VALUES ('K\(index)', 'note \(index)')") }
        try database.close()
        if source == .walAtRestWithoutShm { try FileManager.default.removeItem(atPath: path + "-shm") }
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: folder))
        switch source {
        case .walWithoutSidecars, .delete: #expect(names == ["App.sqlite"])
        case .walAtRest: #expect(names == ["App.sqlite", "App.sqlite-wal", "App.sqlite-shm"])
        case .walAtRestWithoutShm: #expect(names == ["App.sqlite", "App.sqlite-wal"])
        case .persist, .truncate: #expect(names == ["App.sqlite", "App.sqlite-journal"])
        }
        return path
    }

    /// Runs `arguments`, and expects every file below `folder` (names and bytes) as before.
    func expectUntouched(_ folder: String, _ arguments: [String], status: Set<Int32> = [0], label: String) throws {
        let before = try snapshotOfFiles(folder)
        let result = fixturekit(arguments, environment: ["SOURCE_DATE_EPOCH": "0"])
        #expect(status.contains(result.status), "\(label): \(arguments.joined(separator: " ")): \(result.standardError)")
        let after = try snapshotOfFiles(folder)
        #expect(after.keys.sorted() == before.keys.sorted(), "\(label): \(arguments.first ?? ""): files \(before.keys.sorted()) became \(after.keys.sorted())")
        for (name, bytes) in before where after[name] != bytes {
            Issue.record("\(label): \(arguments.joined(separator: " ")): \(name) changed")
        }
    }

    @Test(arguments: Source.allCases)
    func everyReadingCommandLeavesALiveStoreAsItIs(source: Source) throws {
        let folder = try TemporaryFolder()
        let store = try Self.makeStore(source, in: folder.url("live"))
        let reference = try Self.makeStore(.delete, in: folder.url("reference"))
        let live = folder.url("live")
        let label = "\(source)"
        try expectUntouched(live, ["sql", store, "SELECT count(*) FROM notes"], label: label)
        try expectUntouched(live, ["sql", "--json", store, "SELECT * FROM notes"], label: label)
        try expectUntouched(live, ["inspect", store], label: label)
        try expectUntouched(live, ["inspect", "--json", store], label: label)
        try expectUntouched(live, ["hash", store], label: label)
        try expectUntouched(live, ["drift", store, "--against", reference], label: label)
        try expectUntouched(live, ["drift", reference, "--against", store], label: label)
        try expectUntouched(live, ["capture", "--no-anonymize", store, "--version", "1.0.0", "--corpus", folder.url("corpus")], label: label)
        try expectUntouched(live, ["backup", store, "--to", folder.url("backups")], label: label)
        // What was read is the whole store: every commit, those in a -wal too.
        #expect(try rowCount(ofStoreAt: folder.url("corpus/1.0.0/App.sqlite")) == 40)
        #expect(fixturekit("verify", "--deep", "--quiet", folder.url("corpus")).status == 0)
    }

    /// A WAL store an app holds open in this process: fixturekit reads it as one
    /// more reader (in place, SQLite's locks), and its main file and `-wal` stay as they are.
    @Test func aStoreAnAppHoldsIsReadAsOneMoreReader() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.url("live"), withIntermediateDirectories: true)
        let app = try HeldWALStore(in: folder.url("live"), notes: 30)
        let live = folder.url("live")
        #expect(FileLocks.isHeld(app.path + "-shm") == true)
        #expect(Capture.SourceRead(try StoreSet(storePath: app.path)) == .inPlace)
        for arguments in [["sql", app.path, "SELECT count(*) FROM notes"], ["hash", app.path], ["capture", "--no-anonymize", app.path, "--version", "1.0.0", "--corpus", folder.url("corpus")], ["backup", app.path, "--to", folder.url("b")]] {
            let before = try snapshotOfFiles(live)
            let result = fixturekit(arguments)
            #expect(result.status == 0, "\(result.standardError)")
            let after = try snapshotOfFiles(live)
            // The -shm is the connections' shared memory: a reader takes a read mark in it.
            #expect(after.keys.sorted() == before.keys.sorted())
            #expect(after.filter { !$0.key.hasSuffix("-shm") } == before.filter { !$0.key.hasSuffix("-shm") }, "\(arguments[0])")
        }
        #expect(try rowCount(ofStoreAt: folder.url("corpus/1.0.0/App.sqlite")) == 30)
        withExtendedLifetime(app) {}
    }

    /// `hash` reads a live store where it is, as `capture` does: without a
    /// temporary folder (the one named here does not exist), its digest that of
    /// a copy of the set opened elsewhere, no file of the set changed. A store
    /// with a `-journal` (which may be hot) is still hashed on a copy.
    @Test(arguments: Source.allCases)
    func hashReadsALiveStoreWhereItIs(source: Source) throws {
        let folder = try TemporaryFolder()
        let store = try Self.makeStore(source, in: folder.url("live"))
        try FileManager.default.copyItem(atPath: folder.url("live"), toPath: folder.url("copy"))
        let expected = try Database(path: folder.url("copy/App.sqlite")).contentHash().hex
        let before = try snapshotOfFiles(folder.url("live"))
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = folder.url("missing")
        let result = try run([toolExecutable, "hash", store], environment: environment)
        switch source {
        case .truncate, .persist:
            #expect(result.status == 2)
            #expect(result.standardError == "fixturekit: hash: copy create temporary folder: \(folder.url("missing")): no such file or directory\n")
        default:
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput == "\(expected)  \(store)\n")
        }
        #expect(try snapshotOfFiles(folder.url("live")) == before)
    }

    /// How each kind of store set is read, and that nobody's files are: a set at
    /// rest is read immutable, or in place without its `-shm`, never by SQLite in
    /// place as usual (which would rebuild the `-shm`).
    @Test(arguments: Source.allCases)
    func aStoreAtRestIsNeverOpenedInPlaceWhereSQLiteWouldWrite(source: Source) throws {
        let folder = try TemporaryFolder()
        let store = try Self.makeStore(source, in: folder.url("live"))
        let read = Capture.SourceRead(try StoreSet(storePath: store))
        switch source {
        case .walWithoutSidecars: #expect(read == .immutable)
        case .walAtRest, .walAtRestWithoutShm: #expect(read == .atRest)
        case .delete, .truncate, .persist: #expect(read == .inPlace)
        }
    }

    /// Captures of one WAL store at rest at once, two in processes of their own
    /// and two in this one (where SQLite shares one set of locks per file): each
    /// reads it in place with its own wal-index in memory, every fixture holds
    /// the same bytes, and no byte of the source's three files changes.
    @Test(arguments: [Source.walAtRest, .walAtRestWithoutShm])
    func capturesOfAStoreAtRestAtOnceAgree(source: Source) throws {
        let folder = try TemporaryFolder()
        let store = try Self.makeStore(source, in: folder.url("live"))
        // About 7 MiB more in the -wal, so that the reads overlap.
        let app = try Database(path: store)
        app.disableAutomaticCheckpoint()
        try app.setCheckpointOnClose(false)
        try app.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30000) INSERT INTO notes (uuid, title) SELECT 'B' || i, hex(randomblob(120)) FROM n")
        try app.close()
        if source == .walAtRestWithoutShm { try FileManager.default.removeItem(atPath: store + "-shm") }
        #expect(Capture.SourceRead(try StoreSet(storePath: store)) == .atRest)
        let before = try snapshotOfFiles(folder.url("live"))
        let corpora = (0..<4).map { folder.url("corpus-\($0)") }
        let arguments = { @Sendable (index: Int) in ["capture", "--no-anonymize", store, "--version", "1.0.0", "--corpus", corpora[index]] }
        let processes = try (0..<2).map { try ToolProcess(arguments($0), folder: folder.path) }
        let statuses = Mutex<[Int32]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let status = fixturekit(arguments(index + 2)).status
            statuses.withLock { $0.append(status) }
        }
        for process in processes {
            let result = process.wait()
            #expect(result.status == 0, "\(result.standardError)")
        }
        #expect(statuses.withLock { $0 } == [0, 0])
        let stores = try (0..<4).map { try folder.read("corpus-\($0)/1.0.0/App.sqlite") }
        #expect(Set(stores).count == 1)
        #expect(try rowCount(ofStoreAt: folder.url("corpus-0/1.0.0/App.sqlite")) == 30040)
        #expect(try snapshotOfFiles(folder.url("live")) == before)
    }

    /// The connection of an app that opens `store` once fixturekit has opened it,
    /// commits a 41st note and checkpoints it into the main file; it stays open
    /// until the test lets it go.
    final class App: @unchecked Sendable { var database: Database? }

    static func appThatWritesOnceOpened(_ store: String) -> App {
        let app = App()
        FaultInjection.at(.opened, of: store) {
            guard let database = try? Database(path: store) else { return }
            try? database.execute("INSERT INTO notes (uuid, title) VALUES ('new', 'written meanwhile')")
            _ = try? database.checkpoint(.passive)
            app.database = database
        }
        return app
    }

    /// An app that opens the store while it is read without SQLite's locks, and
    /// writes and checkpoints into the main file: the read is done again, and
    /// sees the app's commits; nothing of the app's is removed.
    @Test(arguments: [(CaptureMode.snapshot, Source.walWithoutSidecars), (.raw, .walWithoutSidecars), (.checkpoint, .walWithoutSidecars), (.snapshot, .walAtRest), (.snapshot, .walAtRestWithoutShm)])
    func anAppThatStartsWritingDuringTheReadIsSeen(mode: CaptureMode, source: Source) throws {
        let folder = try TemporaryFolder()
        let store = try Self.makeStore(source, in: folder.url("live"))
        let app = Self.appThatWritesOnceOpened(store)
        let result = fixturekit("capture", "--no-anonymize", store, "--version", "1.0.0", "--corpus", folder.url("corpus"), "--mode", mode.rawValue)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try rowCount(ofStoreAt: folder.url("corpus/1.0.0/App.sqlite")) == 41)
        // The app's connection is still open: its -wal and -shm are its own.
        #expect(FileManager.default.fileExists(atPath: store + "-wal"))
        #expect(app.database != nil)
        app.database = nil
    }

    /// `hash` reads a store at rest where it is, without SQLite's locks: an app
    /// that opens it, commits and checkpoints into the main file once fixturekit
    /// has opened it (before its first read: no step inside SQLite's reads can be
    /// reached from here) is seen, and the digest is that of the store as the
    /// app left it (41 notes).
    @Test(arguments: [Source.walWithoutSidecars, .walAtRest, .walAtRestWithoutShm])
    func hashSeesAnAppThatStartsWritingDuringTheRead(source: Source) throws {
        let folder = try TemporaryFolder()
        let store = try Self.makeStore(source, in: folder.url("live"))
        let app = Self.appThatWritesOnceOpened(store)
        let result = fixturekit("hash", store)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(app.database != nil)
        app.database = nil
        try FileManager.default.copyItem(atPath: folder.url("live"), toPath: folder.url("copy"))
        let copy = try Database(path: folder.url("copy/App.sqlite"))
        #expect(try copy.scalar("SELECT count(*) FROM notes") == .integer(41))
        #expect(result.standardOutput == "\(try copy.contentHash().hex)  \(store)\n")
    }

    /// Fixtures in every shape (a raw WAL fixture with its sidecars, a snapshot of
    /// a WAL store, a rollback store), named by their folder, their store's file
    /// and their archive: looking never changes a byte.
    @Test(arguments: [CaptureMode.raw, .snapshot])
    func everyReadingCommandLeavesAFixtureAsItIs(mode: CaptureMode) throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.url("live"), withIntermediateDirectories: true)
        let app = try HeldWALStore(in: folder.url("live"), notes: 30)
        let corpus = folder.url("corpus")
        try folder.write("corpus/fixturekit.json", #"{"store": "App.sqlite", "current": "2.0.0", "supported": ["1.0.0"], "stages": [], "anonymize": false}"#)
        #expect(fixturekit("capture", app.path, "--version", "1.0.0", "--corpus", corpus, "--mode", mode.rawValue).status == 0)
        let rollback = try Self.makeStore(.delete, in: folder.url("rollback"))
        #expect(fixturekit("capture", rollback, "--version", "2.0.0", "--corpus", corpus).status == 0)
        for version in ["1.0.0", "2.0.0"] { #expect(fixturekit("pack", "--quiet", corpus + "/" + version).status == 0) }
        let sidecars = Set(try FileManager.default.contentsOfDirectory(atPath: corpus + "/1.0.0"))
        #expect(sidecars.contains("App.sqlite-wal") == (mode == .raw))
        let label = "\(mode) fixture"
        for fixture in [corpus + "/1.0.0", corpus + "/2.0.0"] {
            let store = fixture + "/App.sqlite"
            let archive = corpus + "/App-\(fixture.suffix(5)).tar.zst"
            for path in [fixture, store, archive] {
                try expectUntouched(corpus, ["sql", path, "SELECT count(*) FROM notes"], label: label)
                try expectUntouched(corpus, ["hash", path], label: label)
                try expectUntouched(corpus, ["inspect", path], label: label)
                try expectUntouched(corpus, ["inspect", "--json", path], label: label)
                try expectUntouched(corpus, ["drift", store, "--against", path == archive ? fixture : path], status: [0, 1], label: label)
            }
            try expectUntouched(corpus, ["verify", fixture], label: label)
            try expectUntouched(corpus, ["verify", "--deep", "--json", fixture], label: label)
            try expectUntouched(corpus, ["verify", archive], label: label)
            try expectUntouched(corpus, ["list", archive], label: label)
            try expectUntouched(corpus, ["capture", "--no-anonymize", store, "--version", "9.0.0", "--corpus", folder.url("other-\(fixture.suffix(5))")], label: label)
            try expectUntouched(corpus, ["backup", store, "--to", folder.url("backups")], label: label)
        }
        try expectUntouched(corpus, ["verify", "--deep", corpus], label: label)
        try expectUntouched(corpus, ["status", "--config", corpus + "/fixturekit.json"], status: [0, 1], label: label)
        try expectUntouched(corpus, ["hash", corpus], label: label)
        #expect(fixturekit("verify", "--quiet", corpus).status == 0)
        withExtendedLifetime(app) {}
    }
}
