import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// `fixturekit.lock`: shipped history cannot change silently. Every test plays the
/// one who changes it: by hand, by re-blessing with the tools, by replacing files.
@Suite struct LockTests {
    /// The Notes corpus, adopted with `fixturekit lock`.
    static func locked() throws -> NotesCorpus {
        let notes = try NotesCorpus()
        let adopted = fixturekit("lock", notes.corpus)
        #expect(adopted.status == 0, "\(adopted.standardError)")
        return notes
    }

    /// The lock's fact lines, without the header.
    static func lines(_ notes: NotesCorpus) throws -> Set<String> {
        Set(String(decoding: try notes.folder.read("MigrationFixtures/fixturekit.lock"), as: UTF8.self).split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") })
    }

    /// What changed between two versions of the lock: the lines only in each.
    static func diff(_ before: Set<String>, _ after: Set<String>) -> (removed: [String], added: [String]) {
        (before.subtracting(after).sorted(), after.subtracting(before).sorted())
    }

    /// Re-blesses a fixture the way someone without fixturekit would: coreutils' sha256sum.
    static func reblessByHand(_ folder: String) throws {
        let listing = try run(["sh", "-c", "sha256sum $(ls | grep -v '^SHA256SUMS$') > SHA256SUMS"], in: folder)
        #expect(listing.status == 0, "\(listing.standardError)")
    }

    static func edit(_ store: String, _ sql: String) throws {
        #expect(try run(["sqlite3", store, sql]).status == 0)
    }

    @Test func lockAdoptsAnExistingCorpus() throws {
        let notes = try NotesCorpus()
        // Without a lock, nothing is checked against one.
        #expect(fixturekit("verify", "--quiet", notes.corpus).status == 0)
        let adopted = fixturekit("lock", notes.corpus)
        #expect(adopted.status == 0)
        #expect(adopted.standardError.hasSuffix("\(notes.corpus)/fixturekit.lock: 10 lines, 10 changes (review them before committing)\n"), "\(adopted.standardError)")
        #expect(adopted.standardError.contains("\(notes.corpus)/fixturekit.lock: added stage 2.0.0 migrations/1.0.0-2.0.0.sql "))
        let text = String(decoding: try notes.folder.read("MigrationFixtures/fixturekit.lock"), as: UTF8.self)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == CorpusLock.header)
        #expect(Array(lines.dropFirst()) == lines.dropFirst().sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(lines.dropFirst().map { $0.split(separator: " ").dropLast().joined(separator: " ") } == [
            "content 1.0.0", "content 2.0.0", "content 3.0.0",
            "declaration 2.0.0 1.0.0", "declaration 3.0.0 2.0.0",
            "stage 2.0.0 migrations/1.0.0-2.0.0.sql", "stage 3.0.0 migrations/2.0.0-3.0.0.sh",
            "sums 1.0.0", "sums 2.0.0", "sums 3.0.0",
        ])
        // Each digest is what it says: the SHA-256 of SHA256SUMS, the content hash of the store.
        let sums = try FixtureKit.SHA256.hash(try notes.folder.read("MigrationFixtures/2.0.0/SHA256SUMS")).hex
        #expect(lines.contains("sums 2.0.0 \(sums)"))
        #expect(lines.contains("content 2.0.0 \(try ContentHash.of(notes.corpus + "/2.0.0").hex)"))
        let verify = fixturekit("verify", notes.corpus)
        #expect(verify.status == 0)
        #expect(verify.standardError.hasSuffix("\(notes.corpus)/fixturekit.lock: OK (10 lines)\n"))
        // Again: nothing to change, nothing written.
        let again = fixturekit("lock", notes.corpus)
        #expect(again.standardError == "\(notes.corpus)/fixturekit.lock: up to date (10 lines)\n")
        #expect(String(decoding: try notes.folder.read("MigrationFixtures/fixturekit.lock"), as: UTF8.self) == text)
        // A folder that is not a corpus has no configuration to lock.
        let bare = fixturekit("lock", notes.corpus + "/1.0.0")
        #expect(bare.status == 2)
        #expect(bare.standardError == "fixturekit: read configuration: \(notes.corpus)/1.0.0/fixturekit.json: no such file (hint: `fixturekit init` writes one; `fixturekit init STORE` also suggests anonymization rules)\n")
    }

    @Test func aHandEditReblessedFailsEveryCheckNamingTheFixture() throws {
        let notes = try Self.locked()
        let fixture = notes.corpus + "/1.0.0"
        try Self.edit(fixture + "/App.sqlite", "UPDATE notes SET title = 'Edited' WHERE uuid = 'K1'")
        let sums = fixturekit("sums", fixture)
        #expect(sums.status == 2)
        #expect(sums.standardError == "fixturekit: sums: \(fixture): the fixture is locked in fixturekit.lock (hint: --force rewrites it and its lock line)\n")
        try Self.reblessByHand(fixture)
        #expect(try run(["sha256sum", "--quiet", "-c", "SHA256SUMS"], in: fixture).status == 0)
        for target in [notes.corpus, fixture] {
            let verify = fixturekit("verify", "--quiet", target)
            #expect(verify.status == 1)
            #expect(verify.standardError == """
                fixturekit: verify: \(fixture)/SHA256SUMS: changed since 1.0.0 was locked
                \(fixture): FAILED (1 problem)

                """)
        }
        let deep = fixturekit("verify", "--deep", "--quiet", fixture)
        #expect(deep.standardError.contains("fixturekit: verify: \(fixture)/App.sqlite: content changed since 1.0.0 was locked\n"), "\(deep.standardError)")
        let migrate = try MigrationRunner.runMatrix(config: notes.config)
        let path = try #require(migrate.paths.first { $0.source == "1.0.0" && $0.kind == .path })
        #expect(path.firstFailure == CheckResult(.fixtureVerifies(version: "1.0.0"), passed: false, message: "\(fixture)/SHA256SUMS: changed since 1.0.0 was locked"))
        let status = fixturekit("status", "--config", notes.config)
        #expect(status.status == 1)
        #expect(status.standardError.contains("problem: fixture 1.0.0 does not verify: SHA256SUMS: changed since 1.0.0 was locked"))
    }

    @Test func theSameWithPackOverTheArchive() throws {
        let notes = try Self.locked()
        let fixture = notes.corpus + "/1.0.0"
        let archive = notes.corpus + "/App-1.0.0.tar.zst"
        let packed = fixturekit("pack", fixture)
        #expect(packed.status == 0)
        // A new archive of a locked version: its line is added.
        #expect(packed.standardError.hasSuffix("\(notes.corpus)/fixturekit.lock: locked 1.0.0: archive App-1.0.0.tar.zst\n"), "\(packed.standardError)")
        #expect(fixturekit("verify", "--quiet", notes.corpus).status == 0)
        try Self.edit(fixture + "/App.sqlite", "DELETE FROM notes WHERE uuid = 'K2'")
        try Self.reblessByHand(fixture)
        let again = fixturekit("pack", fixture)
        #expect(again.status == 2)
        #expect(again.standardError == "fixturekit: pack: \(archive): the archive is locked in fixturekit.lock (hint: --force rewrites it and its lock line)\n")
        // By hand: packed elsewhere, moved over the locked one with a matching .sha256.
        let scratch = try TemporaryFolder()
        #expect(fixturekit("pack", "--quiet", fixture, "-o", scratch.url("App-1.0.0.tar.zst")).status == 0)
        try FileManager.default.removeItem(atPath: archive)
        try FileManager.default.moveItem(atPath: scratch.url("App-1.0.0.tar.zst"), toPath: archive)
        try FileManager.default.removeItem(atPath: archive + ".sha256")
        #expect(try run(["sh", "-c", "sha256sum App-1.0.0.tar.zst > App-1.0.0.tar.zst.sha256"], in: notes.corpus).status == 0)
        let verify = fixturekit("verify", "--quiet", archive)
        #expect(verify.status == 1)
        #expect(verify.standardError == """
            fixturekit: verify: \(archive): changed since 1.0.0 was locked
            \(archive): FAILED (1 problem)

            """)
        let status = fixturekit("status", "--config", notes.config)
        #expect(status.standardError.contains("problem: archive App-1.0.0.tar.zst: changed since 1.0.0 was locked\n"), "\(status.standardError)")
    }

    @Test func anEditedShippedStageFailsNamingTheFile() throws {
        let notes = try Self.locked()
        try notes.folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", NotesCorpus.stage1to2 + "\n-- a fix after the release\n")
        let verify = fixturekit("verify", "--quiet", notes.corpus)
        #expect(verify.status == 1)
        #expect(verify.standardError == """
            fixturekit: verify: \(notes.corpus)/migrations/1.0.0-2.0.0.sql: changed since 2.0.0 was locked
            \(notes.corpus)/fixturekit.lock: FAILED (1 problem)

            """)
        let migrate = fixturekit("migrate", "--config", notes.config)
        #expect(migrate.status == 1)
        #expect(migrate.standardError.contains("      stage 1.0.0 -> 2.0.0: migrations/1.0.0-2.0.0.sql: changed since 2.0.0 was locked\n"))
        #expect(fixturekit("status", "--config", notes.config).standardError.contains("problem: \(notes.corpus)/migrations/1.0.0-2.0.0.sql: changed since 2.0.0 was locked\n"))
        // upgrade refuses before it touches the store.
        try notes.writeConfig { $0["userVersions"] = NotesCorpus.userVersions }
        #expect(fixturekit("lock", "--quiet", notes.corpus).status == 0)
        try notes.folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", NotesCorpus.stage1to2 + "\n-- again\n")
        let live = notes.folder.url("live")
        let store = try NotesCorpus.liveStore(in: live, mode: .rollback)
        let before = try storeFiles(live)
        let upgrade = fixturekit("upgrade", store, "--config", notes.config)
        #expect(upgrade.status == 1)
        #expect(upgrade.standardError.hasSuffix("fixturekit: upgrade: \(store): stage 1.0.0 -> 2.0.0: migrations/1.0.0-2.0.0.sql: changed since 2.0.0 was locked (hint: nothing was changed; `fixturekit verify` lists every difference from the lock)\n"), "\(upgrade.standardError)")
        #expect(try storeFiles(live) == before)
    }

    @Test func aShippedStageReplacedInTheConfigurationIsNamed() throws {
        let notes = try Self.locked()
        try notes.folder.write("MigrationFixtures/migrations/1.0.0-2.0.0-fixed.sql", NotesCorpus.stage1to2)
        try notes.writeConfig { object in
            object["stages"] = [
                ["from": "1.0.0", "to": "2.0.0", "sql": "migrations/1.0.0-2.0.0-fixed.sql"],
                ["from": "2.0.0", "to": "3.0.0", "exec": ["sh", "migrations/2.0.0-3.0.0.sh"]],
            ]
        }
        let verify = fixturekit("verify", "--quiet", notes.corpus)
        #expect(verify.status == 1)
        // The program's script is pinned though `sh` runs it: the same file, the same line.
        #expect(verify.standardError == """
            fixturekit: verify: \(notes.corpus)/fixturekit.json: stage 1.0.0 -> 2.0.0: its declaration (what it runs and how) changed since 2.0.0 was locked
            fixturekit: verify: \(notes.corpus)/fixturekit.json: stage 2.0.0 -> 3.0.0: its declaration (what it runs and how) changed since 3.0.0 was locked
            fixturekit: verify: \(notes.corpus)/migrations/1.0.0-2.0.0-fixed.sql: not locked: 2.0.0 shipped with it, but fixturekit.lock does not record it (`fixturekit lock` adds it, once reviewed)
            fixturekit: verify: \(notes.corpus)/migrations/1.0.0-2.0.0.sql: locked as a stage that shipped with 2.0.0, but fixturekit.json no longer runs it
            \(notes.corpus)/fixturekit.lock: FAILED (4 problems)

            """)
    }

    /// A stage outside the corpus, named by its absolute path, is shown as that
    /// path, never glued to the corpus' (`MigrationFixtures//tmp/...`).
    @Test func aStageOutsideTheCorpusIsNamedByItsOwnPath() throws {
        let notes = try Self.locked()
        let outside = try notes.folder.write("elsewhere/outside.sql", NotesCorpus.stage1to2)
        try notes.writeConfig { object in
            object["stages"] = [
                ["from": "1.0.0", "to": "2.0.0", "sql": outside],
                ["from": "2.0.0", "to": "3.0.0", "exec": ["migrations/2.0.0-3.0.0.sh"]],
            ]
        }
        let verify = fixturekit("verify", "--quiet", notes.corpus)
        #expect(verify.status == 1)
        #expect(verify.standardError.hasPrefix("fixturekit: verify: \(outside): not locked: 2.0.0 shipped with it"), "\(verify.standardError)")
        #expect(!verify.standardError.contains("//"), "\(verify.standardError)")
    }

    @Test func forceRewritesAndTheLockDiffIsOneLinePerFact() throws {
        let notes = try Self.locked()
        let fixture = notes.corpus + "/1.0.0"
        let start = try Self.lines(notes)
        try Self.edit(fixture + "/App.sqlite", "UPDATE notes SET body = 'edited' WHERE uuid = 'K3'")
        let forced = fixturekit("sums", "--force", fixture)
        #expect(forced.status == 0)
        let afterSums = try Self.lines(notes)
        let (removed, added) = Self.diff(start, afterSums)
        #expect(removed.map { $0.split(separator: " ").prefix(2).joined(separator: " ") } == ["content 1.0.0", "sums 1.0.0"])
        #expect(added.map { $0.split(separator: " ").prefix(2).joined(separator: " ") } == ["content 1.0.0", "sums 1.0.0"])
        // It says what it replaced, one line per fact.
        let said = forced.standardError.split(separator: "\n").filter { $0.contains("fixturekit.lock") }
        #expect(said.count == 2)
        #expect(said[0].hasPrefix("\(notes.corpus)/fixturekit.lock: content 1.0.0: replaced \(removed[0].split(separator: " ")[2].prefix(12))… by "))
        #expect(fixturekit("verify", "--quiet", notes.corpus).status == 0)

        // pack --force: the archive's line alone.
        #expect(fixturekit("pack", "--quiet", fixture).status == 0)
        let packed = try Self.lines(notes)
        try Self.edit(fixture + "/App.sqlite", "UPDATE notes SET body = 'edited again' WHERE uuid = 'K3'")
        #expect(fixturekit("sums", "--force", "--quiet", fixture).status == 0)
        let resummed = try Self.lines(notes)
        #expect(fixturekit("pack", "--quiet", "--force", fixture).status == 0)
        let (archiveRemoved, archiveAdded) = Self.diff(resummed, try Self.lines(notes))
        #expect(archiveRemoved.count == 1 && archiveAdded.count == 1)
        #expect(archiveAdded.first?.hasPrefix("archive 1.0.0 App-1.0.0.tar.zst ") == true)
        #expect(Self.diff(packed, resummed).added.count == 2)
    }

    @Test func checkpointOfALockedFixtureKeepsItsContentLine() throws {
        let folder = try TemporaryFolder()
        try folder.write("corpus/fixturekit.json", #"{"store": "App.sqlite", "current": "1.0.0", "supported": [], "stages": []}"#)
        try FileManager.default.createDirectory(atPath: folder.url("live"), withIntermediateDirectories: true)
        let store = try HeldWALStore(in: folder.url("live"), notes: 200)
        let capture = fixturekit("capture", "--no-anonymize", store.path, "--version", "1.0.0", "--corpus", folder.url("corpus"), "--mode", "raw")
        #expect(capture.status == 0)
        // The first fixture of a new corpus starts its lock.
        #expect(capture.standardError.contains("\(folder.url("corpus"))/fixturekit.lock: locked 1.0.0: content, sums\n"), "\(capture.standardError)")
        let fixture = folder.url("corpus/1.0.0")
        let content = try ContentHash.of(fixture)
        let refused = fixturekit("checkpoint", fixture)
        #expect(refused.status == 2)
        #expect(refused.standardError == "fixturekit: checkpoint: \(fixture): the fixture is locked in fixturekit.lock (hint: --force rewrites it and its lock line)\n")
        let lockBefore = String(decoding: try folder.read("corpus/fixturekit.lock"), as: UTF8.self)
        let forced = fixturekit("checkpoint", "--force", fixture)
        #expect(forced.status == 0, "\(forced.standardError)")
        #expect(forced.standardError.contains("\(folder.url("corpus"))/fixturekit.lock: content 1.0.0: unchanged (\(content.hex.prefix(12))…)\n"), "\(forced.standardError)")
        #expect(forced.standardError.contains("\(folder.url("corpus"))/fixturekit.lock: sums 1.0.0: replaced "))
        let lockAfter = String(decoding: try folder.read("corpus/fixturekit.lock"), as: UTF8.self)
        let changed = Set(lockBefore.split(separator: "\n")).symmetricDifference(Set(lockAfter.split(separator: "\n")))
        #expect(changed.allSatisfy { $0.hasPrefix("sums 1.0.0 ") } && changed.count == 2)
        #expect(!FileManager.default.fileExists(atPath: fixture + "/App.sqlite-wal"))
        #expect(try ContentHash.of(fixture) == content)
        #expect(try Manifest.decode(try folder.read("corpus/1.0.0/manifest.json")).contentHash == content.hex)
        #expect(fixturekit("verify", "--deep", "--quiet", folder.url("corpus")).status == 0)
        withExtendedLifetime(store) {}
    }

    @Test func captureAndAnonymizeOfALockedVersionAreRefused() throws {
        let notes = try Self.locked()
        let live = try TemporaryFolder()
        let database = try Database(path: live.url("App.sqlite"), options: .init(create: true))
        try database.execute(NotesCorpus.schema3 + "INSERT INTO folders VALUES (1, 'Inbox');")
        try database.close()
        // Even with its folder gone, a locked version is history.
        try FileManager.default.removeItem(atPath: notes.corpus + "/3.0.0")
        let capture = fixturekit("capture", "--no-anonymize", live.url("App.sqlite"), "--version", "3.0.0", "--corpus", notes.corpus)
        #expect(capture.status == 2)
        #expect(capture.standardError == "fixturekit: capture: \(notes.corpus)/3.0.0: the fixture is locked in fixturekit.lock (hint: --force rewrites it and its lock line)\n")
        #expect(!FileManager.default.fileExists(atPath: notes.corpus + "/3.0.0"))
        #expect(fixturekit("capture", "--no-anonymize", live.url("App.sqlite"), "--version", "3.0.0", "--corpus", notes.corpus, "--force").status == 0)
        #expect(fixturekit("verify", "--quiet", notes.corpus).status == 0)
        try notes.folder.write("rules.json", #"{"tables": {"notes": {"title": "keep"}}}"#)
        let anonymize = fixturekit(["anonymize", notes.corpus + "/1.0.0", "--rules", notes.folder.url("rules.json")], environment: ["FIXTUREKIT_ANON_KEY": "a key of at least sixteen bytes"])
        #expect(anonymize.status == 2)
        #expect(anonymize.standardError == "fixturekit: anonymize: \(notes.corpus)/1.0.0: the fixture is locked in fixturekit.lock (hint: --force rewrites it and its lock line)\n")
    }

    @Test func aLockedVersionRemovedAndAnUnlockedFixtureAdded() throws {
        let notes = try Self.locked()
        try FileManager.default.removeItem(atPath: notes.corpus + "/2.0.0")
        try FileManager.default.copyItem(atPath: notes.corpus + "/3.0.0", toPath: notes.corpus + "/4.0.0")
        let verify = fixturekit("verify", "--quiet", notes.corpus)
        #expect(verify.status == 1)
        #expect(verify.standardError == """
            fixturekit: verify: \(notes.corpus)/4.0.0/SHA256SUMS: not locked: fixturekit.lock has no sums line for 4.0.0 (`fixturekit lock` adds it, once reviewed)
            \(notes.corpus)/4.0.0: FAILED (1 problem)
            fixturekit: verify: \(notes.corpus)/2.0.0: missing: 2.0.0 is locked in fixturekit.lock, but the corpus holds neither its folder nor its archive
            \(notes.corpus)/fixturekit.lock: FAILED (1 problem)

            """)
    }

    @Test func anArchiveWithAWrongChecksumFileFails() throws {
        let folder = try TemporaryFolder()
        try folder.write("f/App.sqlite", "SQLite format 3\0 pretend")
        #expect(fixturekit("sums", "--quiet", folder.url("f")).status == 0)
        #expect(fixturekit("pack", "--quiet", folder.url("f"), "-o", folder.url("a.tar.zst")).status == 0)
        #expect(fixturekit("verify", "--quiet", folder.url("a.tar.zst")).status == 0)
        let actual = try FixtureKit.SHA256.hash(try folder.read("a.tar.zst")).hex
        try folder.write("a.tar.zst.sha256", String(repeating: "0", count: 64) + "  a.tar.zst\n")
        let wrong = fixturekit("verify", "--quiet", folder.url("a.tar.zst"))
        #expect(wrong.status == 1)
        #expect(wrong.standardError == """
            fixturekit: verify: \(folder.url("a.tar.zst")).sha256: does not match the archive: it says 000000000000..., the archive's bytes hash to \(actual.prefix(12))...
            \(folder.url("a.tar.zst")): FAILED (1 problem)

            """)
        for malformed in ["\(actual)  b.tar.zst\n", "\(actual)  a.tar.zst\n\(actual)  a.tar.zst\n", "garbage\n"] {
            try folder.write("a.tar.zst.sha256", malformed)
            let result = fixturekit("verify", "--quiet", folder.url("a.tar.zst"))
            #expect(result.status == 1)
            #expect(result.standardError.hasPrefix("fixturekit: verify: \(folder.url("a.tar.zst")).sha256: not one checksum line for a.tar.zst (`fixturekit pack` writes it)\n"), "\(malformed)")
        }
        try folder.write("a.tar.zst.sha256", "\(actual)  a.tar.zst\n")
        #expect(fixturekit("verify", "--quiet", folder.url("a.tar.zst")).status == 0)
    }

    @Test func theFormatIsReadStrictlyAndWrittenSorted() throws {
        let digest = String(repeating: "ab", count: 32)
        var lock = CorpusLock()
        lock.digests[CorpusLock.Fact(.stage, "2.0.0", "migrations/a b\nc.sql")] = SHA256Digest(hex: digest)
        lock.digests[CorpusLock.Fact(.sums, "10.0.0")] = SHA256Digest(hex: digest)
        lock.digests[CorpusLock.Fact(.sums, "2.0.0")] = SHA256Digest(hex: digest)
        lock.digests[CorpusLock.Fact(.archive, "2.0.0", "My App-2.0.0.tar.zst")] = SHA256Digest(hex: digest)
        let text = String(decoding: lock.rendered(), as: UTF8.self)
        #expect(text == """
            \(CorpusLock.header)
            \\stage 2.0.0 migrations/a b\\nc.sql \(digest)
            archive 2.0.0 My App-2.0.0.tar.zst \(digest)
            sums 10.0.0 \(digest)
            sums 2.0.0 \(digest)

            """)
        #expect(try CorpusLock(parsing: lock.rendered(), path: "l") == lock)
        let bad: [(String, String)] = [
            ("sums 1.0.0 \(digest)\r\n", "line 1: ends with CR: the lock's lines end with LF alone"),
            ("sum 1.0.0 \(digest)\n", "line 1: not a fact of fixturekit.lock (archive, content, declaration, stage or sums, a version, and a SHA-256)"),
            ("# comment\nsums 1.0 \(digest)\n", "line 2: '1.0' is not a semantic version (MAJOR.MINOR.PATCH, then optionally -PRERELEASE and +BUILD, each of [0-9A-Za-z-] separated by dots)"),
            ("sums 1.0.0 \(digest.uppercased())\n", "line 1: not a SHA-256 (64 lower-case hexadecimal digits) at the end"),
            ("sums 1.0.0 \(digest)\nsums 1.0.0 \(digest)\n", "line 2: sums 1.0.0 is given again (first on line 1)"),
            ("archive 1.0.0 ../App.tar.zst \(digest)\n", "line 1: an archive is a file of the corpus, not \"../App.tar.zst\""),
            ("\\sums 1.0.0 \(digest)\n", "line 1: sums has no path to escape"),
            ("stage 1.0.0 \(digest)\n", "line 1: stage needs a path and a SHA-256"),
        ]
        for (bytes, why) in bad {
            #expect(throws: FormatError.self) { try CorpusLock(parsing: Array(bytes.utf8), path: "l") }
            do { _ = try CorpusLock(parsing: Array(bytes.utf8), path: "l") } catch {
                #expect(FixtureKitError(error) == FixtureKitError(what: "read lock", path: "l", why: why, remedy: .rewriteLock))
            }
        }
    }

    @Test func aMalformedLockFailsVerifyAndStopsMigrate() throws {
        let notes = try Self.locked()
        try notes.folder.write("MigrationFixtures/fixturekit.lock", "sums 1.0.0 nothex\n")
        let verify = fixturekit("verify", "--quiet", notes.corpus)
        #expect(verify.status == 1)
        #expect(verify.standardError.contains("fixturekit: verify: \(notes.corpus)/fixturekit.lock: line 1: not a SHA-256 (64 lower-case hexadecimal digits) at the end\n"), "\(verify.standardError)")
        let migrate = try MigrationRunner.runMatrix(config: notes.config)
        #expect(migrate.paths.allSatisfy { !$0.passed })
    }

    @Test func aLockThatIsNotARegularFileIsNeverReadNorFollowed() throws {
        let notes = try Self.locked()
        let lock = notes.corpus + "/fixturekit.lock"
        for kind in ["a FIFO", "a symbolic link"] {
            try FileManager.default.removeItem(atPath: lock)
            if kind == "a FIFO" { #expect(mkfifo(lock, 0o644) == 0) } else { try FileManager.default.createSymbolicLink(atPath: lock, withDestinationPath: notes.corpus + "/1.0.0/SHA256SUMS") }
            let verify = try run([toolExecutable, "verify", "--quiet", notes.corpus])
            #expect(verify.status == 1)
            #expect(verify.standardError.hasSuffix("fixturekit: verify: \(lock): is \(kind), not a regular file\n\(lock): FAILED (1 problem)\n"), "\(verify.standardError)")
            let rewrite = fixturekit("lock", notes.corpus)
            #expect(rewrite.status == 2)
            #expect(rewrite.standardError == "fixturekit: read lock: \(lock): is \(kind), not a regular file (hint: fixturekit writes this file: `fixturekit lock` rewrites it from the corpus)\n")
        }
    }

    @Test func twoCapturesAtOnceKeepBothVersionsLines() throws {
        let notes = try Self.locked()
        let live = try TemporaryFolder()
        for version in ["4.0.0", "5.0.0"] {
            let database = try Database(path: live.url("\(version).sqlite"), options: .init(create: true))
            try database.execute(NotesCorpus.schema3 + "INSERT INTO folders VALUES (1, '\(version)');")
            try database.close()
        }
        for round in 0..<3 {
            let processes = ["4.0.0", "5.0.0"].map { version in
                let process = Process()
                process.executableURL = URL(fileURLWithPath: toolExecutable)
                process.arguments = ["capture", "--no-anonymize", live.url("\(version).sqlite"), "--version", version, "--corpus", notes.corpus, "--force"]
                process.standardError = FileHandle.nullDevice
                return process
            }
            for process in processes { try process.run() }
            for process in processes { process.waitUntilExit(); #expect(process.terminationStatus == 0) }
            let lock = try #require(try CorpusLock.load(corpus: notes.corpus))
            #expect(lock.versions == ["1.0.0", "2.0.0", "3.0.0", "4.0.0", "5.0.0"], "round \(round)")
            #expect(fixturekit("verify", "--quiet", notes.corpus).status == 0, "round \(round)")
        }
    }
}
