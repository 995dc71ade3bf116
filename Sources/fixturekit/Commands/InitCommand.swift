import Foundation
import FixtureKit

/// `fixturekit init [STORE] [--corpus DIR]`: a corpus from nothing.
struct InitCommand: Command {
    static let store = Argument<String?>("store", help: "The store of the version the current build ships: its schema gives the rules file.")
    static let current = Option<String>("--version", value: "V", default: "1.0.0", help: "The version the current build ships: the configuration's \"current\".")
    static let configuration = CommandConfiguration(
        name: "init",
        abstract: "Start a corpus: a minimal fixturekit.json and, from a store's values, strict anonymization rules.",
        discussion: """
            Writes DIR/fixturekit.json: the store's file name, "current" (a first version: no supported
            versions and no stages yet). With STORE, also DIR/anonymize.json, named by the configuration:
            strict rules that list every column of the store a user can write text into, each with a
            strategy suggested from a sample of its values (at most 1,000, never printed) and why:
            UUIDs, dates, numbers, ciphertext and JSON kept, e-mails, phone numbers and codes
            pseudonymized, names and free text faked; where the values do not decide, from the column's
            name, else TODO, which strict mode refuses until someone decides. Generated columns are
            listed as derived. The store is read from a temporary copy. Never overwrites a file.
            """,
        arguments: [store.erased],
        options: [Shared.corpus.erased, current.erased, Shared.json.erased])

    var store: String?
    var corpus: String
    var version: String
    var json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        store = try parsed.get(Self.store)
        corpus = try parsed.get(Shared.corpus)
        version = try parsed.get(Self.current)
        json = parsed.get(Shared.json)
    }

    func run(_ console: Console) throws -> ExitCode {
        let result = try CorpusInit.initialize(corpus: corpus, store: store, version: version)
        console.info("\(result.configuration): written (store \(result.store), current \(result.current))")
        if let rules = result.rules {
            let todo = result.undecided
            let derived = result.suggestions.count - result.ruled
            console.info("\(rules): written, strict: \(Formatting.count(result.ruled, "column")) with a rule, \(todo) of them TODO" + (derived > 0 ? "; \(Formatting.count(derived, "generated column")) derived" : ""))
            let width = result.suggestions.map { "\($0.table).\($0.column)".count }.max() ?? 0
            let ruleWidth = result.suggestions.map(\.rule.count).max() ?? 0
            for suggestion in result.suggestions {
                let name = "\(suggestion.table).\(suggestion.column)".padding(toLength: width, withPad: " ", startingAt: 0)
                let rule = suggestion.reason.isEmpty ? suggestion.rule : suggestion.rule.padding(toLength: ruleWidth, withPad: " ", startingAt: 0) + "  " + suggestion.reason
                console.info("  \(name)  \(rule)")
            }
            if todo > 0 {
                console.info("next: decide each TODO in \(rules) (a strategy, or \"keep\"), then freeze the store")
            }
        } else {
            console.info("next: set \"store\" to your store's file name if it is not \(result.store), then freeze it")
        }
        if json { console.output(Formatting.json(result)) }
        return .success
    }
}
