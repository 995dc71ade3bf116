import FixtureKitSystem
import FixtureKitModels

/// "A verified fixture": the one check every operation that needs one makes
/// before it touches the fixture's store.
extension Verifier {
    /// How a caller says that a fixture does not verify.
    enum Refusal: Sendable {
        /// `<what>: <folder>: the fixture does not verify (N problems)` with the
        /// hint to run `verify`; a path that is not one fixture folder (a corpus,
        /// an archive): `<what>: <folder>: not a fixture folder`. For an operation
        /// that rewrites the fixture in place (checkpoint, anonymize).
        case problemCount(what: String)
        /// `verify: <fixture>/<file>: <why>` of the first problem: the problems
        /// of a copy named below `fixture`, the folder that was copied.
        case firstProblem(namedBelow: String)
    }

    /// The problems of the fixture folder `folder`, as `verify` finds them
    /// (SHA256SUMS, the store set, the corpus' lock); none when it verifies.
    /// - Throws: ``FixtureKitError`` when it cannot be verified at all.
    static func fixtureProblems(_ folder: String) throws(FixtureKitError) -> [VerificationProblem] {
        try verify(folder).flatMap(\.problems)
    }

    /// Requires the fixture folder `folder` to verify.
    /// - Throws: ``FixtureKitError`` worded as `refusal` says (category
    ///   `checkFailed` for a fixture that does not verify), or why it could not
    ///   be verified.
    static func requireVerified(_ folder: String, _ refusal: Refusal) throws(FixtureKitError) {
        switch refusal {
        case .problemCount(let what):
            let verification = try verify(folder)
            guard let result = verification.first, verification.count == 1 else {
                throw FixtureKitError(what: what, path: folder, why: "not a fixture folder")
            }
            guard result.passed else {
                throw FixtureKitError(
                    what: what, path: folder, why: "the fixture does not verify (\(result.problems.count) problems)",
                    remedy: .runVerify(folder: folder), category: .checkFailed, code: .checksumMismatch)
            }
        case .firstProblem(let fixture):
            if let problem = try fixtureProblems(folder).first {
                throw FixtureKitError(what: "verify", path: fixture.appendingPath(problem.file), why: problem.summary, category: .checkFailed, code: .checksumMismatch)
            }
        }
    }
}
