import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// `-` is an archive on standard input for `verify`, `list`, `unpack`, `inspect`
/// and `hash`, and standard output for `pack -o -`: a pipeline streams, with the
/// verdicts of a file, in bounded memory, and no copy of the whole archive.
@Suite struct StreamTests {
    /// `fixturekit ARGUMENTS` with `input` piped on its standard input.
    static func piped(_ input: String, _ arguments: [String], environment: [String: String]? = nil) throws -> RunResult {
        try run(["sh", "-c", "cat \"$0\" | exec \"$@\"", input, toolExecutable] + arguments, environment: environment)
    }

    /// Every reading command gives on a pipe what it gives on the file, for a
    /// good archive and a tampered one (its output naming `-` for the file).
    @Test func everyReadingCommandReadsAPipeAsItReadsTheFile() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.url("live"), withIntermediateDirectories: true)
        let store = try HeldWALStore(in: folder.url("live"), notes: 40)
        #expect(fixturekit("capture", "--no-anonymize", store.path, "--version", "1.0.0", "--corpus", folder.url("corpus"), "--mode", "raw").status == 0)
        let good = folder.url("good.tar.zst")
        #expect(fixturekit("pack", "--quiet", folder.url("corpus/1.0.0"), "-o", good).status == 0)
        // Tampered: the store's last byte flipped, the archive otherwise the same.
        var bytes = try folder.read("corpus/1.0.0/App.sqlite")
        bytes[bytes.count - 1] ^= 1
        try folder.write("tampered/App.sqlite", bytes)
        for name in ["SHA256SUMS", "manifest.json", "App.sqlite-wal", "App.sqlite-shm"] { try folder.write("tampered/" + name, try folder.read("corpus/1.0.0/" + name)) }
        let tampered = folder.url("tampered.tar.zst")
        try buildArchive(tampered, try ["SHA256SUMS", "manifest.json", "App.sqlite", "App.sqlite-shm", "App.sqlite-wal"].map { .file($0, try folder.read("tampered/" + $0)) })
        for (archive, status) in [(good, Int32(0)), (tampered, 1)] {
            for command in [["verify"], ["verify", "--deep"], ["verify", "--json"], ["list"], ["list", "--json"], ["inspect"], ["inspect", "--json"], ["hash"]] {
                let file = try run([toolExecutable] + command + [archive])
                let pipe = try Self.piped(archive, command + ["-"])
                let expected = command == ["hash"] || command[0] == "list" ? (command == ["hash"] && status == 1 ? 1 : 0) : status
                #expect(file.status == expected, "\(command) \(archive): \(file.standardError)")
                #expect(pipe.status == file.status, "\(command) \(archive): \(pipe.standardError)")
                // The same words, `-` where the file was named; a stream's size is the bytes read.
                #expect(pipe.standardOutput == file.standardOutput.replacingOccurrences(of: archive, with: "-"), "\(command) \(archive)")
                #expect(pipe.standardError == file.standardError.replacingOccurrences(of: archive, with: "-"), "\(command) \(archive)")
            }
            let destination = folder.url("unpacked-\(status)")
            let unpack = try Self.piped(archive, ["unpack", "-", destination])
            #expect(unpack.status == status, "\(unpack.standardError)")
            #expect(FileManager.default.fileExists(atPath: destination) == (status == 0))
        }
        #expect(try snapshotOfFiles(folder.url("unpacked-0")) == (try snapshotOfFiles(folder.url("corpus/1.0.0"))))
        // One stdin: `-` twice is a usage error.
        #expect(fixturekit("verify", "-", "-").status == 64)
        withExtendedLifetime(store) {}
    }

    /// `pack -o -` writes on stdout the bytes `pack -o FILE` writes, in every
    /// format, and `unpack -` takes them from a pipe.
    @Test(arguments: ["tar.zst", "tar.gz", "tar.xz"])
    func packToAPipeUnpacksFromAPipe(format: String) throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.url("live"), withIntermediateDirectories: true)
        let store = try HeldWALStore(in: folder.url("live"), notes: 40)
        #expect(fixturekit("capture", "--no-anonymize", store.path, "--version", "1.0.0", "--corpus", folder.url("corpus"), "--mode", "raw").status == 0)
        let fixture = folder.url("corpus/1.0.0")
        let file = folder.url("packed." + format)
        #expect(fixturekit("pack", "--quiet", fixture, "--format", format, "-o", file).status == 0)
        let pipeline = try run(["bash", "-c", "set -o pipefail; \"$0\" pack \"$1\" --format \"$2\" -o - | tee \"$3\" | \"$0\" unpack - \"$4\"",
                                toolExecutable, fixture, format, folder.url("streamed." + format), folder.url("dest")])
        #expect(pipeline.status == 0, "\(pipeline.standardError)")
        #expect(try folder.read("streamed." + format) == (try folder.read("packed." + format)))
        #expect(try snapshotOfFiles(folder.url("dest")) == (try snapshotOfFiles(fixture)))
        // Nothing else was written: no .sha256, no lock line, nothing named "-".
        #expect(!FileManager.default.fileExists(atPath: folder.url("-")) && !FileManager.default.fileExists(atPath: fixture + "/-"))
        // Its digest on stderr, as sha256sum prints a stream's.
        let digest = try SHA256.hash(try folder.read("packed." + format)).hex
        #expect(pipeline.standardError.contains("\(digest)  -\n"), "\(pipeline.standardError)")
        #expect(fixturekit("pack", fixture, "-o", "-", "--json").status == 64)
        withExtendedLifetime(store) {}
    }

    /// A stream far larger than what the tool keeps: 200 MB that does not
    /// compress, verified, listed, inspected and unpacked from a pipe, in a few
    /// dozen MiB, and no copy of it in the temporary folder (a small tmpfs, as
    /// root). (`--deep` checks a copy of the store set, from a file or a pipe.)
    @Test func aLargeStreamIsReadInBoundedMemory() throws {
        let folder = try TemporaryFolder()
        let made = try run(["sh", "-c", "mkdir f && head -c 200000000 /dev/urandom > f/data && (cd f && sha256sum data > SHA256SUMS) && tar -cf - -C f SHA256SUMS data | zstd -1 -q -T1 > big.tar.zst && rm f/data"], in: folder.path)
        #expect(made.status == 0, "\(made.standardError)")
        var environment = ProcessInfo.processInfo.environment
        var tmpfs: String?
        if getuid() == 0, (try? run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", folder.url("f")]))?.status == 0 {
            environment["TMPDIR"] = folder.url("f")
            tmpfs = folder.url("f")
        }
        defer { if let tmpfs { _ = try? run(["umount", "-l", tmpfs]) } }
        for command in [["verify", "-"], ["list", "-"], ["inspect", "-"], ["unpack", "-", folder.url("dest")]] {
            let result = try run(["sh", "-c", "cat big.tar.zst | /usr/bin/time -f %M -o rss \"$0\" \"$@\"", toolExecutable] + command, in: folder.path, environment: environment)
            #expect(result.status == 0, "\(command): \(result.standardError)")
            let kilobytes = Int(String(decoding: try folder.read("rss"), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? .max
            // The archive is 200 MB; the tool holds a few chunks of 4 MiB.
            #expect(kilobytes < 120_000, "\(command): \(kilobytes) KiB")
        }
    }
}
