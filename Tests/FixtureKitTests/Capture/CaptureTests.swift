import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitArchiveIO
@testable import FixtureKitCrypto
@testable import FixtureKitModels
@testable import FixtureKitSQLite
@testable import FixtureKitSystem
@testable import FixtureKitTestSupport

/// `capture`, `checkpoint` and `inspect` on live WAL stores built in the tests.
@Suite struct CaptureTests {
    func liveStore(_ folder: TemporaryFolder, notes: Int = 50) throws -> HeldWALStore {
        try FileManager.default.createDirectory(atPath: folder.url("live"), withIntermediateDirectories: true)
        return try HeldWALStore(in: folder.url("live"), notes: notes)
    }

    @Test func copyingTheMainFileAloneLosesCommitsThatEveryModeKeeps() throws {
        let folder = try TemporaryFolder()
        let store = try liveStore(folder)
        // The main file alone: the table itself lives only in the WAL.
        try folder.write("main-only/App.sqlite", try folder.read("live/App.sqlite"))
        #expect(try rowCount(ofStoreAt: folder.url("main-only/App.sqlite")) == nil)

        // Checkpoint mode changes the source (it folds the WAL in), so it goes last.
        for (version, mode) in [("1.0.0", "snapshot"), ("1.0.1", "raw"), ("1.0.2", "checkpoint")] {
            let result = fixturekit("capture", "--no-anonymize", store.path, "--version", version, "--corpus", folder.url("corpus"), "--mode", mode)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardError == "\(folder.url("corpus"))/\(version): captured \(store.path) (\(mode)): \(mode == "raw" ? 4 : 2) files, 1 table, 50 rows\n\(folder.url("corpus"))/\(version): not anonymized (--no-anonymize): synthetic data, as the manifest records\n")
            #expect(try rowCount(ofStoreAt: folder.url("corpus/\(version)/App.sqlite")) == 50)
            let check = try run(["sha256sum", "-c", "--strict", "--quiet", "SHA256SUMS"], in: folder.url("corpus/\(version)"))
            #expect(check.status == 0)
        }
        #expect(fixturekit("verify", "--deep", folder.url("corpus")).status == 0)
        #expect(FileManager.default.fileExists(atPath: folder.url("corpus/1.0.1/App.sqlite-wal")))
        #expect(!FileManager.default.fileExists(atPath: folder.url("corpus/1.0.0/App.sqlite-wal")))
    }

    @Test func aStoreLeftByAKilledProcessIsCapturedWhole() throws {
        let folder = try TemporaryFolder()
        let database = folder.url("App.sqlite")
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        writer.arguments = ["sqlite3", database]
        let input = Pipe()
        writer.standardInput = input
        writer.standardOutput = FileHandle.nullDevice
        try writer.run()
        var script = "PRAGMA journal_mode = WAL;\nPRAGMA wal_autocheckpoint = 0;\nCREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT);\n"
        for index in 0..<20 { script += "INSERT INTO notes (title) VALUES ('note \(index)');\n" }
        script += "SELECT 'done';\n"
        input.fileHandleForWriting.write(Data(script.utf8))
        // Wait until the last commit is in the WAL, then kill the writer: nothing is checkpointed.
        let deadline = Date().addingTimeInterval(10)
        while WALFile(bytes: (try? folder.read("App.sqlite-wal")) ?? []).commits < 21, Date() < deadline { usleep(10_000) }
        kill(writer.processIdentifier, SIGKILL)
        writer.waitUntilExit()
        #expect(WALFile(bytes: try folder.read("App.sqlite-wal")).commits == 21)

        let result = fixturekit("capture", "--no-anonymize", database, "--version", "2.0.0", "--corpus", folder.url("corpus"))
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try rowCount(ofStoreAt: folder.url("corpus/2.0.0/App.sqlite")) == 20)
    }

    @Test(arguments: ["snapshot", "checkpoint"])
    func capturingTheSameSourceTwiceGivesIdenticalFixtures(mode: String) throws {
        let folder = try TemporaryFolder()
        let store = try liveStore(folder)
        _ = store
        for corpus in ["first", "second"] {
            let result = fixturekit("capture", "--no-anonymize", store.path, "--version", "1.0.0", "--corpus", folder.url(corpus), "--mode", mode)
            #expect(result.status == 0, "\(result.standardError)")
        }
        let first = try snapshotOfFiles(folder.url("first"))
        #expect(first.keys.sorted() == ["1.0.0", "1.0.0/App.sqlite", "1.0.0/SHA256SUMS", "1.0.0/manifest.json"])
        #expect(first == (try snapshotOfFiles(folder.url("second"))))
    }

    @Test func inspectAndVerifyNeverChangeAByteOfAFixture() throws {
        let folder = try TemporaryFolder()
        let store = try liveStore(folder)
        #expect(fixturekit("capture", "--no-anonymize", store.path, "--version", "1.0.0", "--corpus", folder.url("corpus"), "--mode", "raw").status == 0)
        let before = try snapshotOfFiles(folder.url("corpus"))
        #expect(fixturekit("inspect", folder.url("corpus/1.0.0")).status == 0)
        #expect(fixturekit("inspect", "--json", folder.url("corpus/1.0.0/App.sqlite")).status == 0)
        #expect(fixturekit("verify", folder.url("corpus")).status == 0)
        #expect(fixturekit("verify", "--deep", folder.url("corpus")).status == 0)
        #expect(try snapshotOfFiles(folder.url("corpus")) == before)
    }

    @Test func anExistingFixtureIsHistory() throws {
        let folder = try TemporaryFolder()
        let store = try liveStore(folder)
        #expect(fixturekit("capture", "--no-anonymize", store.path, "--version", "1.0.0", "--corpus", folder.url("corpus")).status == 0)
        try store.insert(5)
        let refused = fixturekit("capture", "--no-anonymize", store.path, "--version", "1.0.0", "--corpus", folder.url("corpus"))
        #expect(refused.status == 2)
        #expect(refused.standardError == "fixturekit: capture: \(folder.url("corpus"))/1.0.0: the fixture exists, and a fixture is history (hint: --force replaces it)\n")
        #expect(try rowCount(ofStoreAt: folder.url("corpus/1.0.0/App.sqlite")) == 50)

        let forced = fixturekit("capture", "--no-anonymize", store.path, "--version", "1.0.0", "--corpus", folder.url("corpus"), "--force")
        #expect(forced.status == 0)
        #expect(forced.standardError.hasPrefix("fixturekit: capture: \(folder.url("corpus"))/1.0.0: replaced the existing fixture of 1.0.0 (--force)\n"))
        #expect(try rowCount(ofStoreAt: folder.url("corpus/1.0.0/App.sqlite")) == 55)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url("corpus")) == ["1.0.0"])
    }

    @Test func aReplacedFixtureLeftByAKilledRunIsRecovered() throws {
        let folder = try TemporaryFolder()
        let store = try liveStore(folder)
        #expect(fixturekit("capture", "--no-anonymize", store.path, "--version", "1.0.0", "--corpus", folder.url("corpus")).status == 0)
        // Killed between the two renames of --force: only the retired folder is left,
        // and a half-built staging folder.
        try FileManager.default.moveItem(atPath: folder.url("corpus/1.0.0"), toPath: folder.url("corpus/.1.0.0.old"))
        try folder.write("corpus/.1.0.0.tmp/App.sqlite", "half written")
        let leftovers = fixturekit("verify", "--quiet", folder.url("corpus"))
        #expect(leftovers.status == 1)
        #expect(leftovers.standardError.split(separator: "\n").map { $0.split(separator: ":").prefix(3).joined(separator: ":") } == [
            "fixturekit: verify: \(folder.url("corpus/.1.0.0.old"))", "fixturekit: verify: \(folder.url("corpus/.1.0.0.tmp"))",
            "\(folder.url("corpus")): FAILED (2 problems)",
        ])
        let result = fixturekit("capture", "--no-anonymize", store.path, "--version", "1.0.0", "--corpus", folder.url("corpus"))
        #expect(result.status == 2)
        #expect(result.standardError.contains("the fixture exists"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url("corpus")).sorted() == ["1.0.0"])
        #expect(fixturekit("verify", folder.url("corpus/1.0.0")).status == 0)
    }

    @Test func manifestRecordsTheStoreSet() throws {
        let folder = try TemporaryFolder()
        let store = try liveStore(folder)
        try store.database.execute("PRAGMA user_version = 7; PRAGMA application_id = 1234")
        try store.database.execute("CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT); CREATE INDEX tags_name ON tags(name)")
        #expect(fixturekit("capture", "--no-anonymize", store.path, "--version", "1.2.0", "--corpus", folder.url("corpus"), "--mode", "raw").status == 0)
        let manifest = try Manifest.decode(try folder.read("corpus/1.2.0/manifest.json"))
        #expect(manifest.format == 1)
        #expect(manifest.version == "1.2.0")
        #expect(manifest.store == "App.sqlite")
        #expect(manifest.sidecars == ["App.sqlite-shm", "App.sqlite-wal"])
        #expect(manifest.capture == .init(mode: "raw", tool: "fixturekit \(FixtureKitLibrary.version)"))
        #expect(manifest.sqlite.pageSize == 4096)
        #expect(manifest.sqlite.journalMode == "wal")
        #expect(manifest.sqlite.userVersion == 7)
        #expect(manifest.sqlite.applicationID == 1234)
        #expect(manifest.sqlite.textEncoding == "UTF-8")
        #expect(manifest.sqlite.writtenBy == Database.libraryVersion)
        #expect(manifest.wal?.commits == 55)
        #expect(manifest.wal?.framesNotInMainFile == manifest.wal?.frames)
        #expect(manifest.tables == ["notes": 50, "tags": 0])
        #expect(manifest.schema.objects == 4)
        #expect(manifest.model == nil)
        let text = String(decoding: try folder.read("corpus/1.2.0/manifest.json"), as: UTF8.self)
        #expect(!text.contains(folder.path))
        #expect(text.hasSuffix("}\n"))
    }

    @Test func coreDataModelIdentityIsRead() throws {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.url("Model.sqlite"), options: .init(create: true))
        try database.execute("CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
        try database.execute("CREATE TABLE ZNOTE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTITLE VARCHAR)")
        let metadata: [String: Any] = [
            "NSStoreModelVersionIdentifiers": ["2.0"],
            "NSStoreModelVersionChecksumKey": "bMpud663vz0bXQE24C6Rh4MvJ5jVnzsD2sI3njZkKbc=",
            "NSStoreModelVersionHashes": ["Note": Data(repeating: 0xAB, count: 32), "Folder": Data(repeating: 0x01, count: 32)],
            "NSStoreModelVersionHashesVersion": 3,
            "NSStoreType": "SQLite",
            "NSStoreUUID": "9F1C3B9E-4C61-4E0F-9D0A-3C2B1A0F9E8D",
        ]
        let plist = try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0)
        #expect(plist.starts(with: Array("bplist00".utf8)))
        #expect(try database.rows("INSERT INTO Z_METADATA VALUES (1, '9F1C3B9E-4C61-4E0F-9D0A-3C2B1A0F9E8D', ?1)", [.blob(Array(plist))]) == [])
        try database.close()

        let inspection = try StoreInspection(storePath: folder.url("Model.sqlite"))
        let model = try #require(inspection.contents?.model)
        #expect(model.versionIdentifiers == ["2.0"])
        #expect(model.versionChecksum == "bMpud663vz0bXQE24C6Rh4MvJ5jVnzsD2sI3njZkKbc=")
        #expect(model.entityVersionHashes == ["Note": Data(repeating: 0xAB, count: 32).base64EncodedString(), "Folder": Data(repeating: 0x01, count: 32).base64EncodedString()])
        #expect(model.hashesVersion == 3)
        #expect(model.storeType == "SQLite")
        let text = fixturekit("inspect", folder.url("Model.sqlite"))
        #expect(text.standardError.contains("  Core Data model: version identifiers [2.0], checksum bMpud663vz0bXQE24C6Rh4MvJ5jVnzsD2sI3njZkKbc=, 2 entities\n"))
    }

    @Test func checkpointFoldsAFixturesWALAndRewritesItsFiles() throws {
        let folder = try TemporaryFolder()
        let store = try liveStore(folder)
        #expect(fixturekit("capture", "--no-anonymize", store.path, "--version", "1.0.0", "--corpus", folder.url("corpus"), "--mode", "raw").status == 0)
        let result = fixturekit("checkpoint", folder.url("corpus/1.0.0"))
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError == "\(folder.url("corpus/1.0.0")): 103 frames folded into the main file; removed App.sqlite-wal, App.sqlite-shm; manifest.json and SHA256SUMS rewritten\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url("corpus/1.0.0")).sorted() == ["App.sqlite", "SHA256SUMS", "manifest.json"])
        let manifest = try Manifest.decode(try folder.read("corpus/1.0.0/manifest.json"))
        #expect(manifest.sidecars == [])
        #expect(manifest.wal == nil)
        #expect(manifest.tables == ["notes": 50])
        // The record of the capture's anonymization choice is kept.
        #expect(manifest.anonymization == Manifest.Anonymization(mode: "opted-out"))
        #expect(fixturekit("verify", "--deep", folder.url("corpus/1.0.0")).status == 0)
        #expect(try run(["sha256sum", "-c", "--quiet", "SHA256SUMS"], in: folder.url("corpus/1.0.0")).status == 0)
    }

    @Test func checkpointOfALiveStoreReportsFramesWrittenAndLeft() throws {
        let folder = try TemporaryFolder()
        let store = try liveStore(folder, notes: 10)
        let result = fixturekit("checkpoint", store.path)
        #expect(result.status == 0)
        #expect(result.standardError == "\(store.path): 23 frames written to the main file, 0 left; the WAL is truncated\n")
        #expect(try folder.read("live/App.sqlite-wal").isEmpty)
        // A reader in the middle of a transaction keeps a TRUNCATE checkpoint from completing.
        try store.insert(3)
        let reader = try Database(path: store.path)
        try reader.execute("BEGIN")
        _ = try reader.scalar("SELECT count(*) FROM notes")
        try store.insert(3)
        let blocked = Checkpoint.checkpointLiveStoreResult(store.path, busyTimeout: 100)
        #expect(blocked?.category == .couldNotWork)
        #expect(blocked?.why.hasPrefix("other connections kept it from completing:") == true)
    }

    @Test func deepVerifyFindsDriftAndCorruption() throws {
        let folder = try TemporaryFolder()
        let store = try liveStore(folder, notes: 400)
        #expect(fixturekit("capture", "--no-anonymize", store.path, "--version", "1.0.0", "--corpus", folder.url("corpus")).status == 0)
        let fixture = folder.url("corpus/1.0.0")
        var manifest = String(decoding: try folder.read("corpus/1.0.0/manifest.json"), as: UTF8.self)
        manifest = manifest.replacingOccurrences(of: "\"notes\" : 400", with: "\"notes\" : 401")
        try folder.write("corpus/1.0.0/manifest.json", manifest)
        #expect(fixturekit("sums", "--quiet", fixture).status == 0)
        #expect(fixturekit("verify", fixture).status == 0)
        let drift = fixturekit("verify", "--deep", "--quiet", fixture)
        #expect(drift.status == 1)
        #expect(drift.standardError == "fixturekit: verify: \(fixture)/App.sqlite: drift: table notes: 400 rows, the manifest says 401\n\(fixture): FAILED (1 problem)\n")

        // A b-tree page overwritten in the middle: the header still reads, SQLite's checks do not pass.
        var bytes = try folder.read("corpus/1.0.0/App.sqlite")
        for offset in (4096 + 8)..<(4096 + 300) { bytes[offset] = 0xFF }
        try folder.write("corpus/1.0.0/App.sqlite", bytes)
        #expect(fixturekit("sums", "--quiet", fixture).status == 0)
        let corrupt = fixturekit("verify", "--deep", "--quiet", fixture)
        #expect(corrupt.status == 1)
        #expect(corrupt.standardError.hasPrefix("fixturekit: verify: \(fixture)/App.sqlite: corrupt: "), "\(corrupt.standardError)")
    }

    @Test(arguments: [
        ("empty", [UInt8](), "empty file, not an SQLite database"),
        ("text", Array("hello, this is not a database at all, but long enough to have a header of a hundred bytes or more, surely!!".utf8), "not an SQLite database (no \"SQLite format 3\" header)"),
        ("short", Array("SQLite format 3\0abc".utf8), "19 bytes, shorter than an SQLite header (100 bytes)"),
    ])
    func notAStoreGetsOneLineAndExit2(name: String, bytes: [UInt8], why: String) throws {
        let folder = try TemporaryFolder()
        let path = try folder.write(name, bytes)
        let inspect = fixturekit("inspect", path)
        #expect(inspect.status == 2)
        #expect(inspect.standardError == "fixturekit: inspect: \(path): \(why)\n")
        let capture = fixturekit("capture", "--no-anonymize", path, "--version", "1.0.0", "--corpus", folder.url("corpus"))
        #expect(capture.status == 2)
        #expect(capture.standardError == "fixturekit: capture: \(path): \(why)\n")
        #expect(!FileManager.default.fileExists(atPath: folder.url("corpus")))
    }

    @Test func missingStoreAndBadOptions() throws {
        let folder = try TemporaryFolder()
        let missing = fixturekit("inspect", folder.url("nope.sqlite"))
        #expect(missing.status == 2)
        #expect(missing.standardError == "fixturekit: open store: \(folder.url("nope.sqlite")): no such file\n")
        #expect(fixturekit("capture", "--no-anonymize", "x.sqlite").standardError.hasPrefix("Error: missing required option '--version <V>'\n"))
        #expect(fixturekit("capture", "--no-anonymize", "x.sqlite", "--version", "1.0.0", "--mode", "copy").standardError.hasPrefix("Error: '--mode' must be snapshot, checkpoint or raw, not 'copy'\n"))
        let badVersion = fixturekit("capture", "--no-anonymize", folder.url("nope.sqlite"), "--version", "../1", "--corpus", folder.url("c"))
        #expect(badVersion.status == 64)
    }
}

extension Checkpoint {
    /// The error of a live checkpoint, or `nil` when it succeeded.
    static func checkpointLiveStoreResult(_ path: String, busyTimeout: Int32) -> FixtureKitError? {
        do { _ = try checkpointLiveStore(path, busyTimeout: busyTimeout); return nil } catch { return error }
    }
}
