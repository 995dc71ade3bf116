import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// `pack` compresses zstd on every core, and the archive's bytes do not depend on
/// how many: the same fixture packed by one worker, two or three, or by a process
/// that may run on one core only, is the same archive.
@Suite struct PackWorkersTests {
    /// A fixture of about 24 MiB of text: zstd's level 3 cuts its stream into jobs
    /// of a few MiB, so that several workers compress at once.
    static func largeFixture(in folder: TemporaryFolder) throws -> String {
        let words = Array("order invoice delivery customer account payment refund shipment parcel warehouse street city country note title body folder tag".split(separator: " ").map { Array($0.utf8) })
        var bytes = Array("SQLite format 3\0".utf8)
        bytes.reserveCapacity(24 << 20)
        var state: UInt64 = 20_260_101
        while bytes.count < 24 << 20 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes += words[Int(state >> 33) % words.count]
            bytes.append(state >> 60 == 0 ? 10 : 32)
            if state >> 58 == 1 { bytes += Array(String(state >> 20, radix: 16).utf8) }
        }
        try folder.write("corpus/1.0.0/App.sqlite", bytes)
        try folder.write("corpus/1.0.0/manifest.json", "{\"store\": \"App.sqlite\", \"version\": \"1.0.0\"}\n")
        let sums = fixturekit("sums", "--quiet", folder.url("corpus/1.0.0"))
        #expect(sums.status == 0, "\(sums.standardError)")
        return folder.url("corpus/1.0.0")
    }

    /// One worker, two and three write the same bytes, which are what zstd's own
    /// tool writes multi-threaded (`-T2`) for the same tar stream; a worker count
    /// that switched zstd to its single-threaded mode would write other bytes.
    @Test func workersDoNotChangeTheBytes() throws {
        let folder = try TemporaryFolder()
        let fixture = try Self.largeFixture(in: folder)
        // Compared by digest: a failing comparison of megabyte arrays would be diffed element by element.
        var digests: [String] = []
        for workers in [1, 2, 3] {
            var options = PackOptions(output: folder.url("packed-\(workers).tar.zst"))
            options.workers = workers
            let result = try FixtureArchive.pack(fixture, options: options)
            #expect(result.sha256 == (try sha256(ofFileAt: folder.url("packed-\(workers).tar.zst"))))
            digests.append(try sha256(ofFileAt: folder.url("packed-\(workers).tar.zst")))
        }
        #expect(try folder.read("packed-1.tar.zst").count > 1 << 20)
        #expect(digests[0] == digests[1], "1 worker and 2 workers wrote different bytes")
        #expect(digests[0] == digests[2], "1 worker and 3 workers wrote different bytes")
        let zstd = try run(["sh", "-c", "zstd -dc packed-2.tar.zst | zstd -3 -T2 --no-check -c | cmp - packed-1.tar.zst"], in: folder.path)
        #expect(zstd.status == 0, "\(zstd.standardOutput)\(zstd.standardError)")
        let single = try run(["sh", "-c", "zstd -dc packed-2.tar.zst | zstd -3 --single-thread --no-check -c | cmp -s - packed-1.tar.zst"], in: folder.path)
        #expect(single.status == 1, "the archive is zstd's single-threaded output")
    }

    /// The tool on one core (`taskset -c 0`) and on every core writes the same archive.
    @Test(.enabled(if: ProcessInfo.processInfo.activeProcessorCount >= 2 && FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset")))
    func oneCoreOrEvery() throws {
        let folder = try TemporaryFolder()
        let fixture = try Self.largeFixture(in: folder)
        let one = try run(["taskset", "-c", "0", toolExecutable, "pack", "--quiet", "-o", folder.url("one-core.tar.zst"), fixture])
        #expect(one.status == 0, "\(one.standardError)")
        let every = try run([toolExecutable, "pack", "--quiet", "-o", folder.url("every-core.tar.zst"), fixture])
        #expect(every.status == 0, "\(every.standardError)")
        #expect(try sha256(ofFileAt: folder.url("one-core.tar.zst")) == (try sha256(ofFileAt: folder.url("every-core.tar.zst"))))
    }

    /// An archive that an earlier fixturekit packed with zstd's single-threaded mode
    /// (other bytes than now, for a fixture larger than one job) is never repacked:
    /// it verifies, matches its lock line, unpacks, and hashes as its folder does.
    @Test func earlierSingleThreadedArchivesStillVerify() throws {
        let folder = try TemporaryFolder()
        let corpus = folder.url("corpus")
        try folder.write("corpus/fixturekit.json", #"{"store": "App.sqlite", "current": "1.0.0", "supported": [], "stages": []}"#)
        let live = folder.url("live/App.sqlite")
        try FileManager.default.createDirectory(atPath: folder.url("live"), withIntermediateDirectories: true)
        let database = try Database(path: live, options: .init(create: true))
        try database.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        try database.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000) INSERT INTO notes SELECT i, hex(randomblob(150)) FROM n")
        try database.close()
        _ = try Capture.capture(store: live, version: "1.0.0", corpus: corpus, mode: .snapshot, anonymize: .synthetic)
        #expect(fixturekit("pack", "--quiet", corpus + "/1.0.0").status == 0)
        // What the earlier version wrote: the same tar stream, single-threaded, and its checksum file.
        let recompress = try run(["sh", "-c", "zstd -dc App-1.0.0.tar.zst | zstd -3 --single-thread --no-check -c > old.tar.zst && ! cmp -s old.tar.zst App-1.0.0.tar.zst && mv old.tar.zst App-1.0.0.tar.zst && sha256sum App-1.0.0.tar.zst > App-1.0.0.tar.zst.sha256"], in: corpus)
        #expect(recompress.status == 0, "\(recompress.standardOutput)\(recompress.standardError)")
        let lock = fixturekit("lock", corpus)
        #expect(lock.status == 0, "\(lock.standardError)")
        let oldDigest = try sha256(ofFileAt: corpus + "/App-1.0.0.tar.zst")
        #expect(try String(contentsOfFile: corpus + "/fixturekit.lock", encoding: .utf8).contains("archive 1.0.0 App-1.0.0.tar.zst \(oldDigest)\n"))

        let verify = fixturekit("verify", corpus)
        #expect(verify.status == 0, "\(verify.standardError)")
        let unpack = fixturekit("unpack", "--quiet", corpus + "/App-1.0.0.tar.zst", folder.url("unpacked"))
        #expect(unpack.status == 0, "\(unpack.standardError)")
        #expect(try sha256(ofFileAt: folder.url("unpacked/App.sqlite")) == (try sha256(ofFileAt: folder.url("corpus/1.0.0/App.sqlite"))))
        #expect(fixturekit("hash", corpus + "/App-1.0.0.tar.zst").standardOutput.prefix(64) == fixturekit("hash", corpus + "/1.0.0").standardOutput.prefix(64))
        // The archive was read, never rewritten.
        #expect(try sha256(ofFileAt: corpus + "/App-1.0.0.tar.zst") == oldDigest)
    }
}
