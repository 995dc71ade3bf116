import FixtureKit

/// `fixturekit drift STORE --against FIXTURE`: structural schema comparison.
struct DriftCommand: Command {
    static let store = Argument<String>("store", help: "The store's main file.")
    static let against = Option<String>.required("--against", value: "FIXTURE", help: "A fixture folder or another store.", completion: .file)
    static let configuration = CommandConfiguration(
        name: "drift",
        abstract: "Compare a store's schema with a fixture's, structurally.",
        discussion: "Also reports both stores' content hashes (fixturekit hash). Exit status: 0 the schemas are structurally equal, 1 they differ (each difference is listed).",
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
        let report = try Drift.compare(store: store, against: against)
        let differences = report.differences
        for line in differences { console.message("  \(line)") }
        if differences.isEmpty {
            console.info("\(store): same schema as \(against)")
        } else {
            console.message("\(store): \(Formatting.count(differences.count, "difference")) from \(against)")
        }
        let same = report.contentHash == report.referenceContentHash
        console.info("content hash: \(report.contentHash.prefix(12))… here, \(report.referenceContentHash.prefix(12))… in \(against)\(same ? ": the same content" : "")")
        if json { console.output(Formatting.json(report)) }
        return differences.isEmpty ? .success : .checkFailed
    }
}
