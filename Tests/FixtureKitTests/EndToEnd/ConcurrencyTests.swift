import Foundation
import Synchronization
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// An `sqlite3` process fed statements in a loop from a thread, until stopped.
final class FeedingProcess: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts `sqlite3 database` and sends it `statement(n)` for n = 0, 1, 2, ...,
    /// pausing `pause` microseconds between statements.
    init(database: String, pause: useconds_t, statement: @escaping @Sendable (Int) -> String) throws {
        signal(SIGPIPE, SIG_IGN)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", "-cmd", ".timeout 10000", database]
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let handle = input.fileHandleForWriting
        Thread.detachNewThread { [self] in
            var count = 0
            while !stopped.load(ordering: .relaxed) {
                guard (try? handle.write(contentsOf: Data((statement(count) + "\n").utf8))) != nil else { break }
                count += 1
                usleep(pause)
            }
            try? handle.close()
            finished.signal()
        }
    }

    /// Stops feeding; `sqlite3` ends at the end of its input.
    func stop() {
        stopped.store(true, ordering: .relaxed)
        finished.wait()
        process.waitUntilExit()
    }
}

/// Captures of a store that other processes write and checkpoint meanwhile: 10
/// of each mode by default; `FIXTUREKIT_TORTURE_RUNS=N` asks for N (`make torture`).
@Suite struct ConcurrencyTests {
    static let accounts = 10
    static let captures = tortureRuns(10)
    static let total = 10_000

    @Test func everyCaptureIsConsistentWhileOthersWriteAndCheckpoint() throws {
        let folder = try TemporaryFolder()
        let store = folder.url("Bank.sqlite")
        let setup = try Database(path: store, options: .init(create: true))
        try setup.execute("PRAGMA journal_mode = WAL")
        try setup.execute("CREATE TABLE accounts (id INTEGER PRIMARY KEY, balance INTEGER NOT NULL)")
        try setup.execute("CREATE TABLE transfers (id INTEGER PRIMARY KEY, amount INTEGER, note TEXT)")
        for id in 0..<Self.accounts { try setup.execute("INSERT INTO accounts VALUES (\(id), \(Self.total / Self.accounts))") }
        try setup.close()

        // One statement moves money, so the total holds after every commit.
        let writer = try FeedingProcess(database: store, pause: 2000) { n in
            let from = n % Self.accounts, to = (n * 7 + 3) % Self.accounts, amount = n % 13 + 1
            return "BEGIN IMMEDIATE; UPDATE accounts SET balance = balance + CASE id WHEN \(from) THEN -\(amount) WHEN \(to) THEN \(amount) ELSE 0 END WHERE id IN (\(from), \(to)); INSERT INTO transfers (amount, note) VALUES (\(amount), hex(randomblob(200))); COMMIT;"
        }
        // Passive checkpoints, as SQLite's automatic ones, every 10 ms.
        let checkpointer = try FeedingProcess(database: store, pause: 10_000) { _ in "PRAGMA wal_checkpoint(PASSIVE);" }
        defer {
            writer.stop()
            checkpointer.stop()
        }
        // Let the writer get going.
        let deadline = Date().addingTimeInterval(10)
        while ((try? Database(path: store).scalar("SELECT count(*) FROM transfers")?.integer) ?? nil) ?? 0 < 20, Date() < deadline { usleep(10_000) }

        var captured: [CaptureMode: Int] = [:]
        var transfersSeen = Set<Int64>()
        for (modeIndex, mode) in CaptureMode.allCases.enumerated() {
            for index in 0..<Self.captures {
                let version = "1.\(modeIndex).\(index)"
                let result: CaptureResult
                do {
                    result = try Capture.capture(store: store, version: version, corpus: folder.url("corpus"), mode: mode, anonymize: .synthetic)
                } catch {
                    Issue.record("\(mode) capture \(index): \(error)")
                    continue
                }
                let copy = try TemporaryFolder()
                for name in try FileManager.default.contentsOfDirectory(atPath: result.fixture) where name.hasPrefix("Bank.sqlite") {
                    try FileManager.default.copyItem(atPath: result.fixture + "/" + name, toPath: copy.url(name))
                }
                let database = try Database(path: copy.url("Bank.sqlite"))
                #expect(try database.scalar("PRAGMA integrity_check") == .text("ok"), "\(mode) capture \(index)")
                #expect(try database.scalar("SELECT sum(balance) FROM accounts") == .integer(Int64(Self.total)), "\(mode) capture \(index)")
                #expect(try database.scalar("SELECT count(*) FROM transfers")?.integer == Int64(result.manifest.tables["transfers"] ?? -1))
                // The content hash is the copy's (a snapshot's is read alongside the copy).
                #expect(try database.contentHash().hex == result.manifest.contentHash, "\(mode) capture \(index)")
                transfersSeen.insert(try database.scalar("SELECT count(*) FROM transfers")?.integer ?? 0)
                try database.close()
                #expect(try Verifier.verify(result.fixture).allSatisfy(\.passed))
                try FileManager.default.removeItem(atPath: result.fixture)
                captured[mode, default: 0] += 1
            }
        }
        #expect(captured == [.snapshot: Self.captures, .checkpoint: Self.captures, .raw: Self.captures])
        // The writer really was writing while the captures ran.
        #expect(transfersSeen.count > 10)
    }
}
