/// Why a version's fixture cannot serve the paths that need it
/// (``MigrationRunner/FixtureState/problem``): the facts, worded once here.
enum FixtureProblem: Error, CustomStringConvertible {
    /// Neither its folder nor its archive is in the corpus.
    case missing(version: String, folder: String)
    /// Its folder does not verify: every problem found.
    case folderDoesNotVerify(folder: String, problems: [VerificationProblem])
    /// The archive it was unpacked from does not verify: every problem found.
    case archiveDoesNotVerify(archive: String, problems: [VerificationProblem])
    /// It differs from what `fixturekit.lock` records of the version (``LockedHistory``).
    case notAsLocked(String)
    /// It could not be unpacked, copied, verified or read: the error.
    case unreadable(any Error)

    /// `/corpus/1.0.0 does not verify: App.sqlite: changed (and 1 more)`: the
    /// first problem, and for a folder how many more (an archive's say only the first).
    var description: String {
        switch self {
        case .missing(let version, let folder):
            "no fixture of \(version): \(folder) does not exist, nor its archive"
        case .folderDoesNotVerify(let folder, let problems):
            "\(folder) does not verify" + (problems.first.map { ": \($0.file): \($0.summary)" } ?? "")
                + (problems.count > 1 ? " (and \(problems.count - 1) more)" : "")
        case .archiveDoesNotVerify(let archive, let problems):
            "\(archive) does not verify" + (problems.first.map { ": \($0.file): \($0.summary)" } ?? "")
        case .notAsLocked(let problem):
            problem
        case .unreadable(let error):
            "\(error)"
        }
    }
}
