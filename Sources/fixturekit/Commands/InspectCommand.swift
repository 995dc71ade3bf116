import FixtureKit

/// `fixturekit inspect PATH`: what a store set or a fixture holds, in plain words.
struct InspectCommand: Command {
    static let configuration = CommandConfiguration(
        name: "inspect",
        abstract: "Show a store set's or a fixture's headers, WAL, schema, row counts and diagnostics.",
        discussion: """
            Reads the files' bytes (database header, -wal frames, -shm header) and opens only a temporary
            copy of the store set with SQLite. Exit status: 0, or 1 when a diagnostic is a problem
            (transactions SQLite would drop, a log that does not belong to the database).
            """,
        arguments: [ArgumentDefinition(name: "path", help: "A store's main file or a fixture folder.")],
        options: [.json]
    )

    var path: String
    var json: Bool

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Self.configuration.parse(arguments)
        path = parsed.positionals[0]
        json = parsed.flag("--json")
    }

    func run(_ console: Console) throws -> ExitCode {
        let storePath = FixtureLocator.isFolder(path) ? try FixtureLocator.storePath(inFixture: path) : path
        let inspection = try StoreInspection(storePath: storePath)
        for line in InspectionText.lines(inspection) { console.message(line) }
        if json { console.output(Formatting.json(inspection)) }
        return inspection.hasProblems ? .checkFailed : .success
    }
}
