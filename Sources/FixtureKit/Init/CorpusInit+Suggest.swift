import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

extension CorpusInit {
    /// Values read per column to suggest its rule.
    static let sampleSize = 1000
    /// The share of sampled values a kind needs to decide a column.
    static let decisiveShare = 0.9
    /// Sampled values a column of single words needs before its few distinct
    /// values say it is a category.
    static let categorySample = 20
    /// Below this many bits per character, a column of tokens is not taken for
    /// base64 or ciphertext (random base64 has about 6, base32 5, hex 4).
    static let tokenEntropy = 4.0
    /// Words of a table's or column's name that say its capitalized words name
    /// no person: `organizations.name`, `device_name`.
    static let thingWords: Set<String> = [
        "org", "orgs", "organization", "organizations", "organisation", "organisations", "company", "companies", "group", "groups",
        "team", "teams", "collection", "collections", "folder", "folders", "device", "devices", "file", "files", "host", "domain",
        "project", "projects", "product", "products", "app", "application", "tag", "tags", "category", "categories", "label",
        "title", "city", "country", "street", "place", "site", "brand", "model", "browser", "platform", "os", "client", "type", "kind", "status",
    ]

    /// A rule as it is written in the file, its short label, and why.
    struct Suggested {
        var json: String
        var label: String
        var reason: String

        static func keep(_ reason: String) -> Suggested { Suggested(json: "\"keep\"", label: "keep", reason: reason) }
        static func todo(_ reason: String) -> Suggested { Suggested(json: "\"\(AnonymizationRules.todoMarker)\"", label: AnonymizationRules.todoMarker, reason: reason) }
        static let email = Suggested(json: #"{"strategy": "pseudonym", "format": "email", "domain": "email"}"#, label: "pseudonym (email)", reason: "")
        static let phone = Suggested(json: #"{"strategy": "pseudonym", "format": "digits", "domain": "phone"}"#, label: "pseudonym (digits)", reason: "")
        static let digits = Suggested(json: #"{"strategy": "pseudonym", "format": "digits"}"#, label: "pseudonym (digits)", reason: "")
        static let text = Suggested(json: #"{"strategy": "fake", "kind": "text"}"#, label: "fake (text)", reason: "")
        static func fake(_ kind: FakeKind) -> Suggested {
            Suggested(json: #"{"strategy": "fake", "kind": "\#(kind.rawValue)"}"#, label: "fake (\(kind.rawValue))", reason: "")
        }

        func because(_ reason: String) -> Suggested {
            var copy = self
            copy.reason = reason
            return copy
        }
    }

    /// What a column's sampled values (at most ``sampleSize``, NULL and `''`
    /// left out) suggest, with the reason; its name decides only where its
    /// values do not.
    static func suggestion(table: String, column: String, affinity: AnonymizationSchema.Affinity, values: [SQLiteValue]) -> Suggested {
        let texts = values.compactMap { value -> String? in
            guard case .text(let text) = value else { return nil }
            let trimmed = text.trimmingSpaces()
            return trimmed.isEmpty ? nil : trimmed
        }
        let blobs = values.compactMap { value -> [UInt8]? in if case .blob(let bytes) = value { bytes } else { nil } }
        let byName = suggestion(for: column, affinity: affinity)
        func fallback(_ why: String) -> Suggested {
            byName.label == AnonymizationRules.todoMarker ? .todo(why) : byName.because("the column's name (\(why))")
        }
        if blobs.count > texts.count {
            let entropy = ValueKind.entropy(blobs.joined())
            if blobs.joined().count >= 256, entropy >= 7.5 {
                return .keep("binary: \(blobs.count) of \(values.count) sampled values are high-entropy bytes (keys, hashes or ciphertext; a compressed file is too)")
            }
            return .todo("binary values: \(blobs.count) of \(values.count) sampled values, which fixturekit cannot read")
        }
        guard !texts.isEmpty else { return fallback("no value to sample: every one is NULL or ''") }
        let sampled = texts.count
        var counts: [ValueKind: Int] = [:]
        var kinds: [ValueKind] = []
        for text in texts {
            let kind = ValueKind.of(text)
            kinds.append(kind)
            counts[kind, default: 0] += 1
        }
        // Digits alone: a code when they all have one length, else numbers.
        if let digits = counts[.digits] {
            let lengths = Set(zip(texts, kinds).filter { $0.1 == .digits }.map { $0.0.count })
            if lengths.count == 1, let length = lengths.first, (4...10).contains(length), Double(digits) >= decisiveShare * Double(sampled) {
                return Suggested.digits.because("\(length)-digit code: \(digits) of \(sampled) sampled values (digits keeps the length)")
            }
            counts[.number, default: 0] += digits
            counts[.digits] = nil
        }
        func share(_ kind: ValueKind) -> Int { counts[kind] ?? 0 }
        let (top, count) = counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key.rawValue > $1.key.rawValue) } ?? (.other, 0)
        let reason = "\(top.rawValue): \(count) of \(sampled) sampled values"
        if Double(count) >= decisiveShare * Double(sampled) {
            switch top {
            case .uuid, .date, .json, .url, .number, .hex:
                return .keep(reason)
            case .ciphertext:
                let entropy = ValueKind.entropy(zip(texts, kinds).filter { $0.1 == .ciphertext }.flatMap { Array($0.0.utf8) })
                if entropy >= tokenEntropy { return .keep(reason) }
            case .email:
                return Suggested.email.because(reason)
            case .phone, .ipAddress:
                return Suggested.phone.because(reason + " (digits keeps the length and separators)")
            case .name:
                let words = Set(CorpusInit.words(of: table) + CorpusInit.words(of: column))
                if !words.isDisjoint(with: thingWords) {
                    return Suggested.text.because("capitalized words that name a thing (\(table).\(column)): \(count) of \(sampled) sampled values")
                }
                let kind: FakeKind = [FakeKind.firstName, .lastName].contains(where: { byName.label == "fake (\($0.rawValue))" })
                    ? (byName.label == "fake (first-name)" ? .firstName : .lastName) : .name
                return Suggested.fake(kind).because(reason)
            case .word:
                let distinct = Set(texts).count
                if sampled >= categorySample && distinct <= max(10, sampled / 10) {
                    return .keep("a few words repeated: \(distinct) distinct in \(sampled) sampled values")
                }
            case .text:
                return Suggested.text.because(reason)
            default:
                break
            }
        }
        if Double(share(.text) + share(.name) + share(.word)) >= decisiveShare * Double(sampled), share(.text) > 0 {
            return Suggested.text.because("free text: \(share(.text) + share(.name) + share(.word)) of \(sampled) sampled values")
        }
        let mix = counts.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key.rawValue < $1.key.rawValue) }
            .prefix(3).map { "\($0.value) \($0.key.rawValue)" }.joined(separator: ", ")
        return fallback("values of several kinds: \(mix) of \(sampled) sampled")
    }

    /// Up to ``sampleSize`` values of a column, neither NULL nor `''`, in the
    /// table's order: read, never printed.
    static func sample(_ table: String, _ column: String, database: Database) -> [SQLiteValue] {
        let name = quotedIdentifier(column)
        let rows = (try? database.rows("SELECT \(name) FROM main.\(quotedIdentifier(table)) WHERE \(name) IS NOT NULL AND \(name) <> '' LIMIT \(sampleSize)")) ?? []
        return rows.compactMap(\.first)
    }
}

extension String {
    /// The text without the spaces (U+0020) at either end.
    func trimmingSpaces() -> String {
        var text = Substring(self)
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
