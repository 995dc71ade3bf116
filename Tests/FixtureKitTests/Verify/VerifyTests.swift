import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// `sums` and `verify` on folders, through the tool as a user runs it.
@Suite struct VerifyTests {
    /// A fixture folder with three files and its SHA256SUMS.
    func makeFixture() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try folder.write("fixture/App.sqlite", "SQLite format 3\0 pretend")
        try folder.write("fixture/notes.txt", "{}\n")
        try folder.write("fixture/.App_SUPPORT/_EXTERNAL_DATA/blob", [0, 1, 2, 3])
        let sums = fixturekit("sums", folder.url("fixture"))
        #expect(sums.status == 0)
        #expect(sums.standardError == "\(folder.url("fixture"))/SHA256SUMS: 3 files\n")
        return folder
    }

    @Test func passesOnWhatSumsWrote() throws {
        let folder = try makeFixture()
        let result = fixturekit("verify", folder.url("fixture"))
        #expect(result.status == 0)
        #expect(result.standardError == "\(folder.url("fixture")): OK (3 files, 31 B)\n")
        #expect(result.standardOutput == "")
        #expect(fixturekit("verify", "--quiet", folder.url("fixture")).standardError == "")
    }

    @Test func changedByteIsReportedByName() throws {
        let folder = try makeFixture()
        var bytes = try folder.read("fixture/App.sqlite")
        bytes[3] ^= 0x01
        try folder.write("fixture/App.sqlite", bytes)
        let result = fixturekit("verify", "--quiet", folder.url("fixture"))
        #expect(result.status == 1)
        #expect(result.standardError == """
            fixturekit: verify: \(folder.url("fixture/App.sqlite")): changed
            \(folder.url("fixture")): FAILED (1 problem)

            """)
    }

    @Test func removedAddedAndUnreadableFilesAreReportedByName() throws {
        let folder = try makeFixture()
        try FileManager.default.removeItem(atPath: folder.url("fixture/notes.txt"))
        try folder.write("fixture/App.sqlite-wal", "stray")
        // A folder where a listed file should be cannot be read, even by root.
        try FileManager.default.removeItem(atPath: folder.url("fixture/App.sqlite"))
        try FileManager.default.createDirectory(atPath: folder.url("fixture/App.sqlite"), withIntermediateDirectories: false)
        let result = fixturekit("verify", "--quiet", folder.url("fixture"))
        #expect(result.status == 1)
        let fixture = folder.url("fixture")
        #expect(result.standardError == """
            fixturekit: verify: \(fixture)/App.sqlite: unreadable: is a folder, not a regular file
            fixturekit: verify: \(fixture)/App.sqlite-wal: unlisted
            fixturekit: verify: \(fixture)/notes.txt: missing
            \(fixture): FAILED (3 problems)

            """)
    }

    @Test func permissionDeniedIsUnreadable() throws {
        let folder = try makeFixture()
        chmod(folder.url("fixture/notes.txt"), 0)
        // Root reads any file whatever its mode, so as root the built tool runs as
        // `nobody` (the folders are opened up for it first).
        var command = [toolExecutable, "verify", "--quiet", folder.url("fixture")]
        if getuid() == 0 {
            chmod(folder.path, 0o755)
            command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + command
        }
        let result = try run(command)
        #expect(result.status == 1)
        #expect(result.standardError == """
            fixturekit: verify: \(folder.url("fixture/notes.txt")): unreadable: permission denied
            \(folder.url("fixture")): FAILED (1 problem)

            """)
    }

    @Test func symbolicLinksAreNeverFollowed() throws {
        let folder = try makeFixture()
        try folder.write("outside", "secret")
        try FileManager.default.removeItem(atPath: folder.url("fixture/notes.txt"))
        try FileManager.default.createSymbolicLink(atPath: folder.url("fixture/notes.txt"), withDestinationPath: folder.url("outside"))
        let verify = fixturekit("verify", "--quiet", folder.url("fixture"))
        #expect(verify.status == 1)
        #expect(verify.standardError.hasPrefix("fixturekit: verify: \(folder.url("fixture/notes.txt")): unreadable: is a symbolic link, not a regular file\n"))
        let sums = fixturekit("sums", folder.url("fixture"))
        #expect(sums.status == 2)
        #expect(sums.standardError == "fixturekit: hash: \(folder.url("fixture/notes.txt")): is a symbolic link, not a regular file (hint: a fixture holds regular files and folders only)\n")
    }

    /// A link given as the path is not followed, and the message says what it
    /// points to: a folder, a file, nothing.
    @Test func aLinkGivenAsThePathSaysWhatItPointsTo() throws {
        let folder = try makeFixture()
        let cases = [
            ("to-folder", folder.url("fixture"), "is a symbolic link (to a folder), and verify follows no link (hint: name the folder it points to)"),
            ("to-file", folder.url("fixture/SHA256SUMS"), "is a symbolic link (to a file), and verify follows no link (hint: name the file it points to)"),
            ("dangling", folder.url("nowhere"), "is a symbolic link (to nothing that can be read), and verify follows no link"),
        ]
        for (name, target, why) in cases {
            try FileManager.default.createSymbolicLink(atPath: folder.url(name), withDestinationPath: target)
            let result = fixturekit("verify", folder.url(name))
            #expect(result.status == 2)
            #expect(result.standardError == "fixturekit: verify: \(folder.url(name)): \(why)\n")
        }
    }

    @Test func aNameWithALineFeedStaysOnOneLine() throws {
        let folder = try TemporaryFolder()
        try folder.write("f/two\nlines", "1")
        #expect(fixturekit("sums", folder.url("f")).status == 0)
        try folder.write("f/two\nlines", "2")
        let result = fixturekit("verify", "--quiet", folder.url("f"))
        #expect(result.status == 1)
        #expect(result.standardError == "fixturekit: verify: \(folder.url("f"))/two\\nlines: changed\n\(folder.url("f")): FAILED (1 problem)\n")
    }

    @Test func malformedLineIsReportedWithItsNumber() throws {
        let folder = try makeFixture()
        var text = String(decoding: try folder.read("fixture/SHA256SUMS"), as: UTF8.self)
        text += "this is not a checksum\n"
        try folder.write("fixture/SHA256SUMS", text)
        let result = fixturekit("verify", "--quiet", folder.url("fixture"))
        #expect(result.status == 1)
        #expect(result.standardError.hasPrefix("fixturekit: verify: \(folder.url("fixture/SHA256SUMS")): line 4: not a SHA-256 checksum line"))
    }

    @Test func missingSHA256SUMSAndMissingPath() throws {
        let folder = try TemporaryFolder()
        try folder.write("corpus/1.0.0/App.sqlite", "x")
        try folder.write("corpus/migrations/1.0.0-2.0.0.sql", "SELECT 1;")
        let corpus = fixturekit("verify", folder.url("corpus"))
        #expect(corpus.status == 1)
        #expect(corpus.standardError == """
            fixturekit: verify: \(folder.url("corpus/1.0.0/SHA256SUMS")): missing
            \(folder.url("corpus/1.0.0")): FAILED (1 problem)

            """)
        let absent = fixturekit("verify", folder.url("nowhere"))
        #expect(absent.status == 2)
        #expect(absent.standardError == "fixturekit: verify: \(folder.url("nowhere")): no such file or folder\n")
        let empty = fixturekit("verify", folder.url("corpus/migrations"))
        #expect(empty.status == 2)
        #expect(empty.standardError.hasPrefix("fixturekit: verify: \(folder.url("corpus/migrations")): no SHA256SUMS in the folder nor in any folder in it"))
    }

    @Test func corpusVerifiesEveryFixtureInVersionOrder() throws {
        let folder = try TemporaryFolder()
        for version in ["1.10.0", "1.9.0", "2.0.0"] {
            try folder.write("MigrationFixtures/\(version)/App.sqlite", version)
            #expect(fixturekit("sums", "--quiet", folder.url("MigrationFixtures/\(version)")).status == 0)
        }
        try folder.write("MigrationFixtures/migrations/1.9.0-1.10.0.sql", "SELECT 1;")
        let result = fixturekit("verify", folder.url("MigrationFixtures"))
        #expect(result.status == 0)
        #expect(result.standardError.split(separator: "\n").map { $0.split(separator: "/").last.map(String.init) ?? "" } == [
            "1.9.0: OK (1 file, 5 B)", "1.10.0: OK (1 file, 6 B)", "2.0.0: OK (1 file, 5 B)",
        ])
        // A SHA256SUMS file names its folder.
        #expect(fixturekit("verify", "--quiet", folder.url("MigrationFixtures/2.0.0/SHA256SUMS")).status == 0)

        // What a killed run left (the fixture it replaced, maybe before its
        // anonymization) fails the corpus until it is removed.
        try folder.write("MigrationFixtures/.1.9.0.tmp/App.sqlite", "before")
        try folder.write("MigrationFixtures/.hidden", "not a folder")
        let leftover = fixturekit("verify", "--quiet", folder.url("MigrationFixtures"))
        #expect(leftover.status == 1)
        #expect(leftover.standardError == """
            fixturekit: verify: \(folder.url("MigrationFixtures/.1.9.0.tmp")): unlisted: left by an interrupted run; \
            it may hold data the fixture no longer has (a store before anonymization): run the command again, or remove it
            \(folder.url("MigrationFixtures")): FAILED (1 problem)

            """)
    }

    /// A SHA256SUMS that `find . -type f -exec sha256sum {} +` wrote (`./` before
    /// every name) verifies as `sha256sum -c` verifies it, and fails where it fails.
    @Test func sumsWrittenByFindAndSha256sumVerify() throws {
        let folder = try makeFixture()
        try folder.write("fixture/sub/deeper/b.txt", "b")
        let written = try run(["sh", "-c", "rm SHA256SUMS && find . -type f -exec sha256sum {} + | sort -k 2 > ../SUMS && mv ../SUMS SHA256SUMS"], in: folder.url("fixture"))
        #expect(written.status == 0, "\(written.standardError)")
        #expect(String(decoding: try folder.read("fixture/SHA256SUMS"), as: UTF8.self).contains("  ./sub/deeper/b.txt\n"))
        #expect(try run(["sha256sum", "-c", "--quiet", "SHA256SUMS"], in: folder.url("fixture")).status == 0)
        let result = fixturekit("verify", folder.url("fixture"))
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError == "\(folder.url("fixture")): OK (4 files, 32 B)\n")

        try folder.write("fixture/sub/deeper/b.txt", "c")
        #expect(try run(["sha256sum", "-c", "--quiet", "SHA256SUMS"], in: folder.url("fixture")).status == 1)
        let changed = fixturekit("verify", "--quiet", folder.url("fixture"))
        #expect(changed.status == 1)
        #expect(changed.standardError == "fixturekit: verify: \(folder.url("fixture"))/sub/deeper/b.txt: changed\n\(folder.url("fixture")): FAILED (1 problem)\n")
    }

    @Test func jsonReportParses() throws {
        let folder = try makeFixture()
        try folder.write("fixture/extra", "x")
        let result = fixturekit("verify", "--json", folder.url("fixture"))
        #expect(result.status == 1)
        let report = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        #expect(report?["ok"] as? Bool == false)
        let fixtures = report?["fixtures"] as? [[String: Any]]
        let problems = fixtures?.first?["problems"] as? [[String: Any]]
        #expect(problems?.count == 1)
        #expect(problems?.first?["kind"] as? String == "unlisted")
        #expect(problems?.first?["file"] as? String == "extra")
        #expect(fixtures?.first?["verifiedFiles"] as? Int == 3)
    }

    @Test func verifyNeverWritesIntoTheFixture() throws {
        let folder = try makeFixture()
        let before = try run(["sh", "-c", "find . -printf '%p %s %T@ %m\\n' | sort"], in: folder.url("fixture"))
        _ = fixturekit("verify", folder.url("fixture"))
        _ = fixturekit("verify", "--json", folder.url("fixture/SHA256SUMS"))
        let after = try run(["sh", "-c", "find . -printf '%p %s %T@ %m\\n' | sort"], in: folder.url("fixture"))
        #expect(before.standardOutput == after.standardOutput)
    }

    @Test func sumsReplacesAStaleTemporaryFileAndListsNestedFiles() throws {
        let folder = try TemporaryFolder()
        try folder.write("f/a", "1")
        try folder.write("f/SHA256SUMS.tmp", "left by a killed run")
        try folder.write("f/SHA256SUMS", "old contents")
        let result = fixturekit("sums", "--json", folder.url("f"))
        #expect(result.status == 0)
        #expect(!FileManager.default.fileExists(atPath: folder.url("f/SHA256SUMS.tmp")))
        #expect(String(decoding: try folder.read("f/SHA256SUMS"), as: UTF8.self)
            == "6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b  a\n")
        #expect(fixturekit("verify", folder.url("f")).status == 0)
    }

    @Test func manyFilesHashedInParallelMatchSha256sum() throws {
        let folder = try TemporaryFolder()
        var generator = SystemRandomNumberGenerator()
        for index in 0..<40 {
            let size = index == 0 ? 3 << 20 : Int.random(in: 0...300_000, using: &generator)
            try folder.write("many/file\(index)", (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) })
        }
        #expect(fixturekit("sums", "--jobs", "3", folder.url("many")).status == 0)
        let check = try run(["sha256sum", "-c", "--strict", "--quiet", "SHA256SUMS"], in: folder.url("many"))
        #expect(check.status == 0, "\(check.standardOutput)")
        #expect(fixturekit("verify", "--jobs", "1", folder.url("many")).status == 0)
    }
}
