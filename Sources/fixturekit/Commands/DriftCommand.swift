import FixtureKit

/// `fixturekit drift STORE --against FIXTURE`: structural schema comparison.
struct DriftCommand: Command {
    static let store = Argument<String>("store", help: "The store's main file.")
    static let against = Option<String>.required("--against", value: "FIXTURE", help: "A fixture folder or another store.", completion: .file)
    static let configuration = CommandConfiguration(
        name: "drift",
        abstract: "Compare a store's schema with a fixture's, structurally.",
        discussion: "Exit status: 0 the schemas are structurally equal, 1 they differ (each difference is listed).",
        arguments: [store.erased],
        options: [against.erased, Shared.json.erased]
    )

    var store: String
    var against: String
    var json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        store = try parsed.get(Self.store)
        against = try parsed.get(Self.against)
        json = parsed.get(Shared.json)
    }

    func run(_ console: Console) throws -> ExitCode {
        let differences = try Drift.differences(store: store, against: against)
        for line in differences { console.message("  \(line)") }
        if differences.isEmpty {
            console.info("\(store): same schema as \(against)")
        } else {
            console.message("\(store): \(Formatting.count(differences.count, "difference")) from \(against)")
        }
        if json { console.output(Formatting.json(["differences": differences])) }
        return differences.isEmpty ? .success : .checkFailed
    }
}
