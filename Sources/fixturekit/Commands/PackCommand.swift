import FixtureKit

/// `fixturekit pack DIR [-o FILE]`: a byte-reproducible archive of a fixture.
struct PackCommand: Command {
    static let configuration = CommandConfiguration(
        name: "pack",
        abstract: "Pack a fixture folder into a byte-reproducible archive and its FILE.sha256.",
        discussion: """
            The archive's bytes depend only on the files' names and contents and on the format: SHA256SUMS,
            manifest.json, then every path bytewise; pax headers with uid/gid 0, no names, modes 0644/0755,
            mtime SOURCE_DATE_EPOCH or 0. Default FILE: <store>-<version>.tar.zst beside the folder; FILE must
            end in .tar.zst, .tar.gz or .tar.xz, which is its format. A folder that fails its SHA256SUMS is
            refused; so is an archive that the corpus' fixturekit.lock locks, unless --force. Exit status: 0 written, 1 the folder fails its SHA256SUMS,
            2 could not read or write.
            """,
        arguments: [ArgumentDefinition(name: "folder", help: "The fixture folder.")],
        options: [
            .option("--output", "-o", value: "FILE", help: "The archive to write (its suffix picks the format)."),
            .option("--format", value: "FORMAT", help: "tar.zst (default), tar.gz or tar.xz."),
            .option("--level", value: "N", help: "Compression level (default: zstd 3, gzip 6, xz 6)."),
            .flag("--force", help: "Replace an archive that fixturekit.lock locks, and its line."),
            .json, .quiet,
        ])

    var folder: String
    var options: PackOptions
    var json: Bool
    var quiet: Bool

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Self.configuration.parse(arguments)
        folder = parsed.positionals[0]
        do {
            options = try PackOptions(output: parsed.value("--output"), format: parsed.value("--format"), level: parsed.value("--level"))
        } catch {
            throw UsageError(error.why)
        }
        options.force = parsed.flag("--force")
        json = parsed.flag("--json")
        quiet = parsed.flag("--quiet")
    }

    func run(_ console: Console) throws -> ExitCode {
        var options = self.options
        options.modificationTime = try PackOptions.modificationTime(sourceDateEpoch: console.environment["SOURCE_DATE_EPOCH"])
        let result = try FixtureArchive.pack(folder, options: options)
        if !quiet {
            let files = Formatting.count(result.files, "file")
            console.message("\(result.archive): \(files), \(Formatting.bytes(result.bytes)) packed into \(Formatting.bytes(result.size)) (\(result.format.rawValue), level \(result.level))\(result.replaced ? ", replacing the file that was there" : "")")
            console.message("\(result.checksumFile): \(result.sha256)")
        }
        for line in LockText.report(result.lock ?? [], lock: LockText.lockPath(besideFixture: result.archive)) { console.message(line) }
        if json { console.output(Formatting.json(result)) }
        return .success
    }
}
