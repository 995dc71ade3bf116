import Foundation
import Testing
@testable import FixtureKit

/// A WAL store whose commits stay in its `-wal`: the writer's connection is held
/// open, automatic checkpoints are off, and closing never checkpoints.
final class HeldWALStore {
    let path: String
    let database: Database

    /// Creates `folder/name` with `notes` rows, each committed in its own transaction.
    init(in folder: String, name: String = "App.sqlite", pageSize: Int = 4096, notes: Int = 50) throws {
        path = folder + "/" + name
        database = try Database(path: path, options: .init(create: true))
        try database.execute("PRAGMA page_size = \(pageSize)")
        try database.execute("PRAGMA journal_mode = WAL")
        database.disableAutomaticCheckpoint()
        try database.setCheckpointOnClose(false)
        try database.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, title TEXT)")
        try insert(notes)
    }

    func insert(_ count: Int) throws {
        let start = Int(try database.scalar("SELECT count(*) FROM notes")?.integer ?? 0)
        for index in start..<(start + count) {
            try database.execute("INSERT INTO notes (uuid, title) VALUES ('K\(index)', 'note \(index)')")
        }
    }
}

/// Row count of `table` in a store set, read from a copy in a fresh folder.
func rowCount(ofStoreAt path: String, table: String = "notes") throws -> Int? {
    let scratch = try TemporaryFolder()
    let folder = (path as NSString).deletingLastPathComponent
    let name = (path as NSString).lastPathComponent
    for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: folder + "/" + name + suffix) {
        try FileManager.default.copyItem(atPath: folder + "/" + name + suffix, toPath: scratch.url(name + suffix))
    }
    let database = try Database(path: scratch.url(name))
    guard try database.scalar("SELECT count(*) FROM sqlite_schema WHERE name = ?1", [.text(table)]) == .integer(1) else { return nil }
    return Int(try database.scalar("SELECT count(*) FROM \(table)")?.integer ?? -1)
}

/// Every file below `folder` and its bytes, for asserting that nothing changed.
func snapshotOfFiles(_ folder: String) throws -> [String: [UInt8]] {
    var files: [String: [UInt8]] = [:]
    let enumerator = FileManager.default.enumerator(atPath: folder)
    while let name = enumerator?.nextObject() as? String {
        var isFolder: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder)
        files[name] = isFolder.boolValue ? [] : Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
    }
    return files
}

extension Array where Element == UInt8 {
    /// Writes a big-endian 32-bit number at `offset`.
    mutating func putBigEndian(_ value: UInt32, at offset: Int) {
        for index in 0..<4 { self[offset + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(index))) }
    }

    func bigEndianValue(at offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(self[offset + $1]) }
    }
}
