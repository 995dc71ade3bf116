import Foundation
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// A store shaped like a password manager's server, the kind of store whose
/// leak scan raised false alarms: timestamps with microseconds, base64
/// ciphertext, UUIDs, hex tokens, 4–6 letter names and 6-digit codes. The
/// rules replace the names, the codes, the e-mail addresses and the notes;
/// everything else is kept.
///
/// Besides what chance puts there, every `chance`-th user's code is the
/// microseconds of a timestamp, a group of a UUID and part of a hex token, and
/// its name (and every organization's) lies inside base64: matches that are
/// no leak. Its connection stays open: after ``keepCommitsInWAL()`` the `-wal`
/// holds the last commits.
final class RealisticStore {
    static let rules = """
        {"tables": {
          "organizations": {"name": {"strategy": "pseudonym", "format": "name"}, "billing_email": {"strategy": "pseudonym", "format": "email", "domain": "email"}},
          "users": {
            "name": {"strategy": "fake", "kind": "first-name"}, "email": {"strategy": "pseudonym", "format": "email", "domain": "email"},
            "code": {"strategy": "pseudonym", "format": "digits"}, "note": {"strategy": "fake", "kind": "text"}
          }
        }}
        """
    static let organizationNames = ["Home", "Work", "Family", "Acme", "Office", "Garden", "Studio", "Travel", "Bank", "Club"]

    let path: String
    let database: Database
    var random: AnonymizationAccelerationTests.Generator
    /// Per user: the values the rules replace.
    private(set) var names: [String] = []
    private(set) var codes: [String] = []
    private(set) var emails: [String] = []
    private(set) var notes: [String] = []
    /// The matches of a replaced short value inside a longer run that the store holds on purpose.
    private(set) var embedded = 0

    init(path: String, pageSize: Int, users: Int = 500, seed: UInt64 = 29) throws {
        self.path = path
        random = .init(state: seed)
        database = try Database(path: path, options: .init(create: true))
        try database.execute("PRAGMA page_size = \(pageSize); PRAGMA secure_delete = OFF")
        try database.execute("""
            CREATE TABLE organizations (id TEXT PRIMARY KEY, name TEXT NOT NULL, billing_email TEXT, created_at TEXT);
            CREATE TABLE users (id TEXT PRIMARY KEY, name TEXT, email TEXT, code TEXT, note TEXT, private_key TEXT,
                security_stamp TEXT, culture TEXT, created_at TEXT, revision_date TEXT);
            CREATE TABLE ciphers (id TEXT PRIMARY KEY, user_id TEXT, organization_id TEXT, data TEXT, attachments TEXT,
                created_at TEXT, revision_date TEXT);
            CREATE TABLE devices (id INTEGER PRIMARY KEY, user_id TEXT, type TEXT, identifier TEXT, push_token TEXT, created_at TEXT);
            CREATE INDEX users_email ON users(email);
            CREATE INDEX ciphers_user ON ciphers(user_id);
            CREATE INDEX ciphers_day ON ciphers(substr(created_at, 1, 10));
            """)
        try database.execute("BEGIN")
        for (index, name) in Self.organizationNames.enumerated() {
            _ = try database.rows("INSERT INTO organizations VALUES (?1, ?2, ?3, ?4)", [
                .text(uuid()), .text(name), .text("billing\(index)@\(name.lowercased()).example"), .text(timestamp()),
            ])
        }
        var used: Set<String> = []
        for user in 0..<users {
            var name = ""
            repeat { name = self.name() } while !used.insert(name).inserted
            var code = ""
            repeat { code = String(format: "%06d", Int.random(in: 0..<1_000_000, using: &random)) } while !used.insert(code).inserted
            let email = "\(name.lowercased()).\(self.name().lowercased())\(user)@mail.example"
            let note = distinctive(Int.random(in: 300...5000, using: &random), seed: 7_000 + UInt64(user))
            names.append(name)
            codes.append(code)
            emails.append(email)
            notes.append(note)
            let chance = user % 10 == 0
            let userID = uuid()
            _ = try database.rows("INSERT INTO users VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)", [
                .text(userID), .text(name), .text(email), .text(code), .text(note),
                .text(base64(300, inside: chance ? name : nil)), .text(chance ? uuid(lastGroup: code) : uuid()),
                .text(["en-US", "de-DE", "fr-FR"][user % 3]), .text(timestamp()), .text(timestamp(iso: true)),
            ])
            for cipher in 0..<2 {
                let organization = Self.organizationNames[(user + cipher) % Self.organizationNames.count]
                _ = try database.rows("INSERT INTO ciphers VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", [
                    .text(uuid()), .text(userID), .text(uuid()), .text(base64(200, inside: chance ? organization : nil)),
                    .text("{\"\(hex(32))\":{\"key\":\"\(base64(48))\"}}"),
                    .text(timestamp(microseconds: chance && cipher == 0 ? code : nil)), .text(timestamp(iso: true, microseconds: chance && cipher == 1 ? code : nil)),
                ])
            }
            _ = try database.rows("INSERT INTO devices (user_id, type, identifier, push_token, created_at) VALUES (?1, ?2, ?3, ?4, ?5)", [
                .text(userID), .text(["iOS", "Android", "Chrome", "Firefox"][user % 4]), .text(uuid()), .text(hex(64, inside: chance ? code : nil)), .text(timestamp()),
            ])
        }
        try database.execute("COMMIT")
    }

    /// Switches to WAL mode without checkpoints: the commits from now on live only in the `-wal`.
    func keepCommitsInWAL() throws {
        try database.execute("PRAGMA journal_mode = WAL")
        database.disableAutomaticCheckpoint()
        try database.setCheckpointOnClose(false)
        try database.execute("UPDATE devices SET created_at = '2024-02-29 00:00:00.000001' WHERE id % 7 = 0")
    }

    // MARK: - Values

    func name() -> String {
        let consonants = Array("bdfgklmnprstvz"), vowels = Array("aeiou")
        var letters: [Character] = []
        let length = Int.random(in: 4...6, using: &random)
        while letters.count < length {
            letters.append(letters.count % 2 == 0 ? consonants.randomElement(using: &random)! : vowels.randomElement(using: &random)!)
        }
        return String(letters).capitalized
    }

    func hex(_ count: Int, inside: String? = nil) -> String {
        var text = String((0..<count).map { _ in Array("0123456789abcdef").randomElement(using: &random)! })
        if let inside { text = splice(inside, into: text) }
        return text
    }

    func uuid(lastGroup: String? = nil) -> String {
        let last = lastGroup.map { $0 + hex(12 - $0.count) } ?? hex(12)
        if lastGroup != nil { embedded += 1 }
        return "\(hex(8))-\(hex(4))-4\(hex(3))-a\(hex(3))-\(last)"
    }

    /// Base64 of random bytes, with `inside` spliced into it (after a `+` or `/` now and then).
    func base64(_ bytes: Int, inside: String? = nil) -> String {
        var text = Data((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &random) }).base64EncodedString()
        if let inside { text = splice((Bool.random(using: &random) ? "+" : "") + inside + (Bool.random(using: &random) ? "/" : ""), into: text) }
        return text
    }

    /// `2019-08-25 06:59:42.831440`, or in ISO form `2019-08-25T06:59:42.831440Z`.
    func timestamp(iso: Bool = false, microseconds: String? = nil) -> String {
        if microseconds != nil { embedded += 1 }
        let fraction = microseconds ?? String(format: "%06d", Int.random(in: 0..<1_000_000, using: &random))
        let text = String(
            format: "%04d-%02d-%02d%@%02d:%02d:%02d.%@", Int.random(in: 2017...2024, using: &random), Int.random(in: 1...12, using: &random),
            Int.random(in: 1...28, using: &random), iso ? "T" : " ", Int.random(in: 0...23, using: &random), Int.random(in: 0...59, using: &random),
            Int.random(in: 0...59, using: &random), fraction)
        return iso ? text + "Z" : text
    }

    /// `text` with `value` in the middle of it, inside the run.
    private func splice(_ value: String, into text: String) -> String {
        embedded += 1
        let at = Int.random(in: 8...(text.count - value.count - 8), using: &random)
        let start = text.index(text.startIndex, offsetBy: at)
        return String(text[..<start]) + value + String(text[text.index(start, offsetBy: value.count)...])
    }
}
