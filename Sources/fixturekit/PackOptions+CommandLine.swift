import FixtureKit

extension PackOptions {
    /// The options a command line names, checked: the format given, else the one
    /// `output`'s suffix names (`.tar.gz`), else ``ArchiveFormat/default``; a level
    /// in the format's range.
    /// - Throws: ``FixtureKitError`` (a usage error) for an unknown format, an output
    ///   whose name does not end in the suffix of a format `pack` writes, a name
    ///   whose suffix contradicts the format, a level out of range.
    init(output: String?, format name: String?, level text: String?) throws(FixtureKitError) {
        func usage(_ why: String) -> FixtureKitError { FixtureKitError(what: "pack", why: why, category: .usage) }
        self.init(output: output)
        if let output, let why = Self.unnamedFormat(output) { throw usage(why) }
        let suffixed = output.flatMap { ArchiveFormat(fileName: $0) }
        if let name {
            guard let named = ArchiveFormat(rawValue: name), ArchiveFormat.packable.contains(named) else {
                throw usage("'--format' is tar.zst, tar.gz or tar.xz, not '\(name)'")
            }
            format = named
        } else if let suffixed, ArchiveFormat.packable.contains(suffixed) {
            format = suffixed
        }
        if let output, let suffixed, suffixed != format {
            throw usage("'\(output)' is named like a \(suffixed.rawValue) archive, not \(format.rawValue)")
        }
        if let text {
            guard let value = Int(text), format.levels.contains(value) else {
                throw usage("'--level' for \(format.rawValue) is \(format.levels.lowerBound) to \(format.levels.upperBound), not '\(text)'")
            }
            level = value
        }
    }
}
