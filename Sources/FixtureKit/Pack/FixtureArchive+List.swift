import FixtureKitSystem
import FixtureKitArchiveIO
import FixtureKitModels

/// One entry of an archive as `list` shows it: what the header says, unchecked.
public struct ListedEntry: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        case file, folder
        case symbolicLink = "symbolic-link"
        case hardLink = "hard-link"
        case characterDevice = "character-device"
        case blockDevice = "block-device"
        case fifo, socket, unknown
    }

    /// The name as stored (`./` and `/` included), invalid UTF-8 shown as U+FFFD.
    public internal(set) var name: String
    public internal(set) var kind: Kind
    public internal(set) var size: UInt64
    /// The permission bits, e.g. 420 (0o644).
    public internal(set) var mode: UInt32
    /// Seconds since 1970.
    public internal(set) var modificationTime: Int64
    public internal(set) var uid: Int64
    public internal(set) var gid: Int64
    /// A link's target.
    public internal(set) var target: String?

    init(_ entry: ArchiveEntry) {
        name = RelativePath(bytes: entry.name).description
        size = entry.size
        mode = entry.permissions
        modificationTime = entry.modificationTime
        uid = entry.uid
        gid = entry.gid
        switch entry.kind {
        case .file: kind = .file
        case .folder: kind = .folder
        case .symbolicLink(let link): kind = .symbolicLink; target = RelativePath(bytes: link).description
        case .hardLink(let link): kind = .hardLink; target = RelativePath(bytes: link).description
        case .characterDevice: kind = .characterDevice
        case .blockDevice: kind = .blockDevice
        case .fifo: kind = .fifo
        case .socket: kind = .socket
        case .unknown: kind = .unknown
        }
    }
}

/// What `list` found besides the entries.
public struct ArchiveListing: Sendable, Equatable, Codable {
    public internal(set) var path: String
    public internal(set) var format: String
    public internal(set) var compression: String
    public internal(set) var compressedSize: UInt64
    public internal(set) var entries: [ListedEntry]
    /// The bytes the entries hold in all.
    public var expandedSize: UInt64 { entries.reduce(0) { $0 + $1.size } }
}

extension FixtureArchive {
    /// The entries of any tar archive, as their headers state them: nothing is
    /// checked, hashed or written, so that an archive can be looked at before it
    /// is trusted. `each` is called for every entry as it is read, so that a
    /// listing shows what came before a damaged part.
    ///
    /// - Throws: ``FixtureKitError`` when the archive cannot be read to its end.
    public static func list(_ archive: String, each: (ListedEntry) -> Void = { _ in }) throws(FixtureKitError) -> ArchiveListing {
        try ArchiveLocale.withUTF8 { () throws(FixtureKitError) in try listEntries(archive, each: each) }
    }

    private static func listEntries(_ archive: String, each: (ListedEntry) -> Void) throws(FixtureKitError) -> ArchiveListing {
        let what = "list"
        let reader = try ArchiveReader.open(archive, what: what)
        var entries: [ListedEntry] = []
        var previous: String?
        while true {
            let header: ArchiveEntry?
            do {
                header = try reader.nextEntry()
            } catch {
                throw FixtureKitError(what: what, path: archive, why: (previous.map { "after entry \($0): " } ?? "") + error.reason)
            }
            guard let entry = header else { break }
            let listed = ListedEntry(entry)
            entries.append(listed)
            each(listed)
            do {
                try reader.skipData()
            } catch {
                throw FixtureKitError(what: what, path: archive, why: "entry \(entry.quotedName): " + error.reason)
            }
            previous = entry.quotedName
        }
        return ArchiveListing(
            path: archive, format: reader.formatName, compression: reader.compressionName,
            compressedSize: reader.fileSize, entries: entries)
    }

    /// Verifies an archive against the `SHA256SUMS` inside it in one streaming
    /// pass, without extracting anything: `fixturekit verify FILE`.
    ///
    /// - Returns: the check, with the problem kinds of a folder's check.
    /// - Throws: ``FixtureKitError`` when the archive is refused (unreadable,
    ///   malformed, unsafe): exactly what `unpack` refuses, less its size limits.
    public static func verify(_ archive: String, progress: WorkProgress? = nil) throws(FixtureKitError) -> FolderVerification {
        try ArchiveLocale.withUTF8 { () throws(FixtureKitError) in
            let scanner = try ArchiveScanner(archive: archive, what: "verify", limits: .unlimited)
            scanner.progress = progress
            return try scanner.scan(into: nil).verification
        }
    }
}

/// The archive part of `inspect`: format, compression, entries and sizes, and the
/// check against the archive's own `SHA256SUMS`, in one pass that writes nothing.
public enum ArchiveInspection {
    /// Whether `path` names an archive (by its suffix: `.tar.zst`, `.tar.gz`,
    /// `.tar.xz`, `.tar`), or is `-`, an archive streamed on standard input.
    package static func isArchive(_ path: String) -> Bool { path == ArchiveReader.standardInput || ArchiveFormat(fileName: path) != nil }

    /// Reads the archive at `path` once.
    ///
    /// - Throws: ``FixtureKitError`` when the archive is refused, as by
    ///   ``FixtureArchive/verify(_:)``.
    public static func inspect(_ path: String, progress: WorkProgress? = nil) throws(FixtureKitError) -> ArchiveContents {
        try ArchiveLocale.withUTF8 { () throws(FixtureKitError) in
            let scanner = try ArchiveScanner(archive: path, what: "inspect", limits: .unlimited)
            scanner.progress = progress
            return try scanner.scan(into: nil)
        }
    }
}
