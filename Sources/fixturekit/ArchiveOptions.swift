import FixtureKit

/// Messages about archives.
extension Console {
    /// `fixturekit: <what>: <archive>: entry "<path>": <problem>`, one line per problem.
    func problems(_ verification: FolderVerification, what: String) {
        for problem in verification.problems {
            let place = verification.source == .archive
                ? verification.path + ": entry " + Self.quoted(problem.file)
                : verification.path.appendingPathForDisplay(problem.file)
            error("\(what): \(place): \(problem.summary)")
        }
    }

    /// A path in quotes, as the library quotes entry names.
    static func quoted(_ path: String) -> String { "\"" + path.escapingControlCharacters(quote: true) + "\"" }
}
