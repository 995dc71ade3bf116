import FixtureKit

/// `fixturekit pack DIR [-o FILE]`: a byte-reproducible archive of a fixture.
struct PackCommand: Command {
    static let folder = Argument<String>("folder", help: "The fixture folder.", completion: .folder)
    static let output = Option<String?>("--output", "-o", value: "FILE", shownDefault: "<store>-<version>.tar.zst beside the folder", help: "The archive to write (its suffix picks the format).", completion: .file)
    static let format = Option<String?>("--format", value: "FORMAT", shownDefault: "tar.zst", help: "tar.zst, tar.gz or tar.xz.", completion: .choices(["tar.zst", "tar.gz", "tar.xz"]))
    static let force = Flag("--force", help: "Replace an archive that fixturekit.lock locks, and its line.")
    static let level = Option<String?>("--level", value: "N", shownDefault: "zstd 3, gzip 6, xz 6", help: "Compression level.")
    static let configuration = CommandConfiguration(
        name: "pack",
        abstract: "Pack a fixture folder into a byte-reproducible archive and its FILE.sha256.",
        discussion: """
            The archive's bytes depend only on the files' names and contents and on the format: SHA256SUMS,
            manifest.json, then every path bytewise; pax headers with uid/gid 0, no names, modes 0644/0755,
            mtime SOURCE_DATE_EPOCH or 0. Default FILE: <store>-<version>.tar.zst beside the folder; FILE must
            end in .tar.zst, .tar.gz or .tar.xz, which is its format. A folder that fails its SHA256SUMS is
            refused; so is an archive that the corpus' fixturekit.lock locks, unless --force. `-o -` streams the
            archive on stdout (its format from --format; no .sha256, its digest on stderr), for a pipeline:
            `fixturekit pack DIR -o - | fixturekit unpack - DEST`. Exit status: 0 written, 1 the folder fails its
            SHA256SUMS, 2 could not read or write.
            """,
        arguments: [folder.erased],
        options: [output.erased, format.erased, level.erased, force.erased, Shared.json.erased])

    var folder: String
    var options: PackOptions
    var json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        folder = try parsed.get(Self.folder)
        let (output, format, level) = (try parsed.get(Self.output), try parsed.get(Self.format), try parsed.get(Self.level))
        do {
            options = try PackOptions(output: output, format: format, level: level)
        } catch {
            throw UsageError(error.why)
        }
        options.force = parsed.get(Self.force)
        json = parsed.get(Shared.json)
        if json && output == FixtureArchive.standardOutput {
            throw UsageError("'--json' and '-o -' both write to stdout")
        }
    }

    func run(_ console: Console) throws -> ExitCode {
        var options = self.options
        options.modificationTime = try PackOptions.modificationTime(sourceDateEpoch: console.environment["SOURCE_DATE_EPOCH"])
        let result = try FixtureArchive.pack(folder, options: options, progress: console.work)
        do {
            let files = Formatting.count(result.files, "file")
            console.info("\(result.archive): \(files), \(Formatting.bytes(result.bytes)) packed into \(Formatting.bytes(result.size)) (\(result.format.rawValue), level \(result.level))\(result.replaced ? ", replacing the file that was there" : "")")
            // Streamed on stdout: its digest as `sha256sum -` would print it, on stderr.
            console.info(result.checksumFile.map { "\($0): \(result.sha256)" } ?? "\(result.sha256)  -")
        }
        for line in LockText.report(result.lock ?? [], lock: LockText.lockPath(besideFixture: result.archive)) { console.message(line) }
        if json { console.output(Formatting.json(result)) }
        return .success
    }
}
