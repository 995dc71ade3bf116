import Foundation
import Testing
@testable import FixtureKit

/// `kill -9` at random moments of every command that writes (fixed seed): no
/// file half-written under a final name, the next run cleans up, no store lost.
/// `make test` kills each command a few times; `make torture` sets
/// FIXTUREKIT_TORTURE_RUNS for a long soak.
@Suite(.serialized) struct TortureTests {
    static let runs = Int(ProcessInfo.processInfo.environment["FIXTUREKIT_TORTURE_RUNS"] ?? "") ?? 6

    /// A deterministic generator (SplitMix64), so a failing run can be replayed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

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

    /// Files under `folder` whose names say they are work in progress.
    static func leftovers(_ folder: String) -> [String] {
        let names = (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String]) ?? []
        return names.filter { $0.hasSuffix(".tmp") || $0.contains("/.") && $0.hasSuffix(".tmp") || $0.hasSuffix(".old") }
    }

    /// One command tortured: `setUp` makes its input, `arguments` kills it
    /// half-way, `check` says whether what is under final names is whole.
    func torture(
        _ name: String, seed: UInt64, maxDelay: useconds_t,
        setUp: (TemporaryFolder) throws -> [String],
        check: (TemporaryFolder) throws -> Bool,
        environment: [String: String] = [:]
    ) throws {
        var generator = SeededGenerator(state: seed)
        var killed = 0
        var broken = 0
        for _ in 0..<Self.runs {
            let folder = try TemporaryFolder()
            let arguments = try setUp(folder)
            if try Self.killDuring(arguments, after: useconds_t.random(in: 0...maxDelay, using: &generator), environment: environment) { killed += 1 }
            // What is under its final name is whole (the old state or the new one).
            if try !check(folder) { broken += 1 }
            // The next run finishes the job and leaves no work in progress behind.
            let again = fixturekit(arguments + (arguments.first == "capture" || arguments.first == "unpack" ? ["--force"] : []), environment: environment)
            #expect(again.status == 0, "\(name): the run after the kill: \(again.standardError)")
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
            ["capture", try Self.liveStore(folder), "--version", "1.0.0", "--corpus", folder.url("corpus")]
        }, check: { folder in Self.fixtureVerifiesOrIsAbsent(folder.url("corpus/1.0.0")) })
    }

    @Test func checkpointOfAFixture() throws {
        try torture("checkpoint", seed: 3, maxDelay: 150_000, setUp: { folder in
            try FileManager.default.createDirectory(atPath: folder.url("live"), withIntermediateDirectories: true)
            let store = try HeldWALStore(in: folder.url("live"), notes: 300)
            _ = try Capture.capture(store: store.path, version: "1.0.0", corpus: folder.url("corpus"), mode: .raw)
            return ["checkpoint", folder.url("corpus/1.0.0")]
        }, check: { folder in
            // The fixture is there, whole, before or after the checkpoint: never lost.
            FileManager.default.fileExists(atPath: folder.url("corpus/1.0.0")) && Self.fixtureVerifiesOrIsAbsent(folder.url("corpus/1.0.0"))
        })
    }

    @Test func packAndUnpack() throws {
        try torture("pack", seed: 4, maxDelay: 150_000, setUp: { folder in
            _ = try Capture.capture(store: try Self.liveStore(folder), version: "1.0.0", corpus: folder.url("corpus"), mode: .snapshot)
            return ["pack", folder.url("corpus/1.0.0"), "-o", folder.url("App-1.0.0.tar.zst")]
        }, check: { folder in
            let archive = folder.url("App-1.0.0.tar.zst")
            guard FileManager.default.fileExists(atPath: archive) else { return true }
            return (try? FixtureArchive.verify(archive).passed) ?? false
        })
        try torture("unpack", seed: 5, maxDelay: 150_000, setUp: { folder in
            _ = try Capture.capture(store: try Self.liveStore(folder), version: "1.0.0", corpus: folder.url("corpus"), mode: .snapshot)
            _ = try FixtureArchive.pack(folder.url("corpus/1.0.0"), options: PackOptions(output: folder.url("a.tar.zst")))
            return ["unpack", folder.url("a.tar.zst"), folder.url("out")]
        }, check: { folder in Self.fixtureVerifiesOrIsAbsent(folder.url("out")) })
    }
}
