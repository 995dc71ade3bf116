import Foundation
import Testing
@testable import FixtureKit

/// A store holding planted personal data everywhere SQLite keeps bytes: live
/// rows, a second table joined on e-mail, an FTS5 index over the personal text,
/// a deleted row left in free pages, and commits that live only in the `-wal`
/// (its connection is held open, so the `-wal` keeps them).
final class PlantedStore {
    /// Values that must be nowhere in an anonymized output, in any case.
    static let planted = [
        "zebulon.quackenbush@planted-mail.org", "Zebulon Quackenbush", "quackenbush", "+33 6 98 76 54 32",
        "Zebulon confided his xylophonic divorce", "xylophonic",
        "ottilie.vandermeer@planted-mail.org", "Ottilie Vandermeer", "vandermeer",
        // Only in a deleted row, whose bytes stay in free pages:
        "deleted.person@planted-mail.org", "Deletedia Freepageson",
        // Only in the -wal:
        "walter.walcommit@planted-mail.org", "Walter Walcommit", "walcommit",
    ]

    let path: String
    let database: Database

    init(in folder: String) throws {
        path = folder + "/App.sqlite"
        database = try Database(path: path, options: .init(create: true))
        try database.execute("PRAGMA page_size = 4096; PRAGMA secure_delete = OFF")
        try database.execute("""
            CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT, phone TEXT, bio TEXT, born TEXT);
            CREATE TABLE orders (id INTEGER PRIMARY KEY, email TEXT NOT NULL, placed_at TEXT, total REAL);
            CREATE TABLE badges (code TEXT UNIQUE);
            CREATE VIRTUAL TABLE notes USING fts5(body);
            """)
        try addUser(1, "zebulon.quackenbush@planted-mail.org", "Zebulon Quackenbush", "+33 6 98 76 54 32", "Zebulon confided his xylophonic divorce", "1980-02-29")
        try addUser(2, "ottilie.vandermeer@planted-mail.org", "Ottilie Vandermeer", "0611223344", "Ottilie Vandermeer grows tulips", "1975-11-03T08:30:00Z")
        for index in 3...40 {
            try addUser(index, "person\(index)@example.org", "Person Number\(index)", "06000000\(index)", "an ordinary note number \(index)", "1990-01-\(10 + index % 18)")
        }
        for (index, email) in ["zebulon.quackenbush@planted-mail.org", "zebulon.quackenbush@planted-mail.org", "ottilie.vandermeer@planted-mail.org", "person7@example.org"].enumerated() {
            try database.execute("INSERT INTO orders (email, placed_at, total) VALUES ('\(email)', '2023-0\(index + 1)-15 10:00:00', \(10 + index))")
        }
        // Four-digit codes, enough for the digits format to collide often.
        for code in 0..<3000 { try database.execute("INSERT INTO badges VALUES ('B-\(String(format: "%04d", code * 3 % 10000))')") }
        // A deleted row: with secure_delete off, its bytes stay in the free pages.
        try addUser(99, "deleted.person@planted-mail.org", "Deletedia Freepageson", "0699999999", String(repeating: "Deletedia Freepageson ", count: 400), "1970-01-01")
        try database.execute("DELETE FROM users WHERE id = 99")
        try database.execute("DELETE FROM notes WHERE rowid = 99")
        // Then WAL mode, without checkpoints: these commits live only in the -wal.
        try database.execute("PRAGMA journal_mode = WAL")
        database.disableAutomaticCheckpoint()
        try database.setCheckpointOnClose(false)
        try addUser(41, "walter.walcommit@planted-mail.org", "Walter Walcommit", "0655555555", "Walter Walcommit wrote this after the checkpoint", "2001-09-09")
        try database.execute("INSERT INTO orders (email, placed_at, total) VALUES ('walter.walcommit@planted-mail.org', '2024-02-29', 42)")
    }

    func addUser(_ id: Int, _ email: String, _ name: String, _ phone: String, _ bio: String, _ born: String) throws {
        _ = try database.rows("INSERT INTO users VALUES (?1, ?2, ?3, ?4, ?5, ?6)", [.integer(Int64(id)), .text(email), .text(name), .text(phone), .text(bio), .text(born)])
        _ = try database.rows("INSERT INTO notes (rowid, body) VALUES (?1, ?2)", [.integer(Int64(id)), .text(bio)])
    }

    static let rules = """
        {
          "keyEnv": "FIXTUREKIT_ANON_KEY",
          "strict": true,
          "tables": {
            "users": {
              "email": {"strategy": "pseudonym", "format": "email", "domain": "email"},
              "name": {"strategy": "fake", "kind": "name"},
              "phone": {"strategy": "mask", "keepLast": 2},
              "bio": {"strategy": "fake", "kind": "text"},
              "born": {"strategy": "shift-date", "group": "email", "maxDays": 30},
              "id": "keep"
            },
            "orders": {
              "email": {"strategy": "pseudonym", "format": "email", "domain": "email"},
              "placed_at": {"strategy": "shift-date", "group": "email"},
              "total": {"strategy": "noise", "ratio": 0.1}
            },
            "badges": {"code": {"strategy": "pseudonym", "format": "digits"}},
            "notes": {"body": {"strategy": "fake", "kind": "text"}}
          }
        }
        """
}

/// Whether `pattern` occurs anywhere in `bytes`: the test's own search, independent of the tool's.
func occurs(_ pattern: [UInt8], in bytes: [UInt8]) -> Bool {
    guard !pattern.isEmpty, bytes.count >= pattern.count else { return false }
    let first = pattern[0]
    var index = 0
    while index <= bytes.count - pattern.count {
        if bytes[index] == first && bytes[index..<(index + pattern.count)].elementsEqual(pattern) { return true }
        index += 1
    }
    return false
}

/// The planted values found in the files of `paths`, as `value in file`.
func plantedValues(in paths: [String]) throws -> [String] {
    var found: [String] = []
    for path in paths {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        for value in PlantedStore.planted where occurs(Array(value.utf8), in: bytes) || occurs(Array(value.lowercased().utf8), in: bytes) {
            found.append("\(value) in \((path as NSString).lastPathComponent)")
        }
    }
    return found
}

/// The planted values found in any of the files of `paths`.
func distinctPlantedValues(in paths: [String]) throws -> Set<String> {
    Set(try plantedValues(in: paths).map { String($0[..<$0.range(of: " in ", options: .backwards)!.lowerBound]) })
}

/// Every regular file below `folder`.
func files(below folder: String) -> [String] {
    (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).map { folder + "/" + $0 }.filter { path in
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && !isFolder.boolValue
    }
}
