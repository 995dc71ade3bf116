/// The kinds of archive fixturekit writes and reads: a tar stream with
/// POSIX pax-restricted headers, compressed with zstd, gzip or xz.
public enum ArchiveFormat: String, CaseIterable, Sendable, Codable {
    case tarZstd = "tar.zst"
    case tarGzip = "tar.gz"
    case tarXz = "tar.xz"
    /// An uncompressed tar stream: read, never written by `pack`.
    case tar = "tar"

    /// What `pack` writes unless told otherwise.
    public static let `default` = ArchiveFormat.tarZstd

    /// The formats `pack` can write.
    public static let packable: [ArchiveFormat] = [.tarZstd, .tarGzip, .tarXz]

    /// The format a file name's suffix names (`.tar.zst`, `.tar.gz`, `.tar.xz`,
    /// `.tar`), or `nil` for any other name.
    public init?(fileName: String) {
        // Longest suffixes first: `.tar` ends none of the others.
        for format in [ArchiveFormat.tarZstd, .tarGzip, .tarXz, .tar] where fileName.hasSuffix("." + format.rawValue) {
            // A bare `.tar.zst` is a hidden file's name, not an archive's.
            guard fileName.split(separator: "/").last.map({ $0.count > format.rawValue.count + 1 }) ?? false else { return nil }
            self = format
            return
        }
        return nil
    }

    /// The file name suffix, with its dot: `.tar.zst`.
    public var suffix: String { "." + rawValue }

    /// The compressor's name as libarchive reports it when reading.
    public var compressionName: String {
        switch self {
        case .tarZstd: "zstd"
        case .tarGzip: "gzip"
        case .tarXz: "xz"
        case .tar: "none"
        }
    }

    /// The compression levels the format accepts. zstd stops at 19: the
    /// "ultra" levels 20 to 22 need hundreds of MiB of memory.
    public var levels: ClosedRange<Int> {
        switch self {
        case .tarZstd: 1...19
        case .tarGzip: 1...9
        case .tarXz: 0...9
        case .tar: 0...0
        }
    }

    /// The level each compressor's own command-line tool uses by default
    /// (`zstd` 3, `gzip` 6, `xz` 6).
    public var defaultLevel: Int {
        switch self {
        case .tarZstd: 3
        case .tarGzip: 6
        case .tarXz: 6
        case .tar: 0
        }
    }
}
