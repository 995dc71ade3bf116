import FixtureKit

/// `fixturekit drift STORE --against FIXTURE`: structural schema comparison.
struct DriftCommand: Command {
    static let configuration = CommandConfiguration(
        name: "drift",
        abstract: "Compare a store's schema with a fixture's, structurally.",
        discussion: "Exit status: 0 the schemas are structurally equal, 1 they differ (each difference is listed).",
        arguments: [ArgumentDefinition(name: "store", help: "The store's main file.")],
        options: [.option("--against", value: "FIXTURE", help: "A fixture folder or another store (required)."), .json]
    )

    var store: String
    var against: String
    var json: Bool

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Self.configuration.parse(arguments)
        store = parsed.positionals[0]
        guard let against = parsed.value("--against") else { throw UsageError("missing required option '--against <FIXTURE>'") }
        self.against = against
        json = parsed.flag("--json")
    }

    func run(_ console: Console) throws -> ExitCode {
        let differences = try Drift.differences(store: store, against: against)
        for line in differences { console.message("  \(line)") }
        console.message(differences.isEmpty ? "\(store): same schema as \(against)" : "\(store): \(Formatting.count(differences.count, "difference")) from \(against)")
        if json { console.output(Formatting.json(["differences": differences])) }
        return differences.isEmpty ? .success : .checkFailed
    }
}
