import FixtureKit

/// The options and words the archive commands (`pack`, `unpack`, `list`, `inspect`) share.
extension OptionDefinition {
    static let maxSize = OptionDefinition.option(
        "--max-size", value: "SIZE", help: "Refuse an archive whose entries hold more (default 16G; K, M, G, T: powers of 1024).")
    static let maxRatio = OptionDefinition.option(
        "--max-ratio", value: "N", help: "Refuse an archive that expands more than N times its size (default 1000).")
}

extension ParsedArguments {
    /// `--max-size` and `--max-ratio` as limits.
    func archiveLimits() throws(UsageError) -> ArchiveLimits {
        var limits = ArchiveLimits()
        if let text = value("--max-size") {
            guard let size = Self.byteCount(text), size > 0 else {
                throw UsageError("'--max-size' needs a size such as 16G, 500M or 1048576, not '\(text)'")
            }
            limits.maxTotalSize = size
        }
        if let text = value("--max-ratio") {
            guard let ratio = Double(text), ratio.isFinite, ratio > 0 else {
                throw UsageError("'--max-ratio' needs a positive number, not '\(text)'")
            }
            limits.maxRatio = ratio
        }
        return limits
    }

    /// `1048576`, `512K`, `500M`, `16G`, `1T` (also `16GiB`, `16GB`: powers of 1024 all).
    static func byteCount(_ text: String) -> UInt64? {
        var digits = Substring(text)
        for suffix in ["ib", "b"] where digits.lowercased().hasSuffix(suffix) {
            digits = digits.dropLast(suffix.count)
            break
        }
        let units: [Character: Int] = ["K": 10, "M": 20, "G": 30, "T": 40]
        var shift = 0
        if let last = digits.last?.uppercased().first, let unit = units[last] {
            shift = unit
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let value = UInt64(digits) else { return nil }
        let (result, overflow) = value.multipliedReportingOverflow(by: 1 << UInt64(shift))
        return overflow ? nil : result
    }
}

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
