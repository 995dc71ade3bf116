import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// Files that vanish or change while a command runs, at the moment a test names
/// (``FaultInjection``: a file about to be opened, a file just opened), never by
/// timing. A change during a run gets the answer the same change gets before the
/// run, or a line that says the input moved under the command; exit 1 or 2;
/// nothing half-written under a final name.
@Suite struct VanishingFileTests {
    // MARK: - Inputs

    /// `folder/f`: three files of 300 KiB, and its SHA256SUMS.
    static func hashedFolder() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        for (index, name) in ["a", "b", "c"].enumerated() {
            try folder.write("f/\(name)", [UInt8](repeating: UInt8(index), count: 300 << 10))
        }
        #expect(fixturekit("sums", folder.url("f")).status == 0)
        return folder
    }

    /// What can be put where a file was.
    enum Replacement: String, CaseIterable, Sendable {
        case folder, fifo, symbolicLink

        func put(at path: String) {
            unlink(path)
            switch self {
            case .folder: mkdir(path, 0o755)
            case .fifo: mkfifo(path, 0o644)
            case .symbolicLink: symlink("/etc/hostname", path)
            }
        }

        var why: String {
            switch self {
            case .folder: "is a folder, not a regular file"
            case .fifo: "is a FIFO, not a regular file"
            case .symbolicLink: "is a symbolic link, not a regular file"
            }
        }
    }

    /// Appends a byte to the file at `path`.
    static func grow(_ path: String) {
        let fd = open(path, O_WRONLY | O_APPEND)
        var byte: UInt8 = 0x2A
        _ = write(fd, &byte, 1)
        close(fd)
    }

    /// The names below `folder`, hidden ones included.
    static func names(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    /// `folder/corpus/1.0.0`: a capture of a store of 200 notes, committed in its `-wal`.
    static func fixture(_ folder: TemporaryFolder, mode: CaptureMode) throws -> String {
        try FileManager.default.createDirectory(atPath: folder.url("live"), withIntermediateDirectories: true)
        let store = try HeldWALStore(in: folder.url("live"), notes: 200)
        _ = try Capture.capture(store: store.path, version: "1.0.0", corpus: folder.url("corpus"), mode: mode, anonymize: .synthetic)
        return folder.url("corpus/1.0.0")
    }

    // MARK: - verify

    @Test func verifyWhenAListedFileVanishesOrChangesAfterTheListing() throws {
        let folder = try Self.hashedFolder()
        let fixture = folder.url("f")
        FaultInjection.at(.willOpen, of: fixture + "/a") { unlink(fixture + "/a") }
        FaultInjection.at(.willOpen, of: fixture + "/b") { Replacement.fifo.put(at: fixture + "/b") }
        FaultInjection.at(.opened, of: fixture + "/c") { Self.grow(fixture + "/c") }
        let result = fixturekit("verify", "--quiet", fixture)
        #expect(result.status == 1)
        #expect(result.standardError == """
            fixturekit: verify: \(fixture)/a: missing
            fixturekit: verify: \(fixture)/b: unreadable: is a FIFO, not a regular file
            fixturekit: verify: \(fixture)/c: changed
            \(fixture): FAILED (3 problems)

            """)
    }

    @Test func verifyWhenAListedFileIsSwappedForASymbolicLink() throws {
        let folder = try Self.hashedFolder()
        let fixture = folder.url("f")
        FaultInjection.at(.willOpen, of: fixture + "/b") { Replacement.symbolicLink.put(at: fixture + "/b") }
        let result = fixturekit("verify", "--quiet", fixture)
        #expect(result.status == 1)
        #expect(result.standardError == "fixturekit: verify: \(fixture)/b: unreadable: is a symbolic link, not a regular file\n\(fixture): FAILED (1 problem)\n")
    }

    // MARK: - unpack

    @Test func unpackWhenTheArchiveIsTruncatedOrRemovedAfterItWasOpened() throws {
        let folder = try TemporaryFolder()
        // A snapshot, one file of the same bytes every time: the cut is always at one place.
        let fixture = try Self.fixture(folder, mode: .snapshot)
        let archive = folder.url("a.tar.zst")
        #expect(fixturekit("pack", fixture, "-o", archive).status == 0)
        let bytes = try folder.read("a.tar.zst")

        // Cut in the middle of the store's entry, after unpack opened it.
        FaultInjection.at(.opened, of: archive) { truncate(archive, off_t(bytes.count / 2)) }
        let cut = fixturekit("unpack", archive, folder.url("out"))
        #expect(cut.status == 2)
        // The very line of an unpack of the archive as it is now.
        let now = fixturekit("unpack", archive, folder.url("out"))
        #expect(cut.standardError == now.standardError)
        #expect(cut.standardError == "fixturekit: unpack: \(archive): truncated zstd input\n")
        #expect(try Self.names(folder.path) == ["a.tar.zst", "a.tar.zst.sha256", "corpus", "live"])

        // Removed after it was opened: unpack reads on from what it opened.
        try folder.write("a.tar.zst", bytes)
        FaultInjection.at(.opened, of: archive) { unlink(archive) }
        let removed = fixturekit("unpack", archive, folder.url("out"))
        #expect(removed.status == 0, "\(removed.standardError)")
        #expect(try Verifier.verify(folder.url("out")).allSatisfy(\.passed))
        #expect(try snapshotOfFiles(folder.url("out")) == (try snapshotOfFiles(fixture)))
    }

    // MARK: - sums

    @Test func sumsWhenAListedFileVanishesBeforeItIsHashed() throws {
        let folder = try Self.hashedFolder()
        let sums = try folder.read("f/SHA256SUMS")
        let file = folder.url("f/b")
        FaultInjection.at(.willOpen, of: file) { unlink(file) }
        let result = fixturekit("sums", folder.url("f"))
        #expect(result.status == 2)
        #expect(result.standardError == "fixturekit: hash: \(file): vanished while the folder was hashed (hint: run sums again when nothing writes to the folder)\n")
        // The SHA256SUMS of before is there, whole; nothing else was written.
        #expect(try folder.read("f/SHA256SUMS") == sums)
        #expect(try Self.names(folder.url("f")) == ["SHA256SUMS", "a", "c"])
    }

    @Test(arguments: Replacement.allCases)
    func sumsWhenAListedFileIsReplacedBeforeItIsHashed(by replacement: Replacement) throws {
        let folder = try Self.hashedFolder()
        let sums = try folder.read("f/SHA256SUMS")
        let file = folder.url("f/b")
        FaultInjection.at(.willOpen, of: file) { replacement.put(at: file) }
        let result = fixturekit("sums", folder.url("f"))
        #expect(result.status == 2)
        // What sums says of such a file found when listing the folder.
        #expect(result.standardError == "fixturekit: hash: \(file): \(replacement.why) (hint: a fixture holds regular files and folders only)\n")
        #expect(try folder.read("f/SHA256SUMS") == sums)
        #expect(try Self.names(folder.url("f")) == ["SHA256SUMS", "a", "b", "c"])
    }

    @Test func sumsWhenAFileGrowsWhileItIsHashed() throws {
        let folder = try Self.hashedFolder()
        let sums = try folder.read("f/SHA256SUMS")
        let file = folder.url("f/c")
        FaultInjection.at(.opened, of: file) { Self.grow(file) }
        let result = fixturekit("sums", folder.url("f"))
        #expect(result.status == 2)
        #expect(result.standardError == "fixturekit: hash: \(file): changed while it was read (hint: run sums again when nothing writes to the folder)\n")
        #expect(try folder.read("f/SHA256SUMS") == sums)
        #expect(try Self.names(folder.url("f")) == ["SHA256SUMS", "a", "b", "c"])
    }

    // MARK: - pack

    @Test func packWhenAFileVanishesOrGrowsWhileThePackIsWritten() throws {
        let folder = try TemporaryFolder()
        let fixture = try Self.fixture(folder, mode: .raw)
        let archive = folder.url("App-1.0.0.tar.zst")
        let saved = try snapshotOfFiles(fixture)

        // The -wal vanishes after the folder was checked against its SHA256SUMS.
        FaultInjection.at(.willOpen, of: fixture + "/App.sqlite-wal") { unlink(fixture + "/App.sqlite-wal") }
        let vanished = fixturekit("pack", fixture, "-o", archive)
        #expect(vanished.status == 1)
        // The very line of a pack of the folder as it is now.
        let now = fixturekit("pack", fixture, "-o", archive)
        #expect(vanished.standardError == now.standardError)
        #expect(vanished.standardError == "fixturekit: pack: \(fixture): the folder fails its SHA256SUMS: App.sqlite-wal: missing (hint: `fixturekit verify \(fixture)` lists every problem)\n")
        #expect(try Self.names(folder.path) == ["corpus", "live"])

        // The main file grows while it is packed.
        try FileManager.default.removeItem(atPath: fixture)
        try FileManager.default.createDirectory(atPath: fixture, withIntermediateDirectories: false)
        for (name, bytes) in saved { try folder.write("corpus/1.0.0/" + name, bytes) }
        FaultInjection.at(.opened, of: fixture + "/App.sqlite") { Self.grow(fixture + "/App.sqlite") }
        let grown = fixturekit("pack", fixture, "-o", archive)
        #expect(grown.status == 1)
        #expect(grown.standardError == "fixturekit: pack: \(fixture): the folder fails its SHA256SUMS: App.sqlite: changed (hint: `fixturekit verify \(fixture)` lists every problem)\n")
        #expect(try Self.names(folder.path) == ["corpus", "live"])
    }

    // MARK: - capture

    @Test func captureWhenTheStoreVanishesBeforeItIsOpened() throws {
        let folder = try TemporaryFolder()
        let store = try TortureTests.liveStore(folder)
        FaultInjection.at(.willOpen, of: store) { unlink(store) }
        let result = fixturekit("capture", "--no-anonymize", store, "--version", "1.0.0", "--corpus", folder.url("corpus"))
        #expect(result.status == 2)
        #expect(result.standardError == "fixturekit: capture: \(store): vanished during the capture\n")
        #expect(try Self.names(folder.url("corpus")) == [])
    }

    /// The store and its `-wal` are replaced by another store's (as a restore
    /// does) after SQLite opened the main file: the capture must not mix them.
    @Test(arguments: CaptureMode.allCases)
    func captureWhenTheStoreIsReplacedAfterItWasOpened(mode: CaptureMode) throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.url("live"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.url("other"), withIntermediateDirectories: true)
        let live = try HeldWALStore(in: folder.url("live"), notes: 30)
        let other = try HeldWALStore(in: folder.url("other"), notes: 70)
        let store = live.path
        let replacement = other.path
        FaultInjection.at(.opened, of: store) {
            rename(replacement + "-wal", store + "-wal")
            rename(replacement, store)
        }
        let result = fixturekit("capture", "--no-anonymize", store, "--version", "1.0.0", "--corpus", folder.url("corpus"), "--mode", mode.rawValue)
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError == "fixturekit: capture: \(store): replaced during the capture (hint: capture it again)\n")
        #expect(try Self.names(folder.url("corpus")) == [])
        _ = (live, other)
    }

    // MARK: - migrate

    /// The 2.0.0 -> 3.0.0 program also rewrites a title in fixture 1.0.0, which
    /// the run verified before: the paths that start at 1.0.0 after that must
    /// still migrate what was verified.
    @Test func migrateWhenAFixtureChangesAfterItWasVerified() throws {
        let notes = try NotesCorpus()
        try notes.writeProgramStage(NotesCorpus.stage2to3 + """

            sqlite3 1.0.0/App.sqlite "UPDATE notes SET title = 'Tampered' WHERE uuid = 'K1'"

            """)
        // Fixture 1.0.0 is verified first (paths start most expensive first,
        // so which path comes first depends on the fixtures' sizes), then one
        // path at a time.
        let runner = MigrationRunner(configuration: try CorpusConfiguration.load(notes.config))
        #expect(runner.fixture("1.0.0").problem == nil)
        let report = runner.run(.init(jobs: 1))
        #expect(report.paths.count == 3 && report.passed, "\(report.paths.map { String(describing: $0.firstFailure) })")
        // The fixture did change on disk.
        let verify = fixturekit("verify", "--quiet", notes.corpus + "/1.0.0")
        #expect(verify.standardError == "fixturekit: verify: \(notes.corpus)/1.0.0/App.sqlite: changed\n\(notes.corpus)/1.0.0: FAILED (1 problem)\n")
    }
}
