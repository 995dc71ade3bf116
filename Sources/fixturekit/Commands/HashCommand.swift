import FixtureKit

/// `fixturekit hash PATH...`: the content hash of a store, a fixture or an archive.
struct HashCommand: Command {
    static let paths = Arguments<String>("path", help: "A store's main file, a fixture folder, a corpus or an archive (- for one on standard input).", minimum: 1)
    static let configuration = CommandConfiguration(
        name: "hash",
        abstract: "Print the content hash of a store, a fixture or an archive: schema and rows, whatever the page layout.",
        discussion: """
            The SHA-256 of the store's logical content (user_version, application_id, the schema, and
            every row of every table in a canonical order), the same whatever the page size, journal mode,
            free pages, text encoding or a VACUUM, and different when any value changes. A fixture folder
            (or a store inside one) is copied into a temporary folder and the copy verified first, as sql
            does; an archive is unpacked and verified there; a corpus folder gives a line for each of its
            fixture folders; a live store is read in place, read-only, as capture reads one (a store with
            a -journal is copied). Prints `<64 hex>  PATH`, as sha256sum does.
            Exit status: 0 hashed, 1 a fixture or an archive does not verify, 2 could not read.
            """,
        arguments: [paths.erased],
        options: [Shared.json.erased]
    )

    var paths: [String]
    var json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        paths = try parsed.get(Self.paths)
        if paths.count(where: { $0 == FixtureArchive.standardInput }) > 1 { throw UsageError("'-' (an archive on standard input) can be given once") }
        json = parsed.get(Shared.json)
    }

    struct Report: Encodable {
        var path: String
        var contentHash: String
    }

    func run(_ console: Console) throws -> ExitCode {
        var reports: [Report] = []
        for path in paths {
            for (hashed, digest) in try ContentHash.ofEach(path) {
                reports.append(Report(path: hashed, contentHash: digest.hex))
                if !json { console.output(SHA256Sums.line(digest: digest, name: hashed)) }
            }
        }
        if json { console.output(Formatting.json(reports)) }
        return .success
    }
}
