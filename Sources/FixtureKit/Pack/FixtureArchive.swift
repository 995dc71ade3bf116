import Foundation
import FixtureKitSystem

/// A fixture packed as one byte-reproducible archive: `pack`, `unpack`, `verify`,
/// `inspect` and `list`.
///
/// The layout: a tar stream (POSIX pax-restricted headers) whose first entry is the
/// fixture's `SHA256SUMS`, then `manifest.json` when there is one, then every other
/// file and folder of the fixture in bytewise order of their paths. Names are
/// relative to the fixture folder, without a leading `./`.
///
/// Everything that reads an archive goes through one streaming pass
/// (``ArchiveScanner``) that hashes each file against that first `SHA256SUMS`:
/// `verify` and `inspect` write nothing, `unpack` writes into a temporary folder
/// that becomes the destination only when everything holds. The migration runner
/// and `restore` read archives through ``unpack(_:to:options:)``.
public enum FixtureArchive {}

/// How large an archive may expand when it is extracted: protection against
/// archive bombs. Reading alone (`verify`, `inspect`, `list`) writes nothing and
/// applies no limit.
public struct ArchiveLimits: Sendable, Equatable {
    /// 16 GiB of entries in all.
    public static let defaultMaxTotalSize: UInt64 = 16 << 30
    /// 1000 bytes extracted per byte of archive.
    public static let defaultMaxRatio: Double = 1000

    /// The most bytes the entries may hold in all.
    public var maxTotalSize: UInt64
    /// The most bytes the entries may hold per byte of the archive file.
    public var maxRatio: Double

    public init(maxTotalSize: UInt64 = defaultMaxTotalSize, maxRatio: Double = defaultMaxRatio) {
        self.maxTotalSize = maxTotalSize
        self.maxRatio = maxRatio
    }

    /// No limit: for passes that write nothing.
    public static let unlimited = ArchiveLimits(maxTotalSize: .max, maxRatio: .infinity)
}

/// What one pass over an archive found: its format, its entries and how they
/// compare with the `SHA256SUMS` inside it.
public struct ArchiveContents: Sendable, Equatable, Codable {
    /// One entry that passed the safety checks.
    public struct Entry: Sendable, Equatable, Codable {
        public enum Kind: String, Sendable, Codable { case file, folder }
        /// The path below the fixture folder (`./` and a trailing `/` removed).
        public internal(set) var path: String
        public internal(set) var kind: Kind
        public internal(set) var size: UInt64
        /// The digest of the bytes read, for a file that was hashed (every file
        /// but an unlisted one).
        public var sha256: String?
    }

    /// The archive, as given.
    public internal(set) var path: String
    /// libarchive's name for the tar dialect: `POSIX pax interchange format`, `GNU tar format`.
    public internal(set) var format: String
    /// `zstd`, `gzip`, `xz` or `none`.
    public internal(set) var compression: String
    /// The archive file's size in bytes.
    public internal(set) var compressedSize: UInt64
    /// The bytes the entries hold in all.
    public internal(set) var expandedSize: UInt64
    public internal(set) var entries: [Entry]
    /// The check against the archive's own `SHA256SUMS`, with the same problem
    /// kinds as a folder's: changed, missing, unlisted, unreadable, malformed.
    public internal(set) var verification: FolderVerification
}

extension FixtureArchive {
    /// The problem list of a failed check in one line: `App.sqlite: changed; extra: unlisted`,
    /// the first few and how many more.
    static func summary(of problems: [VerificationProblem], limit: Int = 3) -> String {
        var parts = problems.prefix(limit).map { "\($0.file): \($0.summary)" }
        if problems.count > limit { parts.append("and \(problems.count - limit) more") }
        return parts.joined(separator: "; ")
    }
}

/// Byte counts for messages: `16 GiB`, `1.5 MiB`, `512 B`.
enum ByteCount {
    static func describe(_ count: UInt64) -> String { describe(count, decimals: 1) }

    /// Two counts that are compared (`need 2.95 MiB, 2.94 MiB free`): with as many
    /// decimals as it takes for two different counts to read differently, and
    /// in bytes when no unit does.
    static func describe(_ first: UInt64, _ second: UInt64) -> (String, String) {
        for decimals in 1...3 {
            let pair = (describe(first, decimals: decimals), describe(second, decimals: decimals))
            if first == second || pair.0 != pair.1 { return pair }
        }
        return ("\(first) B", "\(second) B")
    }

    private static func describe(_ count: UInt64, decimals: Int) -> String {
        guard count >= 1024 else { return "\(count) B" }
        let units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if value == value.rounded() { return "\(Int(value)) \(units[unit])" }
        return String(format: "%.\(decimals)f %@", value, units[unit])
    }

    /// A ratio limit as people write it: `1000`, `2.5`.
    static func describe(ratio: Double) -> String {
        ratio == ratio.rounded() && ratio < 1e15 ? String(Int64(ratio)) : String(ratio)
    }
}
