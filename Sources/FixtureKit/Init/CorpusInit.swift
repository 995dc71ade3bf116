import Foundation
import FixtureKitSystem
import FixtureKitModels

/// What `init` wrote.
public struct InitResult: Sendable, Codable, Equatable {
    /// A column of the store and the rule suggested for it.
    public struct Suggestion: Sendable, Codable, Equatable {
        public internal(set) var table: String
        public internal(set) var column: String
        /// `pseudonym (email)`, `fake (name)`, `keep`, `TODO`; `derived` for a
        /// generated column, which needs no rule.
        public internal(set) var rule: String
        /// Why, from the column's sampled values (never shown) or its name:
        /// `uuid: 320 of 320 sampled values`, `generated from name, email`.
        public internal(set) var reason: String
    }

    public internal(set) var configuration: String
    /// The rules file, when a store was given.
    public internal(set) var rules: String?
    public internal(set) var store: String
    public internal(set) var current: String
    public internal(set) var suggestions: [Suggestion]

    /// The columns left `TODO`.
    public var undecided: Int { suggestions.count { $0.rule == AnonymizationRules.todoMarker } }
    /// The columns with a rule in the rules file (generated columns have none).
    public var ruled: Int { suggestions.count { $0.rule != CorpusInit.derivedLabel } }
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
            let existing: FileStatus?
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
            let suggested = try suggest(store: store)
            suggestions = suggested.map(\.suggestion)
            rulesText = rulesFile(suggested)
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
            if rulesText != nil { try? POSIX.removeFile(rulesPath) }
            throw FixtureKitError(what: "init: \(error.operation)", path: configurationPath, why: error.code == .fileExists ? "the file exists: init never overwrites" : error.reason, cause: error)
        }
        return InitResult(
            configuration: configurationPath, rules: store == nil ? nil : rulesPath, store: storeName, current: version, suggestions: suggestions)
    }

    /// What `init` calls a generated column: SQLite computes it, it needs no rule.
    static let derivedLabel = "derived"

    /// The rule suggested for each column strict mode wants one for, from a
    /// sample of its values, and each generated column with what it is computed
    /// from; read from a copy of the store.
    static func suggest(store: String) throws(FixtureKitError) -> [(suggestion: InitResult.Suggestion, json: String?)] {
        let set = try StoreSet.locate(store)
        do { _ = try set.header() } catch {
            throw FixtureKitError(what: "init", path: store, why: error.why, cause: error)
        }
        let scratch = try ScratchStore(copying: set, what: "init")
        let database = scratch.database
        let schema: AnonymizationSchema
        do { schema = try AnonymizationSchema(database: database) } catch {
            throw FixtureKitError(what: "init", path: store, why: error.description, cause: error)
        }
        let columns = try AnonymizationEngine.textColumns(schema: schema, database: database, display: store)
        var suggested: [(InitResult.Suggestion, String?)] = []
        for table in schema.tables.values.sorted(by: { AnonymizationRules.bytewise($0.name, $1.name) }) {
            for column in columns where column.table == table.name {
                let rule = suggestion(table: column.table, column: column.column, affinity: column.affinity, values: sample(column.table, column.column, database: database))
                suggested.append((InitResult.Suggestion(table: column.table, column: column.column, rule: rule.label, reason: rule.reason), rule.json))
            }
            let generated = table.columns.filter(\.generated).map(\.name)
            guard !generated.isEmpty else { continue }
            let sql = (try? database.scalar("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?1", [.text(table.name)]))??.text ?? ""
            let sources = generatedSources(of: table.name, sql: sql, generated: generated)
            for column in generated {
                let reason = sources[column].map { $0.isEmpty ? "generated from no other column" : "generated from \($0.joined(separator: ", "))" } ?? "generated: SQLite computes it"
                suggested.append((InitResult.Suggestion(table: table.name, column: column, rule: derivedLabel, reason: reason), nil))
            }
        }
        return suggested
    }

    /// What a column's name suggests: its words, split at `_`, `-` and lower-to-upper case changes.
    static func suggestion(for column: String, affinity: AnonymizationSchema.Affinity) -> Suggested {
        let words = Set(words(of: column))
        let joined = words.joined()
        func has(_ candidates: String...) -> Bool { candidates.contains { words.contains($0) } }
        let todo = Suggested.todo("")
        guard affinity != .blob else { return todo }
        if has("email", "mail") || joined.contains("email") {
            return .email
        }
        if has("phone", "mobile", "tel", "telephone", "fax", "cell") || joined.contains("phone") {
            return .phone
        }
        if has("first", "given", "forename") && has("name") || has("firstname", "givenname", "forename") {
            return .fake(.firstName)
        }
        if has("last", "family") && has("name") || has("lastname", "surname", "familyname") {
            return .fake(.lastName)
        }
        if has("name", "fullname", "displayname", "username", "nickname") {
            return .fake(.name)
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

    /// The rules file: strict, the default key variable, tables and columns in
    /// order (generated columns, which need no rule, left out).
    static func rulesFile(_ suggested: [(suggestion: InitResult.Suggestion, json: String?)]) -> String {
        var text = "{\n  \"keyEnv\": \"\(AnonymizationRules.defaultKeyEnvironmentVariable)\",\n  \"strict\": true,\n  \"tables\": {"
        let rules = suggested.compactMap { entry in entry.json.map { (entry.suggestion, $0) } }
        let tables = Dictionary(grouping: rules, by: { $0.0.table })
        let names = tables.keys.sorted(by: AnonymizationRules.bytewise)
        for (index, table) in names.enumerated() {
            let columns = tables[table] ?? []
            let width = columns.map { jsonString($0.0.column).count }.max() ?? 0
            text += "\n    \(jsonString(table)): {"
            for (position, (suggestion, rule)) in columns.enumerated() {
                let key = (jsonString(suggestion.column) + ":").padding(toLength: width + 1, withPad: " ", startingAt: 0)
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
