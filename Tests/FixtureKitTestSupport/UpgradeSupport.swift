import Foundation
@testable import FixtureKit

/// The journal modes a live store of the tests is built in.
enum JournalMode: String, CaseIterable, Sendable {
    /// Commits left in the `-wal`, never checkpointed: the hard case.
    case wal
    case rollback
}

extension NotesCorpus {
    /// `userVersions` for the three versions, as `upgrade` needs them.
    static let userVersions = ["1.0.0": 1, "2.0.0": 2, "3.0.0": 3]

    /// A corpus whose configuration tells versions by `user_version`.
    static func forUpgrade() throws -> NotesCorpus {
        let notes = try NotesCorpus()
        try notes.writeConfig { $0["userVersions"] = userVersions }
        return notes
    }

    /// A live store of version 1.0.0 (`user_version` 1) at `folder/App.sqlite`,
    /// with `notes` notes each committed on its own. In WAL mode every commit stays
    /// in the `-wal`: the connection never checkpoints and is closed without one,
    /// which leaves the main file, `-wal` and `-shm` of a killed app.
    @discardableResult
    static func liveStore(in folder: String, mode: JournalMode = .wal, notes: Int = 30, userVersion: Int = 1) throws -> String {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/App.sqlite"
        let database = try Database(path: path, options: .init(create: true))
        try database.execute("PRAGMA page_size = 4096")
        if mode == .wal {
            try database.execute("PRAGMA journal_mode = WAL")
            database.disableAutomaticCheckpoint()
            try database.setCheckpointOnClose(false)
        }
        try database.execute(schema1 + "PRAGMA user_version = \(userVersion);")
        for index in 1...notes {
            try database.execute("INSERT INTO notes (uuid, title, body) VALUES ('K\(index)', '\(index == 1 ? "Groceries" : "Note \(index)")', 'Body \(index)')")
        }
        try database.execute("INSERT INTO drafts (text) VALUES ('draft one')")
        try database.close()
        return path
    }
}

/// The SHA-256 of every file directly in `folder` (hidden ones aside: the backup
/// folder), by name: what "byte-identical" is checked against.
func storeFiles(_ folder: String) throws -> [String: String] {
    var files: [String: String] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: folder) where !name.hasPrefix(".") {
        var isFolder: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder)
        guard !isFolder.boolValue else { continue }
        files[name] = try FileHasher().digest(ofFileAt: folder + "/" + name).digest.hex
    }
    return files
}

/// A connection to a copy of the store at `path` and its `-wal`, in a folder
/// that goes away with the returned value: the store's own files are never opened.
func openCopy(ofStoreAt path: String) throws -> (TemporaryFolder, Database) {
    let scratch = try TemporaryFolder()
    let folder = (path as NSString).deletingLastPathComponent
    let name = (path as NSString).lastPathComponent
    for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: folder + "/" + name + suffix) {
        try FileManager.default.copyItem(atPath: folder + "/" + name + suffix, toPath: scratch.url(name + suffix))
    }
    let database = try Database(path: scratch.url(name))
    return (scratch, database)
}

/// Everything a store holds, as text: `user_version`, the schema, every row of
/// every table in rowid order. Read from a copy of the store set, so the store's
/// own files are never opened. Two stores with the same text hold the same data.
func contents(ofStoreAt path: String) throws -> String {
    let (scratch, database) = try openCopy(ofStoreAt: path)
    defer { withExtendedLifetime(scratch) {} }
    var text = "user_version \(try database.scalar("PRAGMA user_version")?.description ?? "?")\n"
    for row in try database.rows("SELECT type, name, sql FROM sqlite_schema ORDER BY type, name") {
        text += row.map(\.description).joined(separator: " | ") + "\n"
    }
    for table in try database.rows("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name") {
        let name = table[0].description
        text += "table \(name)\n"
        for row in try database.rows("SELECT * FROM \(quotedIdentifier(name)) ORDER BY rowid") {
            text += row.map(\.description).joined(separator: " | ") + "\n"
        }
    }
    return text
}

/// `PRAGMA integrity_check` of a copy of the store set.
func integrity(ofStoreAt path: String) throws -> String {
    let (scratch, database) = try openCopy(ofStoreAt: path)
    defer { withExtendedLifetime(scratch) {} }
    return try database.rows("PRAGMA integrity_check").map { $0[0].description }.joined(separator: "\n")
}

/// An `sqlite3` process that holds a store: it runs `statements`, prints a line
/// when they are done, and keeps its connection until ``finish()``.
final class HoldingProcess {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    init(store: String, statements: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", store]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data((statements + "\nSELECT 'holding';\n").utf8))
        // Wait until the statements have run: the lock is then held.
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("holding") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += chunk
        }
    }

    /// Ends the process: its input closes and `sqlite3` exits.
    func finish() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit { if process.isRunning { finish() } }
}
