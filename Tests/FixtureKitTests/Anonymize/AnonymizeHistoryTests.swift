import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// A fixture rewritten by `anonymize --force` keeps its history consistent:
/// its archive is rebuilt and the lock's lines of its version rewritten with
/// it, in one step; `verify` fails when a folder and its archive differ.
@Suite struct AnonymizeHistoryTests {
    static let environment = ["FIXTUREKIT_ANON_KEY": "example-corpus-key-not-a-secret"]

    /// A copy of the example corpus (three fixtures, their archives, a lock).
    func corpus(_ folder: TemporaryFolder) throws -> String {
        try FileManager.default.copyItem(atPath: ExampleCorpusTests.corpus, toPath: folder.url("MigrationFixtures"))
        return folder.url("MigrationFixtures")
    }

    /// The SHA256SUMS inside an archive.
    func sumsInside(_ archive: String) throws -> [UInt8] {
        try ArchiveMetadata.read(archive, what: "test").sumsBytes
    }

    @Test func anonymizeForceOfAnArchivedFixtureRebuildsItsArchiveAndItsLockLines() throws {
        let folder = try TemporaryFolder()
        let corpus = try corpus(folder)
        let archive = corpus + "/App-1.0.0.tar.zst"
        let oldArchive = try folder.read("MigrationFixtures/App-1.0.0.tar.zst")
        let result = fixturekit(["anonymize", corpus + "/1.0.0", "--rules", corpus + "/anonymize.json", "--force", "--json"], environment: Self.environment)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.contains("\n\(archive): rebuilt from the anonymized fixture\n"), "\(result.standardError)")
        let report = try JSONDecoder().decode(AnonymizationReport.self, from: Data(result.standardOutput.utf8))
        let newArchive = try folder.read("MigrationFixtures/App-1.0.0.tar.zst")
        #expect(newArchive != oldArchive)
        #expect(report.archives == [ArchiveRewrite(archive: archive, sha256: try SHA256.hash(newArchive).hex)])
        // The lock's three lines of the version, in one write.
        #expect(report.lock?.map(\.fact.description) == ["archive 1.0.0 App-1.0.0.tar.zst", "content 1.0.0", "sums 1.0.0"])
        #expect(report.lock?.allSatisfy(\.changed) == true)
        // The archive holds the anonymized fixture, and everything verifies.
        #expect(try sumsInside(archive) == folder.read("MigrationFixtures/1.0.0/SHA256SUMS"))
        #expect(try ContentHash.of(archive) == ContentHash.of(corpus + "/1.0.0"))
        for deep in [[], ["--deep"]] {
            let verify = fixturekit(["verify"] + deep + [corpus])
            #expect(verify.status == 0, "\(verify.standardError)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: corpus).filter { $0.hasPrefix(".") } == [])
        // A corpus without a lock: the archive is rebuilt all the same.
        try FileManager.default.removeItem(atPath: corpus + "/fixturekit.lock")
        let again = fixturekit(["anonymize", corpus + "/2.0.0", "--rules", corpus + "/anonymize.json"], environment: Self.environment)
        #expect(again.status == 0, "\(again.standardError)")
        #expect(again.standardError.contains("\n\(corpus)/App-2.0.0.tar.zst: rebuilt from the anonymized fixture\n"))
        #expect(fixturekit("verify", corpus).status == 0)
    }

    /// Without `--force`, an archive the lock records is not replaced: nothing is.
    @Test func aLockedArchiveIsNotRebuiltWithoutForce() throws {
        let folder = try TemporaryFolder()
        let corpus = try corpus(folder)
        // The fixture's own lines gone: only its archive is locked.
        let lock = try String(contentsOfFile: corpus + "/fixturekit.lock", encoding: .utf8)
        try lock.split(separator: "\n").filter { !($0.hasPrefix("sums 1.0.0") || $0.hasPrefix("content 1.0.0")) }.joined(separator: "\n").appending("\n")
            .write(toFile: corpus + "/fixturekit.lock", atomically: true, encoding: .utf8)
        let before = try snapshotOfFiles(corpus)
        let result = fixturekit(["anonymize", corpus + "/1.0.0", "--rules", corpus + "/anonymize.json"], environment: Self.environment)
        #expect(result.status == 2)
        #expect(result.standardError.hasPrefix("fixturekit: anonymize: \(corpus)/App-1.0.0.tar.zst: the archive is locked in fixturekit.lock"), "\(result.standardError)")
        #expect(try snapshotOfFiles(corpus) == before)
    }

    /// A folder and its archive that hold different fixtures fail `verify`, with
    /// or without `--deep`, with or without a lock, naming both.
    @Test(arguments: [false, true], [false, true])
    func aFixtureWhoseArchiveDiffersFailsNamingBoth(locked: Bool, deep: Bool) throws {
        let folder = try TemporaryFolder()
        let corpus = try corpus(folder)
        // 1.0.0's archive now holds 2.0.0's files, and the lock (when there is one) agrees with each of them.
        try FileManager.default.copyItem(atPath: corpus + "/2.0.0", toPath: folder.url("other/1.0.0"))
        _ = try FixtureArchive.pack(folder.url("other/1.0.0"), options: PackOptions(output: folder.url("other/App-1.0.0.tar.zst")))
        for name in ["App-1.0.0.tar.zst", "App-1.0.0.tar.zst.sha256"] {
            try FileManager.default.removeItem(atPath: corpus + "/" + name)
            try FileManager.default.copyItem(atPath: folder.url("other/" + name), toPath: corpus + "/" + name)
        }
        if locked {
            #expect(fixturekit("lock", corpus).status == 0)
        } else {
            try FileManager.default.removeItem(atPath: corpus + "/fixturekit.lock")
        }
        let result = fixturekit(["verify", "--quiet"] + (deep ? ["--deep"] : []) + [corpus])
        #expect(result.status == 1)
        #expect(result.standardError == """
            fixturekit: verify: \(corpus)/App-1.0.0.tar.zst: differs from its folder \(corpus)/1.0.0: App.sqlite: other contents; App.sqlite-shm: only in the archive; App.sqlite-wal: only in the archive; and 1 more (hint: `fixturekit pack --force \(corpus)/1.0.0` packs it again, or `fixturekit unpack --force` the archive over it)
            \(corpus)/App-1.0.0.tar.zst: FAILED (1 problem)

            """)
        // The archive alone, named by its bare name from inside the corpus, says the same.
        let alone = fixturekit("verify", corpus + "/App-1.0.0.tar.zst")
        #expect(alone.status == 1 && alone.standardError.contains("differs from its folder \(corpus)/1.0.0: "))
    }

    /// Where a run can stop once the replacement is decided: the journal whole
    /// and the new fixture still staged; the fixture installed and the archive
    /// and lock not yet. `verify` says so; `fixturekit lock` (or the next run
    /// that rewrites the fixture) finishes it, byte for byte as an
    /// uninterrupted run. Before the journal is whole, the old state stays.
    @Test(arguments: ["staged", "installed", "building"])
    func aReplacementStoppedHalfWayIsFinishedOrUndone(stage: String) throws {
        let folder = try TemporaryFolder()
        let corpus = try corpus(folder)
        // The uninterrupted run, in a copy.
        let done = folder.url("done")
        try FileManager.default.copyItem(atPath: corpus, toPath: done)
        #expect(fixturekit(["anonymize", done + "/1.0.0", "--rules", done + "/anonymize.json", "--force"], environment: Self.environment).status == 0)
        let before = try snapshotOfFiles(corpus)
        // The state a kill left.
        let journal = stage == "building" ? corpus + "/.1.0.0.commit.tmp" : corpus + "/.1.0.0.commit"
        try FileManager.default.createDirectory(atPath: journal, withIntermediateDirectories: false)
        for name in ["App-1.0.0.tar.zst", "App-1.0.0.tar.zst.sha256"] { try FileManager.default.copyItem(atPath: done + "/" + name, toPath: journal + "/" + name) }
        if stage != "building" { try FileManager.default.copyItem(atPath: done + "/1.0.0/SHA256SUMS", toPath: journal + "/SHA256SUMS") }
        if stage == "installed" {
            try FileManager.default.removeItem(atPath: corpus + "/1.0.0")
            try FileManager.default.copyItem(atPath: done + "/1.0.0", toPath: corpus + "/1.0.0")
        } else {
            try FileManager.default.copyItem(atPath: done + "/1.0.0", toPath: corpus + "/.1.0.0.tmp")
        }
        let verify = fixturekit("verify", "--quiet", corpus)
        #expect(verify.status == 1)
        if stage != "building" {
            #expect(verify.standardError.contains("fixturekit: verify: \(corpus)/.1.0.0.commit: unlisted: left by an interrupted run: a replacement of a fixture, its archives and its lock lines, decided and not finished (hint: `fixturekit lock` finishes it)\n"), "\(verify.standardError)")
            #expect(fixturekit("lock", corpus).status == 0)
            // As the run that was not stopped left it.
            #expect(try snapshotOfFiles(corpus) == snapshotOfFiles(done))
        } else {
            // Not decided: the next run that rewrites the fixture removes what was built, and the old state stays.
            try FixtureFolder.recover(corpus + "/1.0.0")
            #expect(try snapshotOfFiles(corpus) == before)
        }
        #expect(fixturekit("verify", "--deep", corpus).status == 0)
    }
}
