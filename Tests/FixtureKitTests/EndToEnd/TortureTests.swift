import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// `kill -9` at random moments of every command that writes (fixed seed): no
/// file half-written under a final name, the next run cleans up, no store lost.
/// `make test` kills each command twice; `make torture` sets
/// FIXTUREKIT_TORTURE_RUNS for a long soak.
@Suite(.serialized) struct TortureTests {
    static let runs = tortureRuns(2)

    /// Starts the built tool, kills it after `delay` microseconds (if it is still running).
    static func killDuring(_ arguments: [String], after delay: useconds_t, environment: [String: String] = [:]) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: toolExecutable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        usleep(delay)
        let killed = process.isRunning
        if killed { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return killed
    }

    /// Files under `folder` whose names say they are work in progress: `*.tmp`,
    /// `*.old`, and hidden work folders (`.1.0.0.tmp/`, `.fixturekit-raw/`).
    static func leftovers(_ folder: String) -> [String] {
        let names = (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String]) ?? []
        return names.filter { $0.hasSuffix(".tmp") || $0.hasSuffix(".old") || $0.hasPrefix(".") || $0.contains("/.") }
    }

    /// One command tortured: `setUp` makes its input, `arguments` kills it
    /// half-way, `check` says whether what is under final names is whole.
    func torture(
        _ name: String, seed: UInt64, maxDelay: useconds_t,
        setUp: (TemporaryFolder) throws -> [String],
        check: (TemporaryFolder) throws -> Bool,
        environment: [String: String] = [:],
        again: (([String]) -> [String])? = nil
    ) throws {
        var generator = SplitMix64(seed: seed)
        var killed = 0
        var broken = 0
        for _ in 0..<Self.runs {
            let folder = try TemporaryFolder()
            let arguments = try setUp(folder)
            if try Self.killDuring(arguments, after: useconds_t.random(in: 0...maxDelay, using: &generator), environment: environment) { killed += 1 }
            // What is under its final name is whole (the old state or the new one).
            if try !check(folder) { broken += 1 }
            // The next run finishes the job and leaves no work in progress behind.
            let next = again?(arguments) ?? arguments + (arguments.first == "capture" || arguments.first == "unpack" ? ["--force"] : [])
            let rerun = fixturekit(next, environment: environment)
            #expect(rerun.status == 0, "\(name): the run after the kill: \(rerun.standardError)")
            #expect(try check(folder), "\(name): after the next run")
            #expect(Self.leftovers(folder.path).isEmpty, "\(name): left \(Self.leftovers(folder.path))")
        }
        #expect(broken == 0, "\(name): \(broken) of \(Self.runs) kills left a broken file under a final name")
        print("torture: \(name): \(Self.runs) runs, \(killed) killed mid-run, \(broken) broken")
    }

    static func liveStore(_ folder: TemporaryFolder) throws -> String {
        let database = try Database(path: folder.url("App.sqlite"), options: .init(create: true))
        try database.execute("PRAGMA journal_mode = WAL; CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
        try database.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) INSERT INTO notes (body) SELECT printf('%.200c', 'x') || i FROM n")
        try database.close()
        return folder.url("App.sqlite")
    }

    static func fixtureVerifiesOrIsAbsent(_ path: String) -> Bool {
        guard FileManager.default.fileExists(atPath: path) else { return true }
        return (try? Verifier.verify(path).allSatisfy(\.passed)) ?? false
    }

    @Test func sums() throws {
        try torture("sums", seed: 1, maxDelay: 60_000, setUp: { folder in
            for index in 0..<20 { try folder.write("f/file\(index)", Array(repeating: UInt8(index), count: 400_000)) }
            try folder.write("f/SHA256SUMS", "old contents\n")
            return ["sums", folder.url("f")]
        }, check: { folder in
            let text = String(decoding: try folder.read("f/SHA256SUMS"), as: UTF8.self)
            if text == "old contents\n" { return true }
            return try Verifier.verify(folder.url("f")).allSatisfy(\.passed)
        })
    }

    @Test func capture() throws {
        try torture("capture", seed: 2, maxDelay: 200_000, setUp: { folder in
            ["capture", "--no-anonymize", try Self.liveStore(folder), "--version", "1.0.0", "--corpus", folder.url("corpus")]
        }, check: { folder in Self.fixtureVerifiesOrIsAbsent(folder.url("corpus/1.0.0")) })
    }

    @Test func checkpointOfAFixture() throws {
        try torture("checkpoint", seed: 3, maxDelay: 150_000, setUp: { folder in
            try FileManager.default.createDirectory(atPath: folder.url("live"), withIntermediateDirectories: true)
            let store = try HeldWALStore(in: folder.url("live"), notes: 300)
            _ = try Capture.capture(store: store.path, version: "1.0.0", corpus: folder.url("corpus"), mode: .raw, anonymize: .synthetic)
            return ["checkpoint", folder.url("corpus/1.0.0")]
        }, check: { folder in
            // The fixture is there, whole, before or after the checkpoint: never lost.
            FileManager.default.fileExists(atPath: folder.url("corpus/1.0.0")) && Self.fixtureVerifiesOrIsAbsent(folder.url("corpus/1.0.0"))
        })
    }

    @Test func packAndUnpack() throws {
        try torture("pack", seed: 4, maxDelay: 150_000, setUp: { folder in
            _ = try Capture.capture(store: try Self.liveStore(folder), version: "1.0.0", corpus: folder.url("corpus"), mode: .snapshot, anonymize: .synthetic)
            return ["pack", folder.url("corpus/1.0.0"), "-o", folder.url("App-1.0.0.tar.zst")]
        }, check: { folder in
            let archive = folder.url("App-1.0.0.tar.zst")
            guard FileManager.default.fileExists(atPath: archive) else { return true }
            return (try? FixtureArchive.verify(archive).passed) ?? false
        })
        try torture("unpack", seed: 5, maxDelay: 150_000, setUp: { folder in
            _ = try Capture.capture(store: try Self.liveStore(folder), version: "1.0.0", corpus: folder.url("corpus"), mode: .snapshot, anonymize: .synthetic)
            _ = try FixtureArchive.pack(folder.url("corpus/1.0.0"), options: PackOptions(output: folder.url("a.tar.zst")))
            return ["unpack", folder.url("a.tar.zst"), folder.url("out")]
        }, check: { folder in Self.fixtureVerifiesOrIsAbsent(folder.url("out")) })
    }

    // MARK: - anonymize

    static let anonymizationKey = ["FIXTUREKIT_ANON_KEY": "a-torture-key-that-is-long-enough-0123"]
    /// Every personal value of ``personalStore(in:)`` holds one of these.
    static let personalMarkers = ["@planted-mail.org", "Quackenbush", "xylophonic"]
    static let anonymizationRules = """
        {"keyEnv": "FIXTUREKIT_ANON_KEY", "tables": {"people": {
          "id": "keep",
          "email": {"strategy": "pseudonym", "format": "email"},
          "name": {"strategy": "fake", "kind": "name"},
          "bio": {"strategy": "fake", "kind": "text"}}}}
        """

    /// People in ``personalStore(in:)``: `make torture` four times as many.
    static let people = tortureSize(1500, torture: 6000)

    /// `folder/App.sqlite`, a WAL store of ``people`` people whose last sixth live only
    /// in its `-wal`: anonymizing it takes long enough for kills to land inside.
    /// (A kill that lands after the run ended has the next run anonymize fake
    /// text again, whose leak scan is the slowest of all: see docs/known-limits.md.)
    static func personalStore(in folder: String) throws -> String {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/App.sqlite"
        let database = try Database(path: path, options: .init(create: true))
        try database.execute("CREATE TABLE people (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT, bio TEXT)")
        func insert(_ first: Int, _ last: Int) -> String {
            "WITH RECURSIVE n(i) AS (SELECT \(first) UNION ALL SELECT i + 1 FROM n WHERE i < \(last)) INSERT INTO people SELECT i, 'person' || i || '@planted-mail.org', 'Quackenbush ' || i, 'xylophonic note ' || i || ' ' || printf('%.100c', 'z') FROM n"
        }
        try database.execute(insert(1, people * 5 / 6))
        try database.execute("PRAGMA journal_mode = WAL")
        database.disableAutomaticCheckpoint()
        try database.setCheckpointOnClose(false)
        try database.execute(insert(people * 5 / 6 + 1, people))
        try database.close()
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        return path
    }

    /// The personal markers found in the files below `folder`.
    static func personalValues(below folder: String) throws -> [String] {
        var found: [String] = []
        for (name, bytes) in try snapshotOfFiles(folder).sorted(by: { $0.key < $1.key }) {
            let data = Data(bytes)
            for marker in personalMarkers where data.range(of: Data(marker.utf8)) != nil { found.append("\(marker) in \(name)") }
        }
        return found
    }

    /// Runs the built tool to its end; how long it took.
    static func timedRun(_ arguments: [String], environment: [String: String]) throws -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        let result = try run([toolExecutable] + arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { _, new in new })
        #expect(result.status == 0, "\(arguments): \(result.standardError)")
        return clock.now - start
    }

    /// Kills land up to a little after a whole run would have ended.
    static func killWindow(_ duration: Duration) -> useconds_t {
        useconds_t(duration.components.seconds * 1_200_000 + duration.components.attoseconds / 833_333_333_333)
    }

    /// A store anonymized into `--output`: the output is absent or the whole
    /// anonymized store (byte for byte the one an uninterrupted run writes, no
    /// sidecar beside it), and the input store set is never touched.
    @Test func anonymizeAStore() throws {
        let template = try TemporaryFolder()
        _ = try Self.personalStore(in: template.url("input"))
        try template.write("rules.json", Self.anonymizationRules)
        let input = try snapshotOfFiles(template.url("input"))
        // An uninterrupted run: the reference bytes, and how long a run takes.
        try FileManager.default.createDirectory(atPath: template.url("out"), withIntermediateDirectories: true)
        let duration = try Self.timedRun(
            ["anonymize", template.url("input/App.sqlite"), "--rules", template.url("rules.json"), "-o", template.url("out/Anon.sqlite")],
            environment: Self.anonymizationKey)
        let reference = try template.read("out/Anon.sqlite")
        #expect(try Self.personalValues(below: template.url("out")) == [])
        #expect(try Self.personalValues(below: template.url("input")).contains("Quackenbush in App.sqlite-wal"))

        try torture("anonymize (store)", seed: 6, maxDelay: Self.killWindow(duration), setUp: { folder in
            try FileManager.default.copyItem(atPath: template.url("input"), toPath: folder.url("input"))
            try FileManager.default.copyItem(atPath: template.url("rules.json"), toPath: folder.url("rules.json"))
            try FileManager.default.createDirectory(atPath: folder.url("out"), withIntermediateDirectories: true)
            return ["anonymize", folder.url("input/App.sqlite"), "--rules", folder.url("rules.json"), "-o", folder.url("out/Anon.sqlite")]
        }, check: { folder in
            guard try snapshotOfFiles(folder.url("input")) == input else { return false }
            let visible = try FileManager.default.contentsOfDirectory(atPath: folder.url("out")).filter { !$0.hasPrefix(".") }
            if visible.isEmpty { return true }
            guard visible == ["Anon.sqlite"] else { return false }
            return try folder.read("out/Anon.sqlite") == reference
        }, environment: Self.anonymizationKey, again: { $0 + ["--force"] })
    }

    /// A fixture anonymized in place: it is the original, byte for byte, or
    /// anonymized (no personal value in any of its bytes), and it verifies.
    @Test func anonymizeAFixture() throws {
        let template = try TemporaryFolder()
        _ = try Capture.capture(store: try Self.personalStore(in: template.url("live")), version: "1.0.0", corpus: template.url("corpus"), mode: .snapshot, anonymize: .synthetic)
        try template.write("rules.json", Self.anonymizationRules)
        let original = try snapshotOfFiles(template.url("corpus/1.0.0"))
        let timing = try TemporaryFolder()
        try FileManager.default.copyItem(atPath: template.url("corpus"), toPath: timing.url("corpus"))
        let duration = try Self.timedRun(["anonymize", timing.url("corpus/1.0.0"), "--rules", template.url("rules.json")], environment: Self.anonymizationKey)
        #expect(try Self.personalValues(below: timing.url("corpus")) == [])

        try torture("anonymize (fixture)", seed: 7, maxDelay: Self.killWindow(duration), setUp: { folder in
            try FileManager.default.copyItem(atPath: template.url("corpus"), toPath: folder.url("corpus"))
            try FileManager.default.copyItem(atPath: template.url("rules.json"), toPath: folder.url("rules.json"))
            return ["anonymize", folder.url("corpus/1.0.0"), "--rules", folder.url("rules.json")]
        }, check: { folder in
            let fixture = folder.url("corpus/1.0.0")
            // Never lost: the fixture is there, the original or the anonymized one.
            guard FileManager.default.fileExists(atPath: fixture) else { return false }
            if try snapshotOfFiles(fixture) == original { return true }
            let manifest = try Manifest.decode(try folder.read("corpus/1.0.0/manifest.json"))
            let leftInBytes = try Self.personalValues(below: fixture)
            return manifest.anonymization?.mode == "rules" && leftInBytes.isEmpty && Self.fixtureVerifiesOrIsAbsent(fixture)
        }, environment: Self.anonymizationKey)
    }

    /// A locked, archived fixture anonymized with `--force`: the fixture is
    /// never lost, and once no replacement is pending (its journal), the
    /// folder, its archive and the lock agree; the next run finishes one.
    @Test func anonymizeAnArchivedFixture() throws {
        let template = try TemporaryFolder()
        try template.write("corpus/fixturekit.json", #"{"store": "App.sqlite", "current": "1.0.0", "supported": []}"#)
        _ = try Capture.capture(store: try Self.personalStore(in: template.url("live")), version: "1.0.0", corpus: template.url("corpus"), mode: .snapshot, anonymize: .synthetic)
        _ = try FixtureArchive.pack(template.url("corpus/1.0.0"))
        try template.write("rules.json", Self.anonymizationRules)
        let timing = try TemporaryFolder()
        try FileManager.default.copyItem(atPath: template.url("corpus"), toPath: timing.url("corpus"))
        let duration = try Self.timedRun(["anonymize", timing.url("corpus/1.0.0"), "--rules", template.url("rules.json"), "--force"], environment: Self.anonymizationKey)

        try torture("anonymize (archived fixture)", seed: 8, maxDelay: Self.killWindow(duration), setUp: { folder in
            try FileManager.default.copyItem(atPath: template.url("corpus"), toPath: folder.url("corpus"))
            try FileManager.default.copyItem(atPath: template.url("rules.json"), toPath: folder.url("rules.json"))
            return ["anonymize", folder.url("corpus/1.0.0"), "--rules", folder.url("rules.json"), "--force"]
        }, check: { folder in
            let corpus = folder.url("corpus")
            guard try Checksums.verifyFolder(corpus + "/1.0.0").passed else { return false }
            // A decided replacement is the next run's to finish.
            if FixtureReplacement.isPending(corpus + "/1.0.0") { return true }
            // Else everything agrees, but for the work folders of a run stopped before it decided.
            return try Verifier.verify(corpus).allSatisfy { result in
                result.passed || result.problems.allSatisfy { $0.kind == .unlisted && $0.file.hasPrefix(".") && $0.file.hasSuffix(".tmp") }
            }
        }, environment: Self.anonymizationKey)
    }
}
