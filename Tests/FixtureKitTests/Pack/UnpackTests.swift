import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport
@testable import FixtureKitTool

/// `unpack`, `verify FILE`, `inspect FILE` and `list FILE`: safe, verified reading.
@Suite struct UnpackTests {
    @Test(arguments: ArchiveFormat.packable)
    func packedFixtureUnpacksToTheSameFiles(format: ArchiveFormat) throws {
        let folder = try TemporaryFolder()
        let fixture = try makeFixture(in: folder)
        #expect(fixturekit("pack", "--quiet", "--format", format.rawValue, "-o", folder.url("a" + format.suffix), fixture).status == 0)
        let result = fixturekit("unpack", folder.url("a" + format.suffix), folder.url("out"))
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError == "\(folder.url("out")): OK (4 files, 3.0 KiB)\n")
        let check = try run(["sha256sum", "-c", "--strict", "--quiet", "SHA256SUMS"], in: folder.url("out"))
        #expect(check.status == 0)
        #expect(try run(["diff", "-r", fixture, folder.url("out")]).status == 0)
        // Modes 0644 and 0755, whatever the umask; nothing else beside DEST.
        #expect(try snapshot(folder.url("out")) == """
            d - 755 .
            d - 755 ./.App_SUPPORT
            d - 755 ./.App_SUPPORT/_EXTERNAL_DATA
            d - 755 ./notes
            f 15 644 ./notes/é and spaces.txt
            f 3016 644 ./App.sqlite
            f 346 644 ./SHA256SUMS
            f 4 644 ./.App_SUPPORT/_EXTERNAL_DATA/blob
            f 44 644 ./manifest.json

            """)
        #expect(!FileManager.default.fileExists(atPath: folder.url("out.tmp")))
    }

    @Test func existingDestinationIsRefusedUnlessForced() throws {
        let folder = try TemporaryFolder()
        let fixture = try makeFixture(in: folder)
        #expect(fixturekit("pack", "--quiet", fixture).status == 0)
        let archive = folder.url("App-1.0.0.tar.zst")
        try folder.write("out/old", "old contents")
        let refused = fixturekit("unpack", archive, folder.url("out"))
        #expect(refused.status == 2)
        #expect(refused.standardError == "fixturekit: unpack: \(folder.url("out")): already exists (hint: a fixture folder is history: unpack into a new folder, or pass --force to replace it)\n")
        #expect(try folder.read("out/old") == Array("old contents".utf8))

        let forced = fixturekit("unpack", "--force", archive, folder.url("out"))
        #expect(forced.status == 0)
        #expect(forced.standardError == "\(folder.url("out")): replaced the folder that was there\n\(folder.url("out")): OK (4 files, 3.0 KiB)\n")
        #expect(!FileManager.default.fileExists(atPath: folder.url("out/old")))
        #expect(!FileManager.default.fileExists(atPath: folder.url("out.tmp")))
        #expect(fixturekit("verify", "--quiet", folder.url("out")).status == 0)

        try folder.write("file", "x")
        let file = fixturekit("unpack", "--force", archive, folder.url("file"))
        #expect(file.status == 2)
        #expect(file.standardError == "fixturekit: unpack: \(folder.url("file")): exists and is not a folder\n")
        let parent = fixturekit("unpack", archive, folder.url("none/out"))
        #expect(parent.status == 2)
        #expect(parent.standardError == "fixturekit: unpack: \(folder.url("none")): no such folder (hint: create it first)\n")
    }

    /// A DEST.tmp left by a killed run is cleaned and reused; one that a running
    /// unpack holds is refused.
    @Test func temporaryFolderOfAKilledRunIsReclaimed() throws {
        let folder = try TemporaryFolder()
        let fixture = try makeFixture(in: folder)
        #expect(fixturekit("pack", "--quiet", fixture).status == 0)
        let archive = folder.url("App-1.0.0.tar.zst")
        try folder.write("out.tmp/App.sqlite", "half-written")
        try folder.write("out.tmp/stray/file", "x")
        let locker = Process()
        locker.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        // flock becomes `sleep` (--no-fork): killing it frees the lock. SIGKILL, since
        // Foundation starts a child with every other signal blocked.
        locker.arguments = ["--exclusive", "--no-fork", folder.url("out.tmp"), "sleep", "30"]
        try locker.run()
        defer { if locker.isRunning { kill(locker.processIdentifier, SIGKILL) } }
        // Wait until the lock is held.
        for _ in 0..<100 {
            guard try run(["flock", "--nonblock", folder.url("out.tmp"), "true"]).status == 0 else { break }
            usleep(20_000)
        }
        let busy = fixturekit("unpack", archive, folder.url("out"))
        #expect(busy.status == 2)
        #expect(busy.standardError == "fixturekit: unpack: lock: \(folder.url("out.tmp")): another unpack is writing there\n")
        #expect(!FileManager.default.fileExists(atPath: folder.url("out")))
        kill(locker.processIdentifier, SIGKILL)
        locker.waitUntilExit()
        let result = fixturekit("unpack", archive, folder.url("out"))
        #expect(result.status == 0, "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: folder.url("out.tmp")))
        #expect(!FileManager.default.fileExists(atPath: folder.url("out/stray")))
        #expect(fixturekit("verify", "--quiet", folder.url("out")).status == 0)
    }

    // MARK: - Hostile and broken archives

    /// A hostile archive, what `unpack` must say about it, and its exit status.
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        /// The archive's entries, given the test's folder (for paths outside it).
        var entries: @Sendable (String) throws -> [TestEntry]
        var status: Int32
        /// stderr after `fixturekit: unpack: <archive>: `.
        var message: String
        var testDescription: String { name }
    }

    static let good: [(String, [UInt8])] = [("App.sqlite", Array("store".utf8)), ("manifest.json", Array("{}".utf8))]

    static let cases: [Case] = [
        Case(name: "../ escape", entries: { _ in [try .sums(good), .file("App.sqlite", Array("store".utf8)), .text("../escaped", "x")] },
             status: 2, message: "entry \"../escaped\": path leaves the destination\n"),
        Case(name: "nested ../ escape", entries: { _ in [try .sums(good), .text("notes/../../escaped", "x")] },
             status: 2, message: "entry \"notes/../../escaped\": path leaves the destination\n"),
        Case(name: "absolute path", entries: { folder in [try .sums(good), .text(folder + "/outside/absolute", "x")] },
             status: 2, message: "entry \"<folder>/outside/absolute\": absolute path\n"),
        Case(name: "symbolic link out of DEST, then a file through it",
             entries: { folder in [try .sums(good), .symbolicLink("link", to: folder + "/outside"), .text("link/written-through", "x")] },
             status: 2, message: "entry \"link\": is a symbolic link to \"<folder>/outside\", not a regular file or folder\n"),
        Case(name: "hard link to /etc/passwd", entries: { _ in [try .sums(good), .hardLink("passwd", to: "/etc/passwd")] },
             status: 2, message: "entry \"passwd\": is a hard link to \"/etc/passwd\", not a regular file or folder\n"),
        Case(name: "device node", entries: { _ in [try .sums(good), .characterDevice("null")] },
             status: 2, message: "entry \"null\": is a character device, not a regular file or folder\n"),
        Case(name: "FIFO", entries: { _ in [try .sums(good), .fifo("pipe")] },
             status: 2, message: "entry \"pipe\": is a FIFO, not a regular file or folder\n"),
        Case(name: "duplicate entry",
             entries: { _ in [try .sums(good), .text("App.sqlite", "store"), .text("manifest.json", "{}"), .text("App.sqlite", "other")] },
             status: 2, message: "entry \"App.sqlite\": duplicate entry: the archive holds this path twice\n"),
        Case(name: "SHA256SUMS not first", entries: { _ in [.text("App.sqlite", "store"), try .sums(good)] },
             status: 2, message: "entry \"App.sqlite\": the archive's first entry must be SHA256SUMS, before any other file (hint: `fixturekit pack` writes it first)\n"),
        Case(name: "no SHA256SUMS at all", entries: { _ in [.folder("notes")] },
             status: 2, message: "no SHA256SUMS: the archive's first entry must be SHA256SUMS (hint: `fixturekit pack` writes it first)\n"),
        Case(name: "file where a folder is", entries: { _ in [try .sums(good), .text("App.sqlite", "store"), .text("App.sqlite/inner", "x")] },
             status: 2, message: "entry \"App.sqlite/inner\": its folder \"App.sqlite\" is a file in the archive\n"),
        Case(name: "unlisted entry",
             entries: { _ in [try .sums(good), .text("App.sqlite", "store"), .text("manifest.json", "{}"), .text("extra", "x")] },
             status: 1, message: "entry \"extra\": unlisted\n<archive>: FAILED (1 problem): nothing was written\n"),
        Case(name: "entry whose hash differs",
             entries: { _ in [try .sums(good), .text("App.sqlite", "stork"), .text("manifest.json", "{}")] },
             status: 1, message: "entry \"App.sqlite\": changed\n<archive>: FAILED (1 problem): nothing was written\n"),
        Case(name: "listed entry missing", entries: { _ in [try .sums(good), .text("App.sqlite", "store")] },
             status: 1, message: "entry \"manifest.json\": missing\n<archive>: FAILED (1 problem): nothing was written\n"),
        Case(name: "bomb over the ratio cap",
             entries: { _ in [try .sums([("zeros", [UInt8](repeating: 0, count: 32 << 20))]), .zeros("zeros", count: 32 << 20)] },
             status: 2, message: "entry \"zeros\": the archive expands to more than 1000 times its size (<size>) (hint: raise the limit (--max-ratio) only for an archive you trust)\n"),
    ]

    @Test(arguments: cases)
    func hostileArchiveIsRefused(_ test: Case) throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.url("outside"), withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: folder.url("work"), withIntermediateDirectories: false)
        let archive = folder.url("work/hostile.tar.zst")
        try buildArchive(archive, try test.entries(folder.path))
        let passwd = try sha256(ofFileAt: "/etc/passwd")
        let before = try snapshot(folder.path)
        let size = ByteCount.describe(UInt64(try FileManager.default.attributesOfItem(atPath: archive)[.size] as? Int ?? 0))

        let result = fixturekit("unpack", archive, folder.url("work/dest"))
        let expected = test.message
            .replacingOccurrences(of: "<folder>", with: folder.path)
            .replacingOccurrences(of: "<archive>", with: archive)
            .replacingOccurrences(of: "<size>", with: size)
        #expect(result.status == test.status)
        #expect(result.standardError == "fixturekit: unpack: \(archive): " + expected)
        // DEST not created, no temporary folder, nothing outside, /etc/passwd untouched.
        #expect(try snapshot(folder.path) == before)
        #expect(try sha256(ofFileAt: "/etc/passwd") == passwd)

        // With --force, an existing DEST is left exactly as it was.
        try folder.write("work/existing/keep", "kept")
        let kept = try snapshot(folder.path)
        let forced = fixturekit("unpack", "--force", archive, folder.url("work/existing"))
        #expect(forced.status == test.status)
        #expect(try snapshot(folder.path) == kept)
        try FileManager.default.removeItem(atPath: folder.url("work/existing"))

        // verify and inspect say the same with the same exit status (less the size
        // limits: they write nothing), and write nothing either.
        let verify = fixturekit("verify", "--quiet", archive)
        let inspect = fixturekit("inspect", archive)
        if test.name.hasPrefix("bomb") {
            #expect(verify.status == 0)
        } else {
            #expect(verify.status == test.status)
            #expect(verify.standardError.hasPrefix("fixturekit: verify: \(archive): " + expected.split(separator: "\n")[0]))
            #expect(inspect.status == test.status)
        }
        #expect(try snapshot(folder.path) == before)
    }

    @Test func limitsAreSettable() throws {
        let folder = try TemporaryFolder()
        let zeros = [UInt8](repeating: 0, count: 8 << 20)
        try buildArchive(folder.url("zeros.tar.zst"), [try .sums([("zeros", zeros)]), .zeros("zeros", count: zeros.count)])
        let allowed = fixturekit("unpack", "--max-ratio", "1000000", folder.url("zeros.tar.zst"), folder.url("a"))
        #expect(allowed.status == 0, "\(allowed.standardError)")
        let small = fixturekit("unpack", "--max-ratio", "1e9", "--max-size", "4M", folder.url("zeros.tar.zst"), folder.url("b"))
        #expect(small.status == 2)
        #expect(small.standardError == "fixturekit: unpack: \(folder.url("zeros.tar.zst")): entry \"zeros\": the archive expands to more than 4 MiB (hint: raise the limit (--max-size) only for an archive you trust)\n")
        let bad = fixturekit("unpack", "--max-size", "lots", "x", "y")
        #expect(bad.status == 64)
        #expect(bad.standardError.hasPrefix("Error: '--max-size' needs a size such as 16G, 500M or 1048576, not 'lots'\n"))
        #expect(fixturekit("unpack", "--max-ratio", "0", "x", "y").status == 64)
        for (text, bytes) in [("1048576", UInt64(1 << 20)), ("512K", 512 << 10), ("16G", 16 << 30), ("16GiB", 16 << 30), ("16gb", 16 << 30), ("1T", 1 << 40)] {
            #expect(ByteCount.parse(text)?.bytes == bytes, "\(text)")
        }
        for text in ["", "G", "1.5G", "-1", "16X", "99999999999T"] {
            #expect(ByteCount.parse(text) == nil, "\(text)")
        }
    }

    /// A truncated archive and a corrupted compressed stream are refused, naming the
    /// entry being read, for each compressor. libarchive does not check gzip's
    /// CRC-32: a gzip stream that still inflates gives other bytes, which the
    /// entry's SHA-256 catches (a failed check, exit status 1).
    @Test(arguments: [
        (ArchiveFormat.tarZstd, (2, "truncated zstd input"), (2, "zstd decompression failed: Data corruption detected")),
        (ArchiveFormat.tarGzip, (2, "truncated gzip input"), (1, "changed\n<archive>: FAILED (1 problem): nothing was written")),
        (ArchiveFormat.tarXz, (2, "truncated xz input"), (2, "lzma library error: Corrupted input data")),
    ])
    func truncatedAndCorruptedArchivesAreRefused(format: ArchiveFormat, truncated: (Int32, String), corrupted: (Int32, String)) throws {
        let folder = try TemporaryFolder()
        // Text that compresses, as a store does: its blocks are entropy-coded.
        let text = (0..<40_000).map { "row \($0) of the notes table: \($0 * 7919 % 10007) words\n" }.joined()
        try folder.write("f/App.sqlite", text)
        #expect(fixturekit("sums", "--quiet", folder.url("f")).status == 0)
        let archive = folder.url("f" + format.suffix)
        #expect(fixturekit("pack", "--quiet", "-o", archive, folder.url("f")).status == 0)
        let bytes = try folder.read("f" + format.suffix)
        try folder.write("truncated" + format.suffix, Array(bytes.prefix(bytes.count / 2)))
        var damaged = bytes
        for index in (bytes.count / 2)..<(bytes.count / 2 + 64) { damaged[index] ^= 0x55 }
        try folder.write("corrupted" + format.suffix, damaged)

        for (name, (status, message)) in [("truncated", truncated), ("corrupted", corrupted)] {
            let path = folder.url(name + format.suffix)
            let before = try snapshot(folder.path)
            let result = fixturekit("unpack", path, folder.url("dest"))
            #expect(result.status == status, "\(name)")
            let expected = "fixturekit: unpack: \(path): entry \"App.sqlite\": \(message.replacingOccurrences(of: "<archive>", with: path))\n"
            #expect(result.standardError == expected, "\(name)")
            #expect(try snapshot(folder.path) == before)
            #expect(fixturekit("verify", path).status == status, "\(name)")
        }
    }

    @Test func notAnArchive() throws {
        let folder = try TemporaryFolder()
        try folder.write("random.tar.zst", (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) })
        let result = fixturekit("unpack", folder.url("random.tar.zst"), folder.url("dest"))
        #expect(result.status == 2)
        #expect(result.standardError == "fixturekit: unpack: \(folder.url("random.tar.zst")): unrecognized archive format\n")
        let absent = fixturekit("unpack", folder.url("absent.tar.zst"), folder.url("dest"))
        #expect(absent.status == 2)
        #expect(absent.standardError == "fixturekit: unpack: \(folder.url("absent.tar.zst")): no such file\n")
        #expect(!FileManager.default.fileExists(atPath: folder.url("dest.tmp")))
    }

    /// Archives that other tools write are read too: `./` prefixes, folder entries
    /// before SHA256SUMS, GNU tar's format.
    @Test func archiveWrittenByGNUTarIsAccepted() throws {
        let folder = try TemporaryFolder()
        let fixture = try makeFixture(in: folder)
        // SHA256SUMS first, then the rest; `./` before every name.
        let tar = try run(["tar", "--sort=name", "-czf", folder.url("gnu.tar.gz"), "-C", fixture, "./SHA256SUMS", "."])
        #expect(tar.status == 0, "\(tar.standardError)")
        // GNU tar lists SHA256SUMS twice that way: refused as a duplicate.
        #expect(fixturekit("verify", folder.url("gnu.tar.gz")).status == 2)
        let once = try run(["sh", "-c", "tar -cf ../gnu2.tar ./SHA256SUMS && tar --sort=name --exclude=./SHA256SUMS -rf ../gnu2.tar . && gzip ../gnu2.tar"], in: fixture)
        #expect(once.status == 0, "\(once.standardError)")
        let verify = fixturekit("verify", folder.url("gnu2.tar.gz"))
        #expect(verify.status == 0, "\(verify.standardError)")
        #expect(verify.standardError == "\(folder.url("gnu2.tar.gz")): OK (4 files, 3.0 KiB)\n")
    }

    // MARK: - verify, inspect, list

    @Test func verifyReportsArchivesLikeFolders() throws {
        let folder = try TemporaryFolder()
        try buildArchive(folder.url("bad.tar.gz"), [
            try .sums(Self.good + [("gone", [1])]), .text("App.sqlite", "stork"), .text("manifest.json", "{}"), .text("extra", "x"),
        ], format: .tarGzip)
        let archive = folder.url("bad.tar.gz")
        let result = fixturekit("verify", "--json", archive)
        #expect(result.status == 1)
        #expect(result.standardError == """
            fixturekit: verify: \(archive): entry "App.sqlite": changed
            fixturekit: verify: \(archive): entry "extra": unlisted
            fixturekit: verify: \(archive): entry "gone": missing
            \(archive): FAILED (3 problems)

            """)
        let report = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        let fixture = (report?["fixtures"] as? [[String: Any]])?.first
        #expect(fixture?["kind"] as? String == "archive")
        #expect(fixture?["verifiedFiles"] as? Int == 1)
        #expect((fixture?["problems"] as? [[String: Any]])?.map { $0["kind"] as? String } == ["changed", "unlisted", "missing"])
    }

    @Test func inspectDescribesTheArchive() throws {
        let folder = try TemporaryFolder()
        let fixture = try makeFixture(in: folder)
        #expect(fixturekit("pack", "--quiet", fixture).status == 0)
        let archive = folder.url("App-1.0.0.tar.zst")
        let size = try folder.read("App-1.0.0.tar.zst").count
        let ratio = String(format: "%.1f", 3425.0 / Double(size))
        let result = fixturekit("inspect", archive)
        #expect(result.status == 0)
        #expect(result.standardError == """
            archive:      \(archive)
            format:       POSIX pax interchange format
            compression:  zstd
            size:         \(Formatting.bytes(UInt64(size))), expanding to 3.3 KiB (\(ratio):1)
            entries:      8
              346 B       SHA256SUMS
              44 B        manifest.json
              folder      .App_SUPPORT/
              folder      .App_SUPPORT/_EXTERNAL_DATA/
              4 B         .App_SUPPORT/_EXTERNAL_DATA/blob
              2.9 KiB     App.sqlite
              folder      notes/
              15 B        notes/é and spaces.txt
            verification: OK (4 files, 3.0 KiB)

            """)
        let json = fixturekit("inspect", "--json", archive)
        let report = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any]
        #expect(report?["compression"] as? String == "zstd")
        #expect((report?["entries"] as? [[String: Any]])?.count == 8)
        #expect((report?["verification"] as? [String: Any])?["problems"] as? [Any] != nil)

        let notArchive = fixturekit("inspect", fixture)
        #expect(notArchive.status == 2)
        // A folder is inspected as a fixture: this one's store is only the start of an SQLite header.
        #expect(notArchive.standardError == "fixturekit: inspect: \(fixture)/App.sqlite: invalid page size 7 in the database header\n")
    }

    @Test func listShowsEntriesAsStored() throws {
        let folder = try TemporaryFolder()
        try buildArchive(folder.url("x.tar"), [
            try .sums(Self.good), .text("App.sqlite", "store"), .folder("notes"), .symbolicLink("link", to: "/etc"),
            .hardLink("passwd", to: "/etc/passwd"), .text("two\nlines", "x"),
        ], format: .tar)
        let result = fixturekit("list", folder.url("x.tar"))
        let size = Formatting.bytes(UInt64(try folder.read("x.tar").count))
        #expect(result.status == 0)
        #expect(result.standardError == """
            -rw-r--r--          157  SHA256SUMS
            -rw-r--r--            5  App.sqlite
            drwxr-xr-x            0  notes/
            lrw-r--r--            0  link -> /etc
            hrw-r--r--            0  passwd link to /etc/passwd
            -rw-r--r--            1  two\\nlines
            \(folder.url("x.tar")): 6 entries, 163 B (none, \(size))

            """)
        let json = fixturekit("list", "--json", folder.url("x.tar"))
        let report = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any]
        let entries = report?["entries"] as? [[String: Any]]
        #expect(entries?.map { $0["kind"] as? String } == ["file", "file", "folder", "symbolic-link", "hard-link", "file"])
        #expect(entries?[3]["target"] as? String == "/etc")
        // A damaged archive is listed up to the damage, then refused.
        let bytes = try folder.read("x.tar")
        try folder.write("cut.tar", Array(bytes.prefix(1024 + 300)))
        let cut = fixturekit("list", folder.url("cut.tar"))
        #expect(cut.status == 2)
        #expect(cut.standardError == "-rw-r--r--          157  SHA256SUMS\nfixturekit: list: \(folder.url("cut.tar")): after entry \"SHA256SUMS\": truncated tar archive\n")
    }

    @Test(arguments: [
        ("a", ArchiveScanner.CheckedPath.path(RelativePath("a"))),
        ("./a/b", .path(RelativePath("a/b"))),
        ("././a", .path(RelativePath("a"))),
        ("./", .root),
        (".", .root),
        ("a/", .path(RelativePath("a"))),
        ("/etc/passwd", .failure("absolute path")),
        ("../a", .failure("path leaves the destination")),
        ("a/../../b", .failure("path leaves the destination")),
        ("a/../b", .failure("path has a \"..\" component")),
        ("a//b", .failure("path has an empty or \".\" component")),
        ("a/./b", .failure("path has an empty or \".\" component")),
        ("", .failure("has no name")),
    ])
    func entryNamesAreChecked(name: String, expected: ArchiveScanner.CheckedPath) {
        #expect(ArchiveScanner.checkedPath(Array(name.utf8), isFolder: true) == expected)
    }

    @Test func invalidUTF8NameIsRefused() {
        #expect(ArchiveScanner.checkedPath([0x61, 0xFF], isFolder: false) == .failure("name is not valid UTF-8"))
        #expect(ArchiveScanner.checkedPath(Array("a/".utf8), isFolder: false) == .failure("path has an empty or \".\" component"))
    }
}
