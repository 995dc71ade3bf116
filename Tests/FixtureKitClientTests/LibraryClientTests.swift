// A client of the library: imports FixtureKit as an app's test target would,
// without @testable, so that only the public API (docs/library.md) compiles here.
import Foundation
import FixtureKit
import Testing

/// The repository's example corpus, found from this file's path.
private let corpus = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("MigrationFixtures").path

/// A fresh folder, removed when `body` returns.
private func withFolder<T>(_ body: (String) throws -> T) throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fixturekit-client-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    return try body(folder)
}

@Suite struct LibraryClientTests {
    @Test func sqliteDatabaseStatementsAndErrors() throws {
        try withFolder { folder in
            let path = folder + "/App.sqlite"
            let database = try Database(path: path, options: .init(create: true))
            try database.execute("CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT UNIQUE); INSERT INTO t(b) VALUES ('x')")
            #expect(try database.scalar("SELECT count(*) FROM t") == .integer(1))
            #expect(try database.rows("SELECT b FROM t WHERE a = ?1", [.integer(1)]) == [[.text("x")]])
            // A library caller tells one SQLite failure from another by its code, not its text.
            do {
                try database.execute("INSERT INTO t(b) VALUES ('x')")
                Issue.record("a duplicate was inserted")
            } catch {
                #expect((error as? SQLiteError)?.resultCode == .constraint)
                #expect(String(describing: error).hasPrefix("SQLite error 19: UNIQUE constraint failed: t.b"))
            }
            try database.close()

            let set = try StoreSet(storePath: path)
            let header = try set.readHeader()
            #expect(header.pageSize >= 512)
            #expect(try StoreInspection(storePath: path).contents?.tables["t"] == 1)
            #expect(try ContentHash.of(path) == ContentHash.of(path))

            // Not a database: the code says so.
            let text = folder + "/notes.txt"
            try Data(repeating: 65, count: 4096).write(to: URL(fileURLWithPath: text))
            do {
                let other = try Database(path: text)
                _ = try other.scalar("SELECT count(*) FROM sqlite_schema")
                Issue.record("a text file was read as a database")
            } catch {
                #expect((error as? SQLiteError)?.resultCode == .notADatabase)
            }
        }
    }

    @Test func sha256AndItsSumsFile() throws {
        #expect(try SHA256.hash(Array("abc".utf8)).hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let sums = SHA256Sums(parsing: Array("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  abc.txt\n".utf8))
        #expect(sums.rendered() == Array("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  abc.txt\n".utf8))
    }

    @Test func theExampleCorpusThroughTheLibrary() throws {
        let configuration = try CorpusConfiguration.load(corpus + "/fixturekit.json")
        #expect(configuration.supportedVersions == ["1.0.0", "2.0.0"])
        let verification = try Checksums.verifyFolder(corpus + "/1.0.0")
        #expect(verification.problems.isEmpty)
        #expect(try FixtureArchive.verify(corpus + "/App-1.0.0.tar.zst").problems.isEmpty)
        // A verified temporary copy, opened with SQLite; the fixture stays untouched.
        let tables = try VerifiedCopy.withCopy(of: corpus + "/1.0.0") { database in
            try database.rows("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").count
        }
        #expect(tables > 0)
        let lock = try #require(try CorpusLock.load(corpus: corpus))
        #expect(try CorpusLock(parsing: lock.rendered(), path: "fixturekit.lock") == lock)
    }

    @Test func errorsAreValuesWithAnExitStatus() throws {
        do throws(FixtureKitError) {
            _ = try CorpusConfiguration.load("/nonexistent/fixturekit.json")
            Issue.record("a missing configuration was read")
        } catch {
            #expect(error.category == .couldNotWork)
            #expect(error.path == "/nonexistent/fixturekit.json")
            #expect(error.why == "no such file")
        }
    }

    @Test func anOperationsErrorKeepsItsCause() throws {
        try withFolder { folder in
            let path = folder + "/App.sqlite"
            let database = try Database(path: path, options: .init(create: true))
            try database.execute("CREATE TABLE t(a)")
            try database.close()
            do {
                _ = try StoreQuery.run("SELECT * FROM missing", on: path)
                Issue.record("a query of a missing table succeeded")
            } catch let error as FixtureKitError {
                #expect(error.category == .couldNotWork)
                #expect(error.why == "SQLite error 1: no such table: missing - while executing `SELECT * FROM missing`")
                #expect(error.underlying(SQLiteError.self)?.resultCode == .error)
                #expect(error.underlying(FileSystemError.self) == nil)
            }
        }
    }
    @Test func theExampleCorpusReadAsAClientWould() throws {
        let configuration = try CorpusConfiguration.load(corpus + "/fixturekit.json")
        #expect(configuration.migrationPaths().map(\.source).contains("1.0.0"))
        #expect(!(try AnonymizationRules.load(corpus + "/anonymize.json")).tables.isEmpty)
        let status = try CorpusStatus.read(config: corpus + "/fixturekit.json")
        #expect(status.versions.map(\.version).contains("1.0.0"))

        let archive = corpus + "/App-1.0.0.tar.zst"
        var heard: [String] = []
        let listing = try FixtureArchive.list(archive) { heard.append($0.name) }
        #expect(listing.entries.map(\.name) == heard)
        #expect(heard.contains { $0.hasSuffix("App.sqlite") })
        #expect(try ArchiveInspection.inspect(archive).entries.contains { $0.path.hasSuffix("App.sqlite") })

        // A fixture's store against itself: no drift.
        let drift = try Drift.compare(store: corpus + "/1.0.0/App.sqlite", against: corpus + "/1.0.0")
        #expect(drift.differences == [])
        #expect(drift.contentHash == drift.referenceContentHash)

        // A caller hears of each finished step of a long operation.
        let steps = Heard()
        let progress = WorkProgress { steps.append($0.step) }
        _ = try Checksums.verifyFolder(corpus + "/1.0.0", progress: progress)
        #expect(!steps.all.isEmpty)
    }

    @Test func aStoreThroughSQLiteChecksumsCheckpointBackupAndRestore() throws {
        try withFolder { folder in
            let fixture = folder + "/fixture"
            try FileManager.default.createDirectory(atPath: fixture, withIntermediateDirectories: true)
            let path = fixture + "/App.sqlite"
            let database = try Database(path: path, options: .init(create: true))
            try database.execute("PRAGMA journal_mode = WAL")
            var ran: [String] = []
            try database.executeScript("CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT); INSERT INTO t(b) VALUES ('kept');") { ran.append($0) }
            #expect(ran.count == 2)
            let schema = try SchemaSnapshot(database: database)
            #expect(schema.tables.map(\.name) == ["t"])
            #expect(SchemaDiff.differences(schema, from: schema, referenceName: "itself") == [])
            let copy = try Database(path: folder + "/Copy.sqlite", options: .init(create: true))
            try database.backup(to: copy)
            #expect(try copy.contentHash() == database.contentHash())
            try copy.close()
            _ = try database.checkpoint(.passive)
            try database.close()
            // The store set: its header as the bytes say it.
            #expect(try StoreSet(storePath: path).readHeader().isWAL)
            #expect(try DatabaseHeader(bytes: Array(Data(contentsOf: URL(fileURLWithPath: path)).prefix(100))).isWAL)
            _ = try Checkpoint.checkpointLiveStore(path)

            // SHA256SUMS written, verified, and each digest the one ParallelHasher computes.
            let sums = try Checksums.writeSums(for: fixture)
            #expect(try Checksums.verifyFolder(fixture).problems.isEmpty)
            let digests = try ParallelHasher.digests(of: [path]).map { try $0.get().digest }
            #expect(sums.entries.first { $0.path.description == "App.sqlite" }?.digest == digests.first)

            // A backup archive of the live store, put back after a change.
            let backup = try StoreBackup.backup(store: path, to: folder + "/backups")
            let changed = try Database(path: path)
            try changed.execute("DELETE FROM t")
            try changed.close()
            _ = try StoreRestore.restore(archive: backup.archive.path, store: path)
            let restored = try Database(path: path, options: .init(readOnly: true))
            #expect(try restored.scalar("SELECT b FROM t") == .text("kept"))
            try restored.close()
        }
    }

    @Test func layersThrowTheirOwnErrorsAndRemediesAreValues() throws {
        try withFolder { folder in
            // A model's error: the store's problem as a value, with the kind of file.
            do throws(StoreError) {
                _ = try StoreSet(storePath: folder)
                Issue.record("a folder was taken for a store")
            } catch {
                #expect(error.problem == .notRegularFile(.folder))
                #expect(error.description == "open store: \(folder): is a folder, not a regular file")
            }
            // A format error: its line.
            do throws(FormatError) {
                _ = try CorpusLock(parsing: Array("# lock\nsums 1.0.0 x\n".utf8), path: "fixturekit.lock")
                Issue.record("a malformed lock was read")
            } catch {
                #expect(error.line == 2)
                #expect(error.remedy == .rewriteLock)
            }
            // An operation's error: what to do as a value, in the library's words.
            try FileManager.default.createDirectory(atPath: folder + "/empty", withIntermediateDirectories: false)
            do throws(FixtureKitError) {
                _ = try Verifier.verify(folder + "/empty")
                Issue.record("a folder without SHA256SUMS verified")
            } catch {
                #expect(error.remedy == .writeSums(folder: folder + "/empty"))
                #expect(error.remedy?.description == "write the SHA256SUMS of \(folder)/empty")
            }
        }
    }

    /// A caller tells a failed check from another by its code, not its text.
    @Test func aFailedCheckHasACode() throws {
        try withFolder { folder in
            let fixture = folder + "/1.0.0"
            try FileManager.default.copyItem(atPath: corpus + "/1.0.0", toPath: fixture)
            let handle = try #require(FileHandle(forWritingAtPath: fixture + "/App.sqlite"))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data([0]))
            try handle.close()
            do throws(FixtureKitError) {
                _ = try FixtureArchive.pack(fixture)
                Issue.record("a fixture that fails its SHA256SUMS was packed")
            } catch {
                #expect(error.category == .checkFailed)
                #expect(error.code == .checksumMismatch)
            }
        }
    }
}

/// Steps heard from any thread.
private final class Heard: @unchecked Sendable {
    private let lock = NSLock()
    private var steps: [String] = []
    func append(_ step: String) { lock.withLock { steps.append(step) } }
    var all: [String] { lock.withLock { steps } }
}
