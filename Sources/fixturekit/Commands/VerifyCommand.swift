import FixtureKit

/// `fixturekit verify [PATH...]`: checks fixtures against their SHA256SUMS.
struct VerifyCommand: Command {
    static let paths = Arguments<String>(
        "path", help: "What to verify.", whenEmpty: [Shared.defaultCorpus], shownDefault: Shared.defaultCorpus)
    static let deep = Flag("--deep", help: "Also open a temporary copy of each store: integrity_check, foreign_key_check, schema and row counts against the manifest.")
    static let configuration = CommandConfiguration(
        name: "verify",
        abstract: "Check fixtures against their SHA256SUMS.",
        discussion: """
            PATH is a fixture folder, a corpus folder (every fixture in it is checked), a SHA256SUMS
            file, or an archive (.tar.zst, .tar.gz, .tar.xz, .tar, or - for one on standard input: read
            once against the SHA256SUMS inside it, then given a folder's checks, with the same verdict).
            Each problem names the file and what is wrong: changed, missing, unlisted (present but not
            listed), unreadable, or a malformed line of SHA256SUMS with its number. A fixture with a manifest is also checked as a store set: sidecars as the
            manifest says, a WAL that SQLite replays to its last commit, one page size. Fixtures are
            never opened in place.
            Exit status: 0 everything holds, 1 a check failed, 2 a path could not be read.
            """,
        arguments: [paths.erased],
        options: [deep.erased, Shared.json.erased, Shared.jobs.erased]
    )

    var paths: [String]
    var deep: Bool
    var json: Bool
    var jobs: Int?

    init(_ parsed: ParsedArguments) throws(UsageError) {
        paths = try parsed.get(Self.paths)
        if paths.count(where: { $0 == FixtureArchive.standardInput }) > 1 { throw UsageError("'-' (an archive on standard input) can be given once") }
        deep = parsed.get(Self.deep)
        json = parsed.get(Shared.json)
        jobs = try parsed.get(Shared.jobs)?.value
    }

    struct Report: Encodable {
        var ok: Bool
        var fixtures: [Fixture]
        var errors: [String]

        struct Fixture: Encodable {
            var path: String
            /// `folder` or `archive`.
            var kind: FolderVerification.Source
            var ok: Bool
            var verifiedFiles: Int
            var verifiedBytes: UInt64
            var problems: [VerificationProblem]
        }
    }

    func run(_ console: Console) throws -> ExitCode {
        var outcome = ExitCode.success
        var report = Report(ok: true, fixtures: [], errors: [])
        for path in paths {
            let results: [FolderVerification]
            do {
                results = try Verifier.verify(path, deep: deep, threads: jobs, progress: console.work)
            } catch {
                console.error(error.description)
                report.errors.append(error.description)
                outcome = max(outcome, ExitCode(error.category))
                continue
            }
            for result in results {
                print(result, to: console)
                if !result.passed { outcome = max(outcome, .checkFailed) }
                report.fixtures.append(.init(
                    path: result.path, kind: result.source, ok: result.passed, verifiedFiles: result.verifiedFiles,
                    verifiedBytes: result.verifiedBytes, problems: result.problems))
            }
        }
        report.ok = outcome == .success
        if json { console.output(Formatting.json(report)) }
        return outcome
    }

    private func print(_ result: FolderVerification, to console: Console) {
        console.problems(result, what: "verify")
        if result.passed {
            if result.source == .lock {
                console.info("\(result.path): \(ok: "OK") (\(Formatting.count(result.verifiedFiles, "line")))")
            } else {
                console.info("\(result.path): \(ok: "OK") (\(Formatting.count(result.verifiedFiles, "file")), \(Formatting.bytes(result.verifiedBytes)))")
            }
        } else {
            console.message("\(result.path): \(failed: "FAILED") (\(Formatting.count(result.problems.count, "problem")))")
        }
    }
}
