import FixtureKit

/// Messages about archives.
extension Console {
    /// `fixturekit: <what>: <archive>: entry "<path>": <problem>`, one line per problem.
    func problems(_ verification: FolderVerification, what: String) {
        for problem in verification.problems {
            error("\(what): \(Self.place(of: problem, in: verification)): \(problem.summary)")
        }
    }

    /// Where a problem is: a file below the folder; an entry of the archive (the
    /// archive itself, or its `.sha256`, for what is checked beside its entries);
    /// a file of the corpus for the corpus' lock.
    static func place(of problem: VerificationProblem, in verification: FolderVerification) -> String {
        switch (verification.source, problem.kind) {
        case (.archive, .lock): verification.path
        case (.archive, .checksumFile): verification.path + FixtureArchive.checksumSuffix
        case (.archive, _): verification.path + ": entry " + quoted(problem.file)
        case (.lock, _): parentFolder(of: verification.path).appendingPathForDisplay(problem.file)
        case (.folder, _): verification.path.appendingPathForDisplay(problem.file)
        }
    }

    /// The folder holding `path`: `.` for a bare name.
    static func parentFolder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// A path in quotes, as the library quotes entry names.
    static func quoted(_ path: String) -> String { "\"" + path.escapingControlCharacters(quote: true) + "\"" }
}
