import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// Inputs that are not what they seem: FIFOs, hot journals, sidecars a reader
/// left, a replacement that fails half-way.
@Suite struct RoughEdgeTests {
    /// Every command that opens a user's file for reading, with a FIFO in its place:
    /// refused at once (exit 2), never waiting for a writer.
    @Test func aFIFOIsRefusedByEveryCommandThatReads() throws {
        let corpus = try NotesCorpus()
        let folder = corpus.folder
        let fifo = folder.url("pipe.tar.zst")
        let fifoJSON = folder.url("pipe.json")
        #expect(mkfifo(fifo, 0o644) == 0 && mkfifo(fifoJSON, 0o644) == 0)
        let live = folder.url("live-1.0.0/App.sqlite")
        let cases: [[String]] = [
            ["inspect", fifo], ["list", fifo], ["unpack", fifo, folder.url("out")], ["verify", fifo],
            ["restore", fifo, live], ["sql", fifo, "SELECT 1"],
            ["status", "--config", fifoJSON], ["migrate", "--config", fifoJSON],
            ["upgrade", live, "--config", fifoJSON], ["freeze", live, "--version", "4.0.0", "--config", fifoJSON],
            ["anonymize", live, "--rules", fifoJSON, "-o", folder.url("anon.sqlite")],
        ]
        for arguments in cases {
            // Through `timeout`: a command that blocks is killed, and fails the test.
            let result = try run(["timeout", "20", toolExecutable] + arguments, environment: ["FIXTUREKIT_ANON_KEY": String(repeating: "k", count: 32), "PATH": "/usr/bin:/bin"])
            #expect(result.status == 2, "\(arguments): \(result.status) \(result.standardError)")
            #expect(result.standardError.contains("is a FIFO, not a regular file"), "\(arguments): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(arguments): \(result.standardError)")
        }
        // A rules file named by the configuration, a FIFO: said by the commands that read it.
        try? FileManager.default.removeItem(atPath: corpus.corpus + "/rules.json")
        #expect(mkfifo(corpus.corpus + "/rules.json", 0o644) == 0)
        try corpus.writeConfig { $0["anonymize"] = "rules.json" }
        let status = try run(["timeout", "20", toolExecutable, "status", "--config", corpus.config])
        #expect(status.status == 2)
        #expect(status.standardError == "fixturekit: read configuration: \(corpus.config): \"anonymize\": \(corpus.corpus)/rules.json: is a FIFO, not a regular file\n")
    }

    @Test func aHotJournalIsNamedWithWhatToDo() throws {
        let folder = try TemporaryFolder()
        let store = try makeHotJournalStore(in: folder)
        let before = try snapshotOfFiles(folder.url("hot"))
        let why = "the store has a hot journal (App.sqlite-journal): a write was interrupted, and SQLite must roll it back before the store can be read, which a read-only copy cannot do (hint: let the app open the store once, or run `sqlite3 \(store) 'PRAGMA user_version'`, which rolls it back; then try again)"
        let capture = fixturekit("capture", store, "--version", "1.0.0", "--corpus", folder.url("corpus"), "--no-anonymize")
        #expect(capture.status == 2)
        #expect(capture.standardError == "fixturekit: capture: snapshot: \(store): \(why)\n")
        let backup = fixturekit("backup", store, "--to", folder.url("backups"))
        #expect(backup.status == 2)
        #expect(backup.standardError == "fixturekit: backup: snapshot: \(store): \(why)\n")
        #expect(try snapshotOfFiles(folder.url("hot")) == before)
        // What the hint says works: the journal is rolled back, and capture goes through.
        #expect(try run(["sqlite3", store, "PRAGMA user_version"]).status == 0)
        #expect(fixturekit("capture", store, "--version", "1.0.0", "--corpus", folder.url("corpus"), "--no-anonymize", "-q").status == 0)
    }

    /// A fixture in WAL mode (a snapshot of a WAL store), opened in place by a reader.
    @Test func sidecarsAReaderLeftAreNamedAsSuch() throws {
        let folder = try TemporaryFolder()
        let live = try HeldWALStore(in: folder.path, notes: 5)
        _ = live
        let corpus = folder.url("corpus")
        #expect(fixturekit("capture", folder.url("App.sqlite"), "--version", "1.0.0", "--corpus", corpus, "--no-anonymize", "-q").status == 0)
        let fixture = corpus + "/1.0.0"
        let store = fixture + "/App.sqlite"
        let why = "(sqlite3, a database browser) (hint: remove it, it holds nothing; `fixturekit sql` looks at a fixture without touching it)"
        do {
            // What sqlite3 does: a reader's connection, open while verify runs.
            let reader = try Database(path: store, options: .init(readOnly: false))
            #expect(try reader.scalar("SELECT count(*) FROM notes")?.integer == 5)
            let result = fixturekit("verify", corpus)
            #expect(result.status == 1)
            #expect(result.standardError == """
                fixturekit: verify: \(fixture)/App.sqlite-shm: unlisted: a -shm that indexes no frame, made when a program opened App.sqlite in place \(why)
                fixturekit: verify: \(fixture)/App.sqlite-wal: unlisted: an empty -wal that SQLite made when a program opened App.sqlite in place \(why)
                \(fixture): FAILED (2 problems)

                """)
            // A writer's -wal is not a reader's: a bare unlisted, as before.
            try reader.execute("INSERT INTO notes (uuid, title) VALUES ('W', 'w')")
            let written = fixturekit("verify", corpus)
            #expect(written.standardError.contains("\(fixture)/App.sqlite-wal: unlisted\n"), "\(written.standardError)")
            #expect(written.standardError.contains("\(fixture)/App.sqlite: changed\n") || written.standardError.contains("App.sqlite-shm: unlisted\n"))
            try reader.close()
        }
        // A -shm alone (its -wal removed), beside a store that is listed.
        try folder.write("other/1.0.0/data.db", "not a store")
        #expect(fixturekit("sums", "-q", folder.url("other/1.0.0")).status == 0)
        try folder.write("other/1.0.0/data.db-shm", [UInt8](repeating: 0, count: 32768))
        try folder.write("other/1.0.0/notes-wal", "")
        let other = fixturekit("verify", folder.url("other/1.0.0"))
        #expect(other.standardError.contains("data.db-shm: unlisted: a -shm that indexes no frame, made when a program opened data.db in place"))
        // An empty -wal beside no listed store is a plain unlisted file.
        #expect(other.standardError.contains("notes-wal: unlisted\n"))
        let json = fixturekit("verify", "--json", folder.url("other/1.0.0"))
        #expect(json.standardOutput.contains("\"hint\" : \"remove it, it holds nothing; `fixturekit sql` looks at a fixture without touching it\""))
    }

    /// Every file and folder of the old DEST, in turn, cannot be removed: unpack
    /// --force fails, and DEST is exactly as it was, modes included.
    @Test func unpackForceThatFailsLeavesTheDestinationAsItWas() throws {
        let folder = try TemporaryFolder()
        let fixture = try makeFixture(in: folder)
        let archive = folder.url("App-1.0.0.tar.zst")
        #expect(fixturekit("pack", fixture, "-o", archive, "-q").status == 0)
        let destination = folder.url("dest")
        try folder.write("dest/old.txt", "old")
        try folder.write("dest/sub/deeper/kept.bin", [1, 2, 3])
        chmod(folder.url("dest/sub/deeper/kept.bin"), 0o600)
        chmod(folder.url("dest/sub"), 0o750)
        let before = try snapshot(destination)
        let contents = try snapshotOfFiles(destination)
        let staging = destination + ".tmp"
        for failing in ["", "/old.txt", "/sub", "/sub/deeper", "/sub/deeper/kept.bin"] {
            FaultInjection.fail(.willRemove, of: staging + failing, errno: EACCES)
            let result = fixturekit("unpack", "--force", archive, destination)
            #expect(result.status == 2, "\(failing)")
            #expect(result.standardError == "fixturekit: unpack: remove: \(staging + failing): permission denied\n", "\(failing): \(result.standardError)")
            #expect(try snapshot(destination) == before, "\(failing)")
            #expect(try snapshotOfFiles(destination) == contents, "\(failing)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["1.0.0", "App-1.0.0.tar.zst", "App-1.0.0.tar.zst.sha256", "dest"], "\(failing)")
        }
        // Without a fault it replaces, and leaves nothing beside.
        let replaced = fixturekit("unpack", "--force", archive, destination)
        #expect(replaced.status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["1.0.0", "App-1.0.0.tar.zst", "App-1.0.0.tar.zst.sha256", "dest"])
        #expect(!FileManager.default.fileExists(atPath: destination + "/old.txt"))
    }

    @Test func freezeHasTheOptionsAUserReachesFor() throws {
        let notes = try NotesCorpus()
        let live = notes.folder.url("live-3.0.0/App.sqlite")
        // --corpus instead of --config; the fixture and archive appear.
        let first = fixturekit("freeze", live, "--version", "3.1.0", "--corpus", notes.corpus, "--no-anonymize")
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput.hasSuffix("  \(notes.corpus)/App-3.1.0.tar.zst\n"))
        // History: refused, with freeze's own prefix; --force replaces it and says so.
        let again = fixturekit("freeze", live, "--version", "3.1.0", "--corpus", notes.corpus, "--no-anonymize")
        #expect(again.status == 2)
        #expect(again.standardError.hasPrefix("fixturekit: freeze: \(notes.corpus)/3.1.0: "), "\(again.standardError)")
        #expect(again.standardError.contains("(hint: --force "), "\(again.standardError)")
        let forced = fixturekit("freeze", live, "--version", "3.1.0", "--corpus", notes.corpus, "--force", "--mode", "checkpoint", "--no-anonymize")
        #expect(forced.status == 0)
        #expect(forced.standardError.hasPrefix("fixturekit: freeze: \(notes.corpus)/3.1.0: replaced the existing fixture of 3.1.0 (--force)\n\(notes.corpus)/3.1.0: frozen (checkpoint, not anonymized); "), "\(forced.standardError)")
        #expect(fixturekit("freeze", live, "--version", "3.1.0", "--corpus", notes.corpus, "--config", notes.config).standardError.hasPrefix("Error: give '--corpus' or '--config', not both\n"))
        // With rules: errors say freeze, not capture; --no-anonymize is recorded.
        try notes.folder.write("MigrationFixtures/anonymize.json", #"{"strict": true, "tables": {}}"#)
        try notes.writeConfig { $0["anonymize"] = "anonymize.json" }
        let noKey = fixturekit("freeze", live, "--version", "3.2.0", "--corpus", notes.corpus)
        #expect(noKey.status == 2)
        #expect(noKey.standardError.hasPrefix("fixturekit: freeze: anonymize: \(notes.corpus)/anonymize.json: no key"), "\(noKey.standardError)")
        let strict = fixturekit(["freeze", live, "--version", "3.2.0", "--corpus", notes.corpus], environment: ["FIXTUREKIT_ANON_KEY": String(repeating: "k", count: 32)])
        #expect(strict.standardError.hasPrefix("fixturekit: freeze: anonymize: \(live): strict: no rule for "), "\(strict.standardError)")
        let synthetic = fixturekit("freeze", live, "--version", "3.2.0", "--corpus", notes.corpus, "--no-anonymize")
        #expect(synthetic.status == 0, "\(synthetic.standardError)")
        #expect(synthetic.standardError.contains("frozen (snapshot, not anonymized)"))
        let manifest = try Manifest.decode(try notes.folder.read("MigrationFixtures/3.2.0/manifest.json"))
        #expect(manifest.anonymization?.mode == "opted-out")
    }
}
