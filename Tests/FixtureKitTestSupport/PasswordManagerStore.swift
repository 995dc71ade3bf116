import Foundation
@testable import FixtureKit

/// A realistic store: the schema of a password manager's server (users,
/// organizations, ciphers, devices, two-factor, sends, events: about 190
/// columns) with values shaped as such a server writes them: UUIDs, timestamps
/// with microseconds, encrypted strings (`2.iv|data|mac`), base64 keys, tokens,
/// JSON, e-mails, person names with accents, device names, 6-digit codes, IP
/// addresses, and some columns always NULL. Deterministic: the same rows every time.
enum PasswordManagerStore {
    /// How a column's values are made.
    enum Values {
        case uuid, timestamp, email, person, encrypted, publicKey, token, base32, json, device, code, ip, color, hint, organization, group
        case word([String])
        case integer(Int)
        case blob(Int)
        case null
    }

    /// `(table, [(column, declared type, values)])`.
    static let tables: [(String, [(String, String, Values)])] = [
        ("users", [
            ("uuid", "TEXT PRIMARY KEY", .uuid), ("enabled", "BOOLEAN", .integer(2)), ("created_at", "DATETIME", .timestamp), ("updated_at", "DATETIME", .timestamp),
            ("verified_at", "DATETIME", .timestamp), ("last_verifying_at", "DATETIME", .timestamp), ("login_verify_count", "INTEGER", .integer(5)),
            ("email", "TEXT UNIQUE", .email), ("email_new", "TEXT", .null), ("email_new_token", "TEXT", .code), ("name", "TEXT", .person),
            ("password_hash", "BLOB", .blob(32)), ("salt", "BLOB", .blob(64)), ("password_iterations", "INTEGER", .integer(600_000)),
            ("password_hint", "TEXT", .hint), ("akey", "TEXT", .encrypted), ("private_key", "TEXT", .encrypted), ("public_key", "TEXT", .publicKey),
            ("totp_secret", "TEXT", .base32), ("totp_recover", "TEXT", .token), ("security_stamp", "TEXT", .uuid), ("stamp_exception", "TEXT", .null),
            ("equivalent_domains", "TEXT", .json), ("excluded_globals", "TEXT", .json), ("client_kdf_type", "INTEGER", .integer(2)),
            ("client_kdf_iter", "INTEGER", .integer(600_000)), ("client_kdf_memory", "INTEGER", .integer(64)), ("client_kdf_parallelism", "INTEGER", .integer(4)),
            ("api_key", "TEXT", .token), ("avatar_color", "TEXT", .color), ("external_id", "TEXT", .null),
        ]),
        ("organizations", [("uuid", "TEXT PRIMARY KEY", .uuid), ("name", "TEXT", .organization), ("billing_email", "TEXT", .email), ("private_key", "TEXT", .encrypted), ("public_key", "TEXT", .publicKey)]),
        ("users_organizations", [
            ("uuid", "TEXT PRIMARY KEY", .uuid), ("user_uuid", "TEXT", .uuid), ("org_uuid", "TEXT", .uuid), ("access_all", "BOOLEAN", .integer(2)),
            ("akey", "TEXT", .encrypted), ("status", "INTEGER", .integer(3)), ("atype", "INTEGER", .integer(4)), ("reset_password_key", "TEXT", .encrypted), ("external_id", "TEXT", .null),
        ]),
        ("ciphers", [
            ("uuid", "TEXT PRIMARY KEY", .uuid), ("created_at", "DATETIME", .timestamp), ("updated_at", "DATETIME", .timestamp), ("user_uuid", "TEXT", .uuid),
            ("organization_uuid", "TEXT", .uuid), ("key", "TEXT", .encrypted), ("atype", "INTEGER", .integer(4)), ("name", "TEXT", .encrypted), ("notes", "TEXT", .encrypted),
            ("fields", "TEXT", .encrypted), ("data", "TEXT", .encrypted), ("password_history", "TEXT", .encrypted), ("deleted_at", "DATETIME", .timestamp), ("reprompt", "INTEGER", .integer(2)),
        ]),
        ("folders", [("uuid", "TEXT PRIMARY KEY", .uuid), ("created_at", "DATETIME", .timestamp), ("updated_at", "DATETIME", .timestamp), ("user_uuid", "TEXT", .uuid), ("name", "TEXT", .encrypted)]),
        ("folders_ciphers", [("cipher_uuid", "TEXT", .uuid), ("folder_uuid", "TEXT", .uuid)]),
        ("devices", [
            ("uuid", "TEXT", .uuid), ("created_at", "DATETIME", .timestamp), ("updated_at", "DATETIME", .timestamp), ("user_uuid", "TEXT", .uuid), ("name", "TEXT", .device),
            ("atype", "INTEGER", .integer(20)), ("push_uuid", "TEXT", .uuid), ("push_token", "TEXT", .token), ("refresh_token", "TEXT", .token), ("twofactor_remember", "TEXT", .token),
        ]),
        ("twofactor", [("uuid", "TEXT PRIMARY KEY", .uuid), ("user_uuid", "TEXT", .uuid), ("atype", "INTEGER", .integer(8)), ("enabled", "BOOLEAN", .integer(2)), ("data", "TEXT", .json), ("last_used", "INTEGER", .integer(1_700_000_000))]),
        ("twofactor_incomplete", [("user_uuid", "TEXT", .uuid), ("device_uuid", "TEXT", .uuid), ("device_name", "TEXT", .device), ("login_time", "DATETIME", .timestamp), ("ip_address", "TEXT", .ip)]),
        ("twofactor_duo_ctx", [("state", "TEXT PRIMARY KEY", .token), ("user_email", "TEXT", .email), ("nonce", "TEXT", .token), ("exp", "INTEGER", .integer(1_700_000_000))]),
        ("attachments", [("id", "TEXT PRIMARY KEY", .token), ("cipher_uuid", "TEXT", .uuid), ("file_name", "TEXT", .encrypted), ("file_size", "INTEGER", .integer(1_000_000)), ("akey", "TEXT", .encrypted)]),
        ("sends", [
            ("uuid", "TEXT PRIMARY KEY", .uuid), ("user_uuid", "TEXT", .uuid), ("organization_uuid", "TEXT", .null), ("name", "TEXT", .encrypted), ("notes", "TEXT", .encrypted),
            ("atype", "INTEGER", .integer(2)), ("data", "TEXT", .json), ("akey", "TEXT", .encrypted), ("password_hash", "BLOB", .blob(32)), ("password_salt", "BLOB", .blob(64)),
            ("password_iter", "INTEGER", .integer(100_000)), ("max_access_count", "INTEGER", .integer(10)), ("access_count", "INTEGER", .integer(10)), ("creation_date", "DATETIME", .timestamp),
            ("revision_date", "DATETIME", .timestamp), ("expiration_date", "DATETIME", .timestamp), ("deletion_date", "DATETIME", .timestamp), ("disabled", "BOOLEAN", .integer(2)), ("hide_email", "BOOLEAN", .integer(2)),
        ]),
        ("emergency_access", [
            ("uuid", "TEXT PRIMARY KEY", .uuid), ("grantor_uuid", "TEXT", .uuid), ("grantee_uuid", "TEXT", .uuid), ("email", "TEXT", .email), ("key_encrypted", "TEXT", .encrypted),
            ("atype", "INTEGER", .integer(2)), ("status", "INTEGER", .integer(4)), ("wait_time_days", "INTEGER", .integer(30)), ("recovery_initiated_at", "DATETIME", .timestamp),
            ("last_notification_at", "DATETIME", .timestamp), ("updated_at", "DATETIME", .timestamp), ("created_at", "DATETIME", .timestamp),
        ]),
        ("collections", [("uuid", "TEXT PRIMARY KEY", .uuid), ("org_uuid", "TEXT", .uuid), ("name", "TEXT", .encrypted), ("external_id", "TEXT", .null)]),
        ("users_collections", [("user_uuid", "TEXT", .uuid), ("collection_uuid", "TEXT", .uuid), ("read_only", "BOOLEAN", .integer(2)), ("hide_passwords", "BOOLEAN", .integer(2))]),
        ("ciphers_collections", [("cipher_uuid", "TEXT", .uuid), ("collection_uuid", "TEXT", .uuid)]),
        ("groups", [
            ("uuid", "TEXT PRIMARY KEY", .uuid), ("organizations_uuid", "TEXT", .uuid), ("name", "TEXT", .group), ("access_all", "BOOLEAN", .integer(2)),
            ("external_id", "TEXT", .null), ("creation_date", "DATETIME", .timestamp), ("revision_date", "DATETIME", .timestamp),
        ]),
        ("groups_users", [("groups_uuid", "TEXT", .uuid), ("users_organizations_uuid", "TEXT", .uuid)]),
        ("collections_groups", [("collections_uuid", "TEXT", .uuid), ("groups_uuid", "TEXT", .uuid), ("read_only", "BOOLEAN", .integer(2)), ("hide_passwords", "BOOLEAN", .integer(2))]),
        ("event", [
            ("uuid", "TEXT PRIMARY KEY", .uuid), ("event_type", "INTEGER", .integer(2000)), ("user_uuid", "TEXT", .uuid), ("org_uuid", "TEXT", .uuid), ("cipher_uuid", "TEXT", .uuid),
            ("collection_uuid", "TEXT", .uuid), ("group_uuid", "TEXT", .uuid), ("org_user_uuid", "TEXT", .uuid), ("act_user_uuid", "TEXT", .uuid), ("device_type", "INTEGER", .integer(20)),
            ("ip_address", "TEXT", .ip), ("event_date", "DATETIME", .timestamp), ("policy_uuid", "TEXT", .uuid), ("provider_uuid", "TEXT", .null), ("provider_user_uuid", "TEXT", .null), ("provider_org_uuid", "TEXT", .null),
        ]),
        ("auth_requests", [
            ("uuid", "TEXT PRIMARY KEY", .uuid), ("user_uuid", "TEXT", .uuid), ("organization_uuid", "TEXT", .uuid), ("request_device_identifier", "TEXT", .uuid), ("device_type", "INTEGER", .integer(20)),
            ("request_ip", "TEXT", .ip), ("response_device_id", "TEXT", .uuid), ("access_code", "TEXT", .token), ("public_key", "TEXT", .publicKey), ("enc_key", "TEXT", .encrypted),
            ("master_password_hash", "TEXT", .token), ("approved", "BOOLEAN", .integer(2)), ("creation_date", "DATETIME", .timestamp), ("response_date", "DATETIME", .timestamp), ("authentication_date", "DATETIME", .timestamp),
        ]),
        ("org_policies", [("uuid", "TEXT PRIMARY KEY", .uuid), ("org_uuid", "TEXT", .uuid), ("atype", "INTEGER", .integer(12)), ("enabled", "BOOLEAN", .integer(2)), ("data", "TEXT", .json)]),
        ("invitations", [("email", "TEXT PRIMARY KEY", .email)]),
        ("sso_nonce", [("nonce", "CHAR(36) PRIMARY KEY", .token), ("created_at", "TIMESTAMP", .timestamp)]),
        ("favorites", [("user_uuid", "TEXT", .uuid), ("cipher_uuid", "TEXT", .uuid)]),
        ("web_sessions", [("uuid", "TEXT PRIMARY KEY", .uuid), ("user_uuid", "TEXT", .uuid), ("ip_address", "TEXT", .ip), ("user_agent", "TEXT", .device), ("status", "TEXT", .word(["active", "revoked", "expired"]))]),
        ("__diesel_schema_migrations", [("version", "VARCHAR(50) PRIMARY KEY", .integer(0)), ("run_on", "TIMESTAMP", .timestamp)]),
    ]

    /// Rows per table.
    static let rows = 60

    static let firstNames = ["Siobhán", "Zoë", "José", "Ngozi", "Björn", "Ananya", "Mateus", "Aoife", "Kwame", "Léa", "Dmitri", "Haruto", "Amélie", "Tomás", "Ingrid", "Rahul"]
    static let lastNames = ["Kelly", "Ó Briain", "García", "Okafor", "Lindqvist", "Sharma", "Ferreira", "Nakamura", "Müller", "Dubois", "Kowalczyk", "Mensah", "Petrov", "Haddad"]
    static let devices = ["Chrome", "Firefox", "iPhone 13", "Pixel 7", "Edge on Windows", "Safari", "Android", "Siobhán's iPad", "MacBook Pro", "CLI", "Brave", "Galaxy S23"]
    static let hints = ["my first dog's name", "the street I grew up on", "same as work but with the year", "grandmother's maiden name plus 7", "favourite band in school", "where we met"]

    /// Writes the store at `path` (a rollback-journal store, 4 KiB pages).
    static func make(at path: String) throws {
        let database = try Database(path: path, options: .init(create: true))
        try database.execute("BEGIN")
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        var generator = Generator(formatter: formatter)
        for (table, columns) in tables {
            let definitions = columns.map { "\(quotedIdentifier($0.0)) \($0.1)" }.joined(separator: ", ")
            try database.execute("CREATE TABLE \(quotedIdentifier(table)) (\(definitions))")
            let statement = try database.prepare("INSERT INTO \(quotedIdentifier(table)) VALUES (\(columns.indices.map { "?\($0 + 1)" }.joined(separator: ", ")))")
            for row in 0..<(table == "__diesel_schema_migrations" ? 25 : rows) {
                try statement.bind(columns.map { generator.value($0.2, row: row, table: table, column: $0.0) })
                _ = try statement.step()
                statement.reset()
            }
        }
        try database.execute("COMMIT")
        try database.close()
    }

    /// Deterministic values (a linear congruential generator).
    struct Generator {
        let formatter: DateFormatter
        var state: UInt64 = 0x2545_F491_4F6C_DD1D

        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 11
        }

        mutating func pick<T>(_ list: [T]) -> T { list[Int(next() % UInt64(list.count))] }

        mutating func characters(_ count: Int, from alphabet: String) -> String {
            let letters = Array(alphabet)
            return String((0..<count).map { _ in pick(letters) })
        }

        mutating func base64(_ bytes: Int) -> String {
            Data((0..<bytes).map { _ in UInt8(truncatingIfNeeded: next()) }).base64EncodedString()
        }

        mutating func value(_ kind: Values, row: Int, table: String, column: String) -> SQLiteValue {
            switch kind {
            case .uuid:
                let hex = characters(32, from: "0123456789abcdef")
                let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
                return .text(parts.joined(separator: "-"))
            case .timestamp:
                let seconds = 1_500_000_000 + Int(next() % 200_000_000)
                let date = Date(timeIntervalSince1970: TimeInterval(seconds))
                return .text(formatter.string(from: date) + String(format: ".%06d", Int(next() % 1_000_000)))
            case .email:
                let first = pick(firstNames).folding(options: .diacriticInsensitive, locale: nil)
                let last = pick(lastNames).folding(options: .diacriticInsensitive, locale: nil).replacingOccurrences(of: " ", with: "")
                let local = row % 5 == 0 ? "\(first).\(last)\(row)" : "\(first.lowercased()).\(last.lowercased())\(row)"
                return .text(local + "@" + pick(["gmail.com", "example.org", "proton.me", "outlook.com", "family.example"]))
            case .person: return .text(pick(firstNames) + " " + pick(lastNames))
            case .encrypted: return .text("2." + base64(16) + "|" + base64(16 + Int(next() % 96)) + "|" + base64(32))
            case .publicKey: return .text("MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + base64(240))
            case .token: return .text(characters(40 + Int(next() % 40), from: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"))
            case .base32: return .text(characters(32, from: "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"))
            case .json: return .text(row % 3 == 0 ? "[]" : #"{"Key":"\#(characters(16, from: "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"))","Enabled":true,"Count":\#(row)}"#)
            case .device: return .text(pick(devices))
            case .code: return .text(String(format: "%06d", Int(next() % 1_000_000)))
            case .ip: return .text(row % 4 == 0 ? "2001:db8::\(String(next() % 65536, radix: 16))" : "\(10 + next() % 200).\(next() % 256).\(next() % 256).\(1 + next() % 254)")
            case .color: return .text("#" + characters(6, from: "0123456789abcdef"))
            case .hint: return .text(pick(hints))
            case .organization: return .text(pick(["Home", "Acme Corp", "Family Vault", "Kelly Household", "Open Source Team", "Ferreira Lda"]))
            case .group: return .text(pick(["Engineering", "Sales", "Family", "Admins", "Support Desk"]))
            case .word(let words): return .text(pick(words))
            case .integer(let bound):
                if table == "__diesel_schema_migrations" { return .text(String(20_180_114_171_611 + row * 1_000_000)) }
                return .integer(Int64(next() % UInt64(max(1, bound))))
            case .blob(let count): return .blob((0..<count).map { _ in UInt8(truncatingIfNeeded: next()) })
            case .null: return .null
            }
        }
    }
}
