import FixtureKitSystem
import FixtureKitArchiveIO
import FixtureKitModels

/// What one streaming pass over a fixture archive found, with the bytes of the
/// two small files that describe the fixture: its `SHA256SUMS` and its
/// `manifest.json`. Nothing is extracted; every other file is hashed and dropped.
struct ArchiveMetadata: Sendable {
    /// The pass' findings, including the check against the archive's own `SHA256SUMS`.
    var contents: ArchiveContents
    /// The archive's `SHA256SUMS`, as stored.
    var sums: SHA256Sums
    /// Its bytes, as stored (what `sums` lines of ``CorpusLock`` hash).
    var sumsBytes: [UInt8]
    /// The archive's `manifest.json`, when it holds one no larger than ``MetadataSink/manifestLimit``.
    var manifest: [UInt8]?

    /// Reads `archive` once, as `verify` does (the same refusals, no size limits).
    /// - Parameter files: also given every listed file's bytes (``CheckedFilesSink``).
    /// - Throws: ``FixtureKitError`` when the archive is refused: unreadable, malformed or unsafe.
    static func read(_ archive: String, what: String, progress: WorkProgress? = nil, files: (any ArchiveScanSink)? = nil) throws(FixtureKitError) -> ArchiveMetadata {
        try ArchiveLocale.withUTF8 { () throws(FixtureKitError) in
            let sink = MetadataSink()
            let scanner = try ArchiveScanner(archive: archive, what: what, limits: .unlimited)
            scanner.progress = progress
            let contents = try scanner.scan(into: files.map { TeeSink([sink, $0]) } ?? sink)
            return ArchiveMetadata(contents: contents, sums: SHA256Sums(parsing: sink.sums ?? []), sumsBytes: sink.sums ?? [], manifest: sink.manifest)
        }
    }
}

/// Keeps `SHA256SUMS` and `manifest.json` from an archive scan in memory.
///
/// ``ArchiveScanner`` calls ``beginFile(_:)`` and ``endFile()`` on its own thread and
/// ``write(_:)`` on its background stage, one call after the other: the stage's
/// handover orders them, as for the scanner's hasher.
final class MetadataSink: ArchiveScanSink {
    /// A manifest is a few KiB; one larger than this is not kept (and not read).
    static let manifestLimit = 16 << 20
    static let manifestPath = RelativePath(Manifest.fileName)

    private(set) var sums: [UInt8]?
    private(set) var manifest: [UInt8]?
    private var current: RelativePath?
    private var buffer: [UInt8] = []
    private var overflowed = false

    func beginFile(_ path: RelativePath) throws {
        current = path == ArchiveScanner.sumsPath || path == Self.manifestPath ? path : nil
        buffer = []
        overflowed = false
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard current != nil, !overflowed else { return }
        // SHA256SUMS is bounded by the scanner itself; the manifest here.
        if current == Self.manifestPath && buffer.count + bytes.count > Self.manifestLimit {
            overflowed = true
            buffer = []
            return
        }
        buffer.append(contentsOf: bytes)
    }

    func endFile() throws {
        switch current {
        case ArchiveScanner.sumsPath?: sums = buffer
        case Self.manifestPath? where !overflowed: manifest = buffer
        default: break
        }
        current = nil
        buffer = []
    }
}

/// Hands each file of an archive scan to several sinks, in order.
final class TeeSink: ArchiveScanSink {
    private let sinks: [any ArchiveScanSink]

    init(_ sinks: [any ArchiveScanSink]) { self.sinks = sinks }

    func beginFile(_ path: RelativePath) throws { for sink in sinks { try sink.beginFile(path) } }
    func write(_ bytes: UnsafeRawBufferPointer) throws { for sink in sinks { try sink.write(bytes) } }
    func endFile() throws { for sink in sinks { try sink.endFile() } }
}
