import Foundation
@testable import FixtureKitModels
@testable import FixtureKitSQLite
@testable import FixtureKitSystem

/// A store built in a fresh folder for one test; the folder goes with it.
final class TestStore {
    let scratch: ScratchFolder
    let path: String
    /// Open while the test holds the store, so that its `-wal` and `-shm` stay.
    private(set) var database: Database?

    var folder: String { scratch.path }

    /// Creates `App.sqlite` with `pageSize`, in WAL mode or with a rollback journal;
    /// `prepare` runs before the journal mode is set (e.g. `PRAGMA encoding`).
    init(pageSize: Int = 4096, wal: Bool = false, prepare: String = "") throws {
        scratch = try ScratchFolder(prefix: "fixturekit-models-test")
        path = scratch.path + "/App.sqlite"
        let database = try Database(path: path, options: .init(create: true))
        try database.execute("PRAGMA page_size = \(pageSize)")
        if !prepare.isEmpty { try database.execute(prepare) }
        if wal {
            try database.execute("PRAGMA journal_mode = WAL")
            database.disableAutomaticCheckpoint()
            try database.setCheckpointOnClose(false)
        }
        self.database = database
    }

    /// The open connection.
    var db: Database { database! }

    /// Closes the connection (a rollback-journal store is then complete in its main file).
    func close() throws {
        try database?.close()
        database = nil
    }

    /// Runs each statement in its own transaction.
    func commit(_ statements: [String]) throws {
        for statement in statements { try db.execute(statement) }
    }

    func integer(_ sql: String) throws -> Int64 {
        try db.scalar(sql)?.integer ?? -1
    }

    func bytes(_ suffix: String = "") throws -> [UInt8] {
        try POSIX.readFile(path + suffix, limit: 1 << 30)
    }

    /// Copies the main file and `wal` (as `-wal`) into a fresh folder and counts
    /// the rows of `table` as SQLite sees them there; `nil` when it has no such table.
    func rowCount(withWAL wal: [UInt8], table: String = "notes") throws -> Int64? {
        let copy = try ScratchFolder(prefix: "fixturekit-models-copy")
        try Data(try bytes()).write(to: URL(fileURLWithPath: copy.path + "/App.sqlite"))
        try Data(wal).write(to: URL(fileURLWithPath: copy.path + "/App.sqlite-wal"))
        let database = try Database(path: copy.path + "/App.sqlite")
        guard try database.scalar("SELECT count(*) FROM sqlite_schema WHERE name = ?1", [.text(table)]) == .integer(1) else { return nil }
        return try database.scalar("SELECT count(*) FROM \(table)")?.integer ?? -1
    }
}

extension Array where Element == UInt8 {
    func uint32BigEndian(at offset: Int) -> UInt32 {
        self[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    func uint32LittleEndian(at offset: Int) -> UInt32 {
        self[offset..<(offset + 4)].reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func setBigEndian(_ value: UInt32, at offset: Int) {
        for index in 0..<4 { self[offset + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * index)) }
    }

    mutating func setLittleEndian(_ value: UInt32, at offset: Int) {
        for index in 0..<4 { self[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
    }

    /// A copy with `bits` flipped in the byte at `offset`.
    func flipping(_ offset: Int, bits: UInt8 = 0x01) -> [UInt8] {
        var copy = self
        copy[offset] ^= bits
        return copy
    }
}
