import FixtureKit

/// `fixturekit verify [PATH...]`: checks fixtures against their SHA256SUMS.
struct VerifyCommand: Command {
    static let configuration = CommandConfiguration(
        name: "verify",
        abstract: "Check fixtures against their SHA256SUMS.",
        discussion: """
            PATH is a fixture folder, a corpus folder (every fixture in it is checked), a SHA256SUMS
            file, or an archive (.tar.zst, .tar.gz, .tar.xz, .tar: read once against the SHA256SUMS
            inside it, without extracting). Each problem names the file and what is wrong: changed,
            missing, unlisted (present but not listed), unreadable, or a malformed line of SHA256SUMS
            with its number. A fixture with a manifest is also checked as a store set: sidecars as the
            manifest says, a WAL that SQLite replays to its last commit, one page size. Fixtures are
            never opened in place.
            Exit status: 0 everything holds, 1 a check failed, 2 a path could not be read.
            """,
        arguments: [ArgumentDefinition(name: "path", help: "What to verify (default: MigrationFixtures).", isOptional: true, isRepeating: true)],
        options: [
            .flag("--deep", help: "Also open a temporary copy of each store: integrity_check, foreign_key_check, schema and row counts against the manifest."),
            .json, .quiet, .jobs,
        ]
    )

    var paths: [String]
    var deep: Bool
    var json: Bool
    var quiet: Bool
    var jobs: Int?

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Self.configuration.parse(arguments)
        paths = parsed.positionals.isEmpty ? ["MigrationFixtures"] : parsed.positionals
        deep = parsed.flag("--deep")
        json = parsed.flag("--json")
        quiet = parsed.flag("--quiet")
        jobs = try parsed.jobs()
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
                results = try Verifier.verify(path, deep: deep, threads: jobs)
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
            if !quiet && result.source == .lock {
                console.message("\(result.path): \(console.styled("OK", .ok)) (\(Formatting.count(result.verifiedFiles, "line")))")
            } else if !quiet {
                let files = Formatting.count(result.verifiedFiles, "file")
                console.message("\(result.path): \(console.styled("OK", .ok)) (\(files), \(Formatting.bytes(result.verifiedBytes)))")
            }
        } else {
            console.message("\(result.path): \(console.styled("FAILED", .failed)) (\(Formatting.count(result.problems.count, "problem")))")
        }
    }
}
