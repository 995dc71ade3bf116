import FixtureKit

/// `fixturekit drift STORE --against FIXTURE`: structural schema comparison.
struct DriftCommand: Command {
    static let configuration = CommandConfiguration(
        name: "drift",
        abstract: "Compare a store's schema with a fixture's, structurally.",
        discussion: "Also reports both stores' content hashes (fixturekit hash). Exit status: 0 the schemas are structurally equal, 1 they differ (each difference is listed).",
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
        let report = try Drift.compare(store: store, against: against)
        let differences = report.differences
        for line in differences { console.message("  \(line)") }
        console.message(differences.isEmpty ? "\(store): same schema as \(against)" : "\(store): \(Formatting.count(differences.count, "difference")) from \(against)")
        let same = report.contentHash == report.referenceContentHash
        console.message("content hash: \(report.contentHash.prefix(12))… here, \(report.referenceContentHash.prefix(12))… in \(against)\(same ? ": the same content" : "")")
        if json { console.output(Formatting.json(report)) }
        return differences.isEmpty ? .success : .checkFailed
    }
}
