import Foundation
import FixtureKitSystem
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

/// How ``FixtureArchive/pack(_:options:)`` writes.
public struct PackOptions: Sendable, Equatable {
    public var format: ArchiveFormat
    /// The compression level; `nil` for the format's ``ArchiveFormat/defaultLevel``.
    public var level: Int?
    /// The archive's path; `nil` for ``FixtureArchive/defaultOutput(for:format:)``;
    /// `-` for standard output.
    public var output: String?
    /// Every entry's modification time, in seconds since 1970: `SOURCE_DATE_EPOCH`
    /// when it is set (see ``modificationTime(sourceDateEpoch:)``), else 0.
    public var modificationTime: Int64
    /// Replace an archive that the corpus' `fixturekit.lock` locks, and its line.
    public var force: Bool
    /// The mode of the archive and of its checksum file: 0644, or narrower for a
    /// backup of a private store.
    var fileMode: FileMode = ArchiveWriter.fileMode
    /// zstd's worker threads; `nil` for one per core. The archive's bytes are the
    /// same for any number (see ``ArchiveWriter``): only tests set it, to prove so.
    package var workers: Int?

    public init(format: ArchiveFormat = .default, level: Int? = nil, output: String? = nil, modificationTime: Int64 = 0, force: Bool = false) {
        self.format = format
        self.level = level
        self.output = output
        self.modificationTime = modificationTime
        self.force = force
    }

    /// Why `output` cannot be an archive's name, or `nil`: its name must end in the
    /// suffix of a format `pack` writes (`.tar.zst`, `.tar.gz`, `.tar.xz`), so that the
    /// name says the format and every reader (`verify`, `status`, the migration runner)
    /// recognises it. `-o x.zip` or `-o x.tgz` would otherwise write zstd under a
    /// name that says something else.
    package static func unnamedFormat(_ output: String) -> String? {
        if output == FixtureArchive.standardOutput { return nil }
        if let format = ArchiveFormat(fileName: output), ArchiveFormat.packable.contains(format) { return nil }
        let suffixes = ArchiveFormat.packable.map(\.suffix).joined(separator: ", ")
        return "'\(output.escapingControlCharacters())' does not end in \(suffixes): an archive's name says its format"
    }

    /// The largest time a ustar header holds (11 octal digits): a later one would
    /// need a pax record.
    static let maxModificationTime: Int64 = 0o77777777777

    /// The modification time that `SOURCE_DATE_EPOCH` asks for
    /// (https://reproducible-builds.org/specs/source-date-epoch/): 0 when it is
    /// unset or empty.
    /// - Throws: ``FixtureKitError`` when it is set to anything but a whole number
    ///   of seconds from 0 to ``maxModificationTime``, as the specification asks.
    package static func modificationTime(sourceDateEpoch: String?) throws(FixtureKitError) -> Int64 {
        guard let text = sourceDateEpoch, !text.isEmpty else { return 0 }
        guard text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let value = Int64(text), value <= maxModificationTime
        else {
            throw FixtureKitError(
                what: "pack", path: "SOURCE_DATE_EPOCH",
                why: "\"\(text)\" is not a whole number of seconds since 1970 (0 to \(maxModificationTime))")
        }
        return value
    }
}

/// What ``FixtureArchive/pack(_:options:)`` wrote.
public struct PackResult: Sendable, Equatable, Codable {
    /// The fixture folder, as given.
    public internal(set) var folder: String
    /// The archive written.
    public internal(set) var archive: String
    /// The detached checksum written beside it: `<archive>.sha256`; `nil` for an
    /// archive streamed on standard output (`-o -`).
    public internal(set) var checksumFile: String?
    public internal(set) var format: ArchiveFormat
    public internal(set) var level: Int
    /// The archive's SHA-256, as in the checksum file.
    public var sha256: String
    /// The archive's size in bytes.
    public internal(set) var size: UInt64
    public internal(set) var files: Int
    public internal(set) var folders: Int
    /// The bytes of the files packed.
    public internal(set) var bytes: UInt64
    /// Whether a file was at the archive's path before.
    public internal(set) var replaced: Bool
    /// The archive's line in the corpus' `fixturekit.lock`, when the archive was
    /// written into a corpus that has one.
    public internal(set) var lock: [LockEdit]?
}
