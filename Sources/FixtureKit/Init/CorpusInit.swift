#if canImport(Glibc)
import Glibc
#endif
import Foundation
import FixtureKitSystem
import FixtureKitModels

/// What `init` wrote.
public struct InitResult: Sendable, Codable, Equatable {
    /// A column of the store and the rule suggested for it.
    public struct Suggestion: Sendable, Codable, Equatable {
        public var table: String
        public var column: String
        /// `pseudonym (email)`, `fake (name)`, `TODO`.
        public var rule: String
    }

    public var configuration: String
    /// The rules file, when a store was given.
    public var rules: String?
    public var store: String
    public var current: String
    public var suggestions: [Suggestion]

    /// The columns left `TODO`.
    public var undecided: Int { suggestions.count { $0.rule == AnonymizationRules.todoMarker } }
}

/// `fixturekit init`: a corpus from nothing.
public enum CorpusInit {
    /// The rules file `init` writes beside the configuration.
    static let rulesFileName = "anonymize.json"
    /// The store's name when none is given.
    static let defaultStoreName = "App.sqlite"

    /// Writes `corpus/fixturekit.json` (the store's name, `current` set to
    /// `version`, no stages yet) and, when `store` is given, `corpus/anonymize.json`:
    /// strict rules listing every column strict mode wants a rule for, each with a
    /// suggested strategy (`email` a pseudonym email, a name a fake name, a phone
    /// its digits) or `TODO`, which strict mode refuses until someone decides.
    /// The store is read from a temporary copy, never opened in place.
    ///
    /// Never overwrites: a configuration or rules file already there is refused
    /// before anything is written.
    /// - Throws: ``FixtureKitError``.
    public static func initialize(corpus: String, store: String?, version: String) throws(FixtureKitError) -> InitResult {
        guard Version(version) != nil else {
            throw FixtureKitError(what: "init", path: corpus, why: "'\(version)' is not a version label", hint: "use a semantic version such as 1.0.0", category: .usage)
        }
        let configurationPath = corpus.appendingPath(CorpusConfiguration.fileName)
        let rulesPath = corpus.appendingPath(rulesFileName)
        for path in [configurationPath] + (store == nil ? [] : [rulesPath]) {
            let existing: stat?
            do { existing = try POSIX.lstatIfPresent(path) } catch {
                throw FixtureKitError(what: "init", failed: error)
            }
            if existing != nil {
                throw FixtureKitError(what: "init", path: path, why: "the file exists: init never overwrites", hint: "edit it, or remove it first")
            }
        }
        let storeName = store.map { String($0.split(separator: "/").last ?? "") } ?? defaultStoreName
        var suggestions: [InitResult.Suggestion] = []
        var rulesText: String?
        if let store {
            suggestions = try suggest(store: store)
            rulesText = rulesFile(suggestions)
        }
        try wrap("init", corpus) { () throws(FileSystemError) in try FixtureFolder.createFolders(corpus) }
        if let rulesText {
            try wrap("init: write", rulesPath) { () throws(FileSystemError) in
                try AtomicFile.write(Array(rulesText.utf8), to: rulesPath, replace: false)
            }
        }
        let configuration = configurationFile(store: storeName, current: version, rules: store == nil ? nil : rulesFileName)
        do throws(FileSystemError) {
            try AtomicFile.write(Array(configuration.utf8), to: configurationPath, replace: false)
        } catch {
            // The rules without their configuration would stop the next init.
            if rulesText != nil { unlink(rulesPath) }
            throw FixtureKitError(what: "init: \(error.operation)", path: configurationPath, why: error.errno == EEXIST ? "the file exists: init never overwrites" : error.reason, cause: error)
        }
        return InitResult(
            configuration: configurationPath, rules: store == nil ? nil : rulesPath, store: storeName, current: version, suggestions: suggestions)
    }

    /// The rule suggested for each column strict mode wants one for, read from a copy of the store.
    static func suggest(store: String) throws(FixtureKitError) -> [InitResult.Suggestion] {
        let set = try StoreSet.locate(store)
        do { _ = try set.header() } catch {
            throw FixtureKitError(what: "init", path: store, why: error.why, cause: error)
        }
        let scratch = try ScratchStore(copying: set, what: "init")
        let schema: AnonymizationSchema
        do { schema = try AnonymizationSchema(database: scratch.database) } catch {
            throw FixtureKitError(what: "init", path: store, why: error.description, cause: error)
        }
        return try AnonymizationEngine.textColumns(schema: schema, database: scratch.database, display: store).map { column in
            InitResult.Suggestion(table: column.table, column: column.column, rule: suggestion(for: column.column, affinity: column.affinity).label)
        }
    }

    /// A rule as it is written in the file, and its short label.
    struct Suggested {
        var json: String
        var label: String
    }

    /// What a column's name suggests: its words, split at `_`, `-` and lower-to-upper case changes.
    static func suggestion(for column: String, affinity: AnonymizationSchema.Affinity) -> Suggested {
        let words = Set(words(of: column))
        let joined = words.joined()
        func has(_ candidates: String...) -> Bool { candidates.contains { words.contains($0) } }
        let todo = Suggested(json: "\"\(AnonymizationRules.todoMarker)\"", label: AnonymizationRules.todoMarker)
        guard affinity != .blob else { return todo }
        if has("email", "mail") || joined.contains("email") {
            return Suggested(json: #"{"strategy": "pseudonym", "format": "email", "domain": "email"}"#, label: "pseudonym (email)")
        }
        if has("phone", "mobile", "tel", "telephone", "fax", "cell") || joined.contains("phone") {
            return Suggested(json: #"{"strategy": "pseudonym", "format": "digits", "domain": "phone"}"#, label: "pseudonym (digits)")
        }
        if has("first", "given", "forename") && has("name") || has("firstname", "givenname", "forename") {
            return Suggested(json: #"{"strategy": "fake", "kind": "first-name"}"#, label: "fake (first-name)")
        }
        if has("last", "family") && has("name") || has("lastname", "surname", "familyname") {
            return Suggested(json: #"{"strategy": "fake", "kind": "last-name"}"#, label: "fake (last-name)")
        }
        if has("name", "fullname", "displayname", "username", "nickname") {
            return Suggested(json: #"{"strategy": "fake", "kind": "name"}"#, label: "fake (name)")
        }
        return todo
    }

    /// `firstName` and `first_name` both give `first`, `name`.
    static func words(of name: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previousLower = false
        for character in name {
            if character == "_" || character == "-" || character == " " || character == "." {
                if !current.isEmpty { words.append(current) }
                current = ""
                previousLower = false
                continue
            }
            if character.isUppercase && previousLower {
                words.append(current)
                current = ""
            }
            current += character.lowercased()
            previousLower = character.isLowercase || character.isNumber
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// The rules file: strict, the default key variable, tables and columns in order.
    static func rulesFile(_ suggestions: [InitResult.Suggestion]) -> String {
        var text = "{\n  \"keyEnv\": \"\(AnonymizationRules.defaultKeyEnvironmentVariable)\",\n  \"strict\": true,\n  \"tables\": {"
        let tables = Dictionary(grouping: suggestions, by: \.table)
        let names = tables.keys.sorted(by: AnonymizationRules.bytewise)
        for (index, table) in names.enumerated() {
            let columns = tables[table] ?? []
            let width = columns.map { jsonString($0.column).count }.max() ?? 0
            text += "\n    \(jsonString(table)): {"
            for (position, suggestion) in columns.enumerated() {
                let key = (jsonString(suggestion.column) + ":").padding(toLength: width + 1, withPad: " ", startingAt: 0)
                let rule = suggestion.rule == AnonymizationRules.todoMarker
                    ? "\"\(AnonymizationRules.todoMarker)\""
                    : Self.suggestion(for: suggestion.column, affinity: .text).json
                text += "\n      \(key) \(rule)" + (position < columns.count - 1 ? "," : "")
            }
            text += "\n    }" + (index < names.count - 1 ? "," : "")
        }
        text += names.isEmpty ? "}\n}\n" : "\n  }\n}\n"
        return text
    }

    /// The minimal configuration: a first version, no stages yet.
    static func configurationFile(store: String, current: String, rules: String?) -> String {
        var text = "{\n  \"store\": \(jsonString(store)),\n  \"current\": \(jsonString(current)),\n  \"supported\": [],\n  \"stages\": []"
        if let rules { text += ",\n  \"anonymize\": \(jsonString(rules))" }
        return text + "\n}\n"
    }

    private static func jsonString(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
