import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// `pack`: byte-reproducible archives that the usual tools read.
@Suite struct PackTests {
    /// The same files with different times, owners, modes and creation order
    /// pack to the same bytes, in every format.
    @Test(arguments: ArchiveFormat.packable)
    func sameFilesPackToSameBytes(format: ArchiveFormat) throws {
        let folder = try TemporaryFolder()
        let first = try makeFixture(in: folder, "a/1.0.0", order: [0, 1, 2, 3])
        let second = try makeFixture(in: folder, "b/1.0.0", order: [3, 2, 1, 0])
        try run(["touch", "-h", "-d", "@1000000000", first + "/App.sqlite", first + "/notes", first + "/.App_SUPPORT"])
        try run(["find", second, "-exec", "touch", "-h", "-d", "@2000000000", "{}", "+"])
        try run(["chown", "-R", "1234:5678", first])
        try run(["find", second, "-type", "f", "-exec", "chmod", "600", "{}", "+"])
        try run(["find", second, "-type", "d", "-exec", "chmod", "700", "{}", "+"])
        // The uid/gid and mode really differ, and so does the time.
        #expect(try snapshot(first) != snapshot(second))

        let a = fixturekit("pack", "--quiet", "--format", format.rawValue, first)
        let b = fixturekit("pack", "--quiet", "--format", format.rawValue, second)
        #expect(a.status == 0, "\(a.standardError)")
        #expect(b.status == 0, "\(b.standardError)")
        let name = "App-1.0.0" + format.suffix
        let bytes = try folder.read("a/" + name)
        #expect(bytes == (try folder.read("b/" + name)))
        #expect(bytes.count > 0)
        // Packing again gives the same bytes and the same checksum file.
        #expect(fixturekit("pack", "--quiet", "--format", format.rawValue, first).status == 0)
        #expect(try folder.read("a/" + name) == bytes)
        #expect(try folder.read("a/" + name + ".sha256") == (try folder.read("b/" + name + ".sha256")))
    }

    /// The tar stream inside is pinned byte for byte: a libarchive that wrote other
    /// headers would change every archive's digest.
    @Test func tarStreamIsPinned() throws {
        let folder = try TemporaryFolder()
        let fixture = try makeFixture(in: folder)
        #expect(fixturekit("pack", "--quiet", fixture).status == 0)
        let tar = try run(["sh", "-c", "zstd -dc App-1.0.0.tar.zst | sha256sum"], in: folder.path)
        #expect(tar.standardOutput == "bd46f570a0ba4462c4f52f18d9cccf29ccd678d5bcb9229d85558c849c893801  -\n")
    }

    /// Each compressor's output is exactly what its own tool writes with the pinned
    /// settings for the same tar stream: zstd multi-threaded (its output is the
    /// same for any number of workers) without a frame checksum, gzip without name
    /// or time, xz on one thread.
    @Test(arguments: [
        (ArchiveFormat.tarZstd, "zstd -dc", "zstd -3 -T1 --no-check -c"),
        (ArchiveFormat.tarGzip, "gzip -dc", "gzip -6 -n -c"),
        (ArchiveFormat.tarXz, "xz -dc", "xz -6 -T1 -c"),
    ])
    func compressorSettingsArePinned(format: ArchiveFormat, decompress: String, compress: String) throws {
        let folder = try TemporaryFolder()
        let fixture = try makeFixture(in: folder)
        #expect(fixturekit("pack", "--quiet", "--format", format.rawValue, fixture).status == 0)
        let name = "App-1.0.0" + format.suffix
        let result = try run(["sh", "-c", "\(decompress) \(name) | \(compress) | cmp - \(name)"], in: folder.path)
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
    }

    /// Fixed headers: uid/gid 0, no names, 0644/0755, time 0 or SOURCE_DATE_EPOCH,
    /// SHA256SUMS and manifest.json first, then bytewise order, folders included;
    /// a pax record only for the name ustar cannot hold.
    @Test func headersAreFixedAndOrdered() throws {
        let folder = try TemporaryFolder()
        let fixture = try makeFixture(in: folder)
        #expect(fixturekit("pack", "--quiet", "--format", "tar.gz", fixture).status == 0)
        // GNU tar shows the user and group names when there are any, else the numbers.
        let listing = try run(["TZ=UTC", "tar", "--full-time", "-tvf", folder.url("App-1.0.0.tar.gz")])
        #expect(listing.status == 0, "\(listing.standardError)")
        #expect(listing.standardOutput == """
            -rw-r--r-- 0/0             346 1970-01-01 00:00:00 SHA256SUMS
            -rw-r--r-- 0/0              44 1970-01-01 00:00:00 manifest.json
            drwxr-xr-x 0/0               0 1970-01-01 00:00:00 .App_SUPPORT/
            drwxr-xr-x 0/0               0 1970-01-01 00:00:00 .App_SUPPORT/_EXTERNAL_DATA/
            -rw-r--r-- 0/0               4 1970-01-01 00:00:00 .App_SUPPORT/_EXTERNAL_DATA/blob
            -rw-r--r-- 0/0            3016 1970-01-01 00:00:00 App.sqlite
            drwxr-xr-x 0/0               0 1970-01-01 00:00:00 notes/
            -rw-r--r-- 0/0              15 1970-01-01 00:00:00 notes/é and spaces.txt

            """)
        // Every pax record in the stream: no atime, ctime, names or sub-second times.
        let records = try run(["sh", "-c", "gzip -dc App-1.0.0.tar.gz | tr '\\0' '\\n' | grep -a -E '^[0-9]+ [A-Za-z.]+='"], in: folder.path)
        #expect(records.standardOutput == "32 path=notes/é and spaces.txt\n")

        let dated = fixturekit(["pack", "--quiet", "--format", "tar.gz", "-o", folder.url("dated.tar.gz"), fixture], environment: ["SOURCE_DATE_EPOCH": "1700000000"])
        #expect(dated.status == 0)
        let times = try run(["sh", "-c", "TZ=UTC tar --full-time -tvf dated.tar.gz | awk '{ print $4, $5 }' | sort -u"], in: folder.path)
        #expect(times.standardOutput == "2023-11-14 22:13:20\n")
    }

    /// GNU tar and bsdtar list and extract the archive; `sha256sum -c` passes on
    /// what they extract and on the detached FILE.sha256.
    @Test(arguments: ArchiveFormat.packable)
    func usualToolsReadTheArchive(format: ArchiveFormat) throws {
        let folder = try TemporaryFolder()
        let fixture = try makeFixture(in: folder)
        let pack = fixturekit("pack", "--format", format.rawValue, fixture)
        let name = "App-1.0.0" + format.suffix
        #expect(pack.status == 0)
        #expect(pack.standardError.hasPrefix("\(folder.url(name)): 4 files, 3.0 KiB packed into "))
        let expected = [
            "SHA256SUMS", "manifest.json", ".App_SUPPORT/", ".App_SUPPORT/_EXTERNAL_DATA/", ".App_SUPPORT/_EXTERNAL_DATA/blob",
            "App.sqlite", "notes/", "notes/é and spaces.txt",
        ].joined(separator: "\n") + "\n"
        for tool in ["tar", "bsdtar"] {
            let list = try run([tool, "-tf", name], in: folder.path)
            #expect(list.status == 0, "\(tool): \(list.standardError)")
            #expect(list.standardOutput == expected, "\(tool)")
            try FileManager.default.createDirectory(atPath: folder.url(tool), withIntermediateDirectories: false)
            let extract = try run([tool, "-xf", folder.url(name), "-C", folder.url(tool)])
            #expect(extract.status == 0, "\(tool): \(extract.standardError)")
            let check = try run(["sha256sum", "-c", "--strict", "SHA256SUMS"], in: folder.url(tool))
            #expect(check.status == 0, "\(tool): \(check.standardOutput)")
            #expect(fixturekit("verify", "--quiet", folder.url(tool)).status == 0)
        }
        let detached = try run(["sha256sum", "-c", "--strict", name + ".sha256"], in: folder.path)
        #expect(detached.status == 0)
        #expect(detached.standardOutput == "\(name): OK\n")
        #expect(String(decoding: try folder.read(name + ".sha256"), as: UTF8.self) == "\(try sha256(ofFileAt: folder.url(name)))  \(name)\n")
    }

    @Test func defaultNameComesFromTheStore() throws {
        let folder = try TemporaryFolder()
        // No manifest: the only *.sqlite, not its sidecar.
        try folder.write("corpus/2.0.0/Notes.sqlite", "s")
        try folder.write("corpus/2.0.0/Notes.sqlite-wal", "a larger write-ahead log")
        try folder.write("corpus/2.0.0/other.bin", "b")
        #expect(fixturekit("sums", "--quiet", folder.url("corpus/2.0.0")).status == 0)
        let result = fixturekit("pack", "--quiet", "--json", folder.url("corpus/2.0.0/"))
        #expect(result.status == 0)
        #expect(FileManager.default.fileExists(atPath: folder.url("corpus/Notes-2.0.0.tar.zst")))
        #expect(FileManager.default.fileExists(atPath: folder.url("corpus/Notes-2.0.0.tar.zst.sha256")))
        let report = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        #expect(report?["archive"] as? String == folder.url("corpus/Notes-2.0.0.tar.zst"))
        #expect(report?["files"] as? Int == 3)
        #expect(report?["sha256"] as? String == (try sha256(ofFileAt: folder.url("corpus/Notes-2.0.0.tar.zst"))))
        // The manifest's "store" wins; a folder named "." is named by its real name.
        try folder.write("corpus/2.0.0/manifest.json", "{\"store\": {\"name\": \"Other.db\"}}")
        #expect(fixturekit("sums", "--quiet", folder.url("corpus/2.0.0")).status == 0)
        let relative = try run([toolExecutable, "pack", "--quiet", "."], in: folder.url("corpus/2.0.0"))
        #expect(relative.status == 0, "\(relative.standardError)")
        #expect(FileManager.default.fileExists(atPath: folder.url("corpus/Other-2.0.0.tar.zst")))
        // No temporary file is left anywhere.
        #expect(try run(["find", folder.path, "-name", "*.tmp"]).standardOutput == "")
    }

    @Test func folderThatFailsItsSumsIsRefused() throws {
        let folder = try TemporaryFolder()
        let fixture = try makeFixture(in: folder)
        try folder.write("1.0.0/App.sqlite", "changed")
        try folder.write("1.0.0/App.sqlite-wal", "stray")
        let before = try snapshot(folder.path)
        let result = fixturekit("pack", fixture)
        #expect(result.status == 1)
        #expect(result.standardError == "fixturekit: pack: \(fixture): the folder fails its SHA256SUMS: App.sqlite: changed; App.sqlite-wal: unlisted (hint: `fixturekit verify \(fixture)` lists every problem)\n")
        #expect(try snapshot(folder.path) == before)

        try FileManager.default.removeItem(atPath: fixture + "/SHA256SUMS")
        let missing = fixturekit("pack", fixture)
        #expect(missing.status == 1)
        #expect(missing.standardError == "fixturekit: pack: \(fixture): the folder fails its SHA256SUMS: SHA256SUMS: missing (hint: write one with `fixturekit sums \(fixture)`)\n")
    }

    @Test func symbolicLinkInTheFolderIsRefused() throws {
        let folder = try TemporaryFolder()
        let fixture = try makeFixture(in: folder)
        try folder.write("secret", "outside")
        try FileManager.default.removeItem(atPath: fixture + "/manifest.json")
        try FileManager.default.createSymbolicLink(atPath: fixture + "/manifest.json", withDestinationPath: folder.url("secret"))
        let result = fixturekit("pack", "-o", folder.url("x.tar.zst"), fixture)
        #expect(result.status == 1)
        #expect(result.standardError.hasPrefix("fixturekit: pack: \(fixture): the folder fails its SHA256SUMS: manifest.json: unreadable: is a symbolic link, not a regular file"))
        #expect(!FileManager.default.fileExists(atPath: folder.url("x.tar.zst")))
        #expect(!FileManager.default.fileExists(atPath: folder.url("x.tar.zst.tmp")))
    }

    @Test func commandLineMistakes() throws {
        let folder = try TemporaryFolder()
        let fixture = try makeFixture(in: folder)
        func usage(_ arguments: String...) -> String {
            let result = fixturekit(["pack"] + arguments)
            #expect(result.status == 64)
            return result.standardError.split(separator: "\n").first.map(String.init) ?? ""
        }
        #expect(usage("--format", "zip", fixture) == "Error: '--format' is tar.zst, tar.gz or tar.xz, not 'zip'")
        #expect(usage("--level", "30", fixture) == "Error: '--level' for tar.zst is 1 to 19, not '30'")
        #expect(usage("--format", "tar.xz", "--level", "10", fixture) == "Error: '--level' for tar.xz is 0 to 9, not '10'")
        #expect(usage("-o", "x.tar.gz", "--format", "tar.xz", fixture) == "Error: 'x.tar.gz' is named like a tar.gz archive, not tar.xz")
        #expect(usage() == "Error: missing expected argument '<folder>'")
        let inside = fixturekit("pack", "-o", fixture + "/self.tar.zst", fixture)
        #expect(inside.status == 64)
        #expect(inside.standardError == "fixturekit: pack: \(fixture)/self.tar.zst: is inside the folder being packed (hint: write the archive beside the fixture folder)\n")
        let epoch = fixturekit(["pack", fixture], environment: ["SOURCE_DATE_EPOCH": "yesterday"])
        #expect(epoch.status == 2)
        #expect(epoch.standardError == "fixturekit: pack: SOURCE_DATE_EPOCH: \"yesterday\" is not a whole number of seconds since 1970 (0 to 8589934591)\n")
        let absent = fixturekit("pack", folder.url("nowhere"))
        #expect(absent.status == 2)
        #expect(absent.standardError == "fixturekit: pack: \(folder.url("nowhere")): no such folder\n")
        // The suffix of -o picks the format.
        #expect(fixturekit("pack", "--quiet", "-o", folder.url("out.tar.xz"), fixture).status == 0)
        #expect(try run(["xz", "-t", folder.url("out.tar.xz")]).status == 0)
    }

    /// `-o` names the format by its suffix: a name that says another format (or
    /// none) is refused, with nothing written, rather than holding zstd under it.
    @Test(arguments: ["x.zip", "x.tgz", "x.tar.bz2", "x.tar", "x", "x.zst", "x.tar.zst.sha256", "x.TAR.GZ", ".tar.gz"])
    func anOutputNameThatSaysAnotherFormatIsRefused(name: String) throws {
        let folder = try TemporaryFolder()
        let fixture = try makeFixture(in: folder)
        let before = try snapshotOfFiles(folder.path)
        let result = fixturekit("pack", "-o", folder.url(name), fixture)
        #expect(result.status == 64)
        let why = "'\(folder.url(name))' does not end in .tar.zst, .tar.gz, .tar.xz: an archive's name says its format"
        #expect(result.standardError.hasPrefix("Error: \(why)\n"), "\(result.standardError)")
        #expect(try snapshotOfFiles(folder.path) == before)
        // The library refuses it too.
        #expect(throws: FixtureKitError.self) { try FixtureArchive.pack(fixture, options: PackOptions(output: folder.url(name))) }
        #expect(try snapshotOfFiles(folder.path) == before)
    }

    @Test func existingArchiveIsReplacedAtomically() throws {
        let folder = try TemporaryFolder()
        let fixture = try makeFixture(in: folder)
        try folder.write("App-1.0.0.tar.zst", "old")
        try folder.write("App-1.0.0.tar.zst.tmp", "left by a killed run")
        let result = fixturekit("pack", fixture)
        #expect(result.status == 0)
        #expect(result.standardError.contains(", replacing the file that was there\n"))
        #expect(!FileManager.default.fileExists(atPath: folder.url("App-1.0.0.tar.zst.tmp")))
        #expect(fixturekit("verify", "--quiet", folder.url("App-1.0.0.tar.zst")).status == 0)
    }
}
