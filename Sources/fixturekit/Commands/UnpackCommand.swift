import FixtureKit

/// `fixturekit unpack FILE DEST`: safe, verified extraction of an archive.
struct UnpackCommand: Command {
    static let archive = Argument<String>("archive", help: "The archive; - reads it from standard input.")
    static let destination = Argument<String>("dest", help: "The folder to create.", completion: .folder)
    static let force = Flag("--force", help: "Replace DEST when it exists (it is swapped in one step).")
    static let configuration = CommandConfiguration(
        name: "unpack",
        abstract: "Extract an archive into a new folder, safely, verifying every file.",
        discussion: """
            Extracts regular files and folders only, and only the files the archive's first entry, SHA256SUMS,
            lists, into DEST.tmp beside DEST; renames it to DEST when every file is there with its digest.
            On any failure DEST is as before. An existing DEST is refused unless --force. FILE - reads the
            archive from standard input (`fixturekit pack DIR -o - | fixturekit unpack - DEST`), its
            expansion ratio measured against the bytes read so far.
            Exit status: 0 extracted, 1 a file is changed, missing or unlisted, 2 the archive is unreadable,
            malformed or unsafe (links, devices, paths leaving DEST, over a limit), or DEST exists.
            """,
        arguments: [archive.erased, destination.erased],
        options: [force.erased] + ArchiveLimitOptions.declarations + [Shared.json.erased])

    var archive: String
    var destination: String
    var options: UnpackOptions
    var json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        archive = try parsed.get(Self.archive)
        destination = try parsed.get(Self.destination)
        options = UnpackOptions(limits: try ArchiveLimitOptions(parsed).limits, replace: parsed.get(Self.force))
        json = parsed.get(Shared.json)
    }

    struct Report: Encodable {
        var archive: String, destination: String, ok: Bool, extracted: Bool, replaced: Bool
        var files: Int, bytes: UInt64, problems: [VerificationProblem]
    }

    func run(_ console: Console) throws -> ExitCode {
        let result = try FixtureArchive.unpack(archive, to: destination, options: options, progress: console.work)
        let verification = result.contents.verification
        console.problems(verification, what: "unpack")
        if result.replaced { console.info("\(result.destination): replaced the folder that was there") }
        for line in LockText.report(result.lock ?? [], lock: LockText.lockPath(besideFixture: result.destination)) { console.message(line) }
        if !result.extracted {
            console.message("\(archive): \(failed: "FAILED") (\(Formatting.count(verification.problems.count, "problem"))): nothing was written")
        } else {
            console.info("\(result.destination): \(ok: "OK") (\(Formatting.count(verification.verifiedFiles, "file")), \(Formatting.bytes(verification.verifiedBytes)))")
        }
        if json {
            console.output(Formatting.json(Report(
                archive: archive, destination: result.destination, ok: result.extracted, extracted: result.extracted, replaced: result.replaced,
                files: verification.verifiedFiles, bytes: verification.verifiedBytes, problems: verification.problems)))
        }
        return result.extracted ? .success : .checkFailed
    }
}
