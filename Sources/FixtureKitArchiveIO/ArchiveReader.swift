#if canImport(Glibc)
import Glibc
#endif
import CArchive
import FixtureKitSystem

/// One entry's header, as the archive states it: nothing is checked yet.
public struct ArchiveEntry: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case file
        case folder
        case symbolicLink(target: [UInt8])
        case hardLink(target: [UInt8])
        case characterDevice
        case blockDevice
        case fifo
        case socket
        case unknown(mode: UInt32)
    }

    /// The name exactly as stored (`./a`, `a/`, `../x` included).
    public package(set) var name: [UInt8]
    public package(set) var kind: Kind
    /// The size of the entry's data, as its header declares it.
    public package(set) var size: UInt64
    /// The permission bits (`0o644`).
    public package(set) var permissions: UInt32
    /// Seconds since 1970, as stored.
    public package(set) var modificationTime: Int64
    public package(set) var uid: Int64
    public package(set) var gid: Int64
    /// Whether the entry is sparse (GNU tar's `-S`, a pax `GNU.sparse` map, what
    /// libarchive writes for a file with holes): its data holds only the parts
    /// that are not holes, and ``ArchiveReader/read(into:)`` gives the holes as zeros.
    public package(set) var isSparse: Bool = false

    /// The name for messages: in quotes, control characters escaped.
    package var quotedName: String { RelativePath(bytes: name).quoted }

    /// `file`, `folder`, `symbolic link to "/etc"`, ...
    package var kindDescription: String {
        switch kind {
        case .file: "regular file"
        case .folder: "folder"
        case .symbolicLink(let target): "symbolic link to \(RelativePath(bytes: target).quoted)"
        case .hardLink(let target): "hard link to \(RelativePath(bytes: target).quoted)"
        case .characterDevice: "character device"
        case .blockDevice: "block device"
        case .fifo: "FIFO"
        case .socket: "socket"
        case .unknown(let mode): "file of unknown type 0o\(String(mode, radix: 8))"
        }
    }
}

/// A tar archive opened for reading through libarchive, one entry after another,
/// in one streaming pass: nothing is written anywhere.
///
/// Reads tar (ustar, pax, GNU) compressed with zstd, gzip or xz, or not
/// compressed; nothing else (no zip, no cpio, no external decompressor program).
/// Use it through ``FixtureArchive``, which checks what the entries say; alone it
/// trusts every header.
///
/// Owns one `struct archive *` and the file's descriptor, freed in `deinit`; not `Sendable`.
public final class ArchiveReader {
    /// libarchive reads the file in blocks of this size.
    static let readBlockSize = 1 << 20

    public let path: String
    /// The archive's size in bytes, when it is known before it is read (a file,
    /// or standard input redirected from one); `nil` for a pipe.
    public let knownSize: UInt64?
    /// The archive's size in bytes: what an expansion ratio is measured against;
    /// for a pipe, the bytes read from it so far (all of them, once read to its end).
    public var fileSize: UInt64 { knownSize ?? bytesConsumed }
    /// What names standard input as the archive: `-`, as `tar -f -` and `sha256sum -` take it.
    public static let standardInput = "-"
    private let handle: OpaquePointer
    private let fd: Int32
    private var isClosed = false
    /// The current entry's size as its header declares it, and the bytes of it
    /// handed out so far.
    /// `dataEnded` once libarchive said the data ended (a later call could give
    /// more: after its end, libarchive pads a sparse entry up to its last map
    /// offset, which is why a hole is filled once, here).
    private var entry: (size: UInt64, isSparse: Bool, delivered: UInt64, dataEnded: Bool) = (0, false, 0, false)

    /// Opens the archive at `path`; the first header is read by ``nextEntry()``.
    ///
    /// - Throws: ``FileSystemError`` when the file cannot be opened or is not a
    ///   regular file; ``ArchiveError`` when libarchive cannot start reading it.
    public init(path: String) throws {
        self.path = path
        let (fd, info): (Int32, FileStatus)
        if path == Self.standardInput {
            (fd, info) = try Self.openStandardInput()
        } else {
            // A FIFO or a device is refused before anything waits on it.
            (fd, info) = try POSIX.openRegularFile(path)
        }
        guard let handle = archive_read_new() else {
            Glibc.close(fd)
            throw ArchiveError("archive_read_new", message: "out of memory")
        }
        self.fd = fd
        self.handle = handle
        self.knownSize = info.kind == .regular ? UInt64(info.size) : nil
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)
        FaultInjection.reached(.opened, path)
        // From here on deinit frees both, whatever fails.
        try check(archive_read_support_filter_zstd(handle), "archive_read_support_filter_zstd")
        try check(archive_read_support_filter_gzip(handle), "archive_read_support_filter_gzip")
        try check(archive_read_support_filter_xz(handle), "archive_read_support_filter_xz")
        try check(archive_read_support_filter_none(handle), "archive_read_support_filter_none")
        try check(archive_read_support_format_tar(handle), "archive_read_support_format_tar")
        try check(archive_read_open_fd(handle, fd, Self.readBlockSize), "archive_read_open_fd")
    }

    deinit {
        archive_read_free(handle)
        Glibc.close(fd)
    }

    /// The next entry's header, or `nil` after the last one.
    ///
    /// - Throws: ``ArchiveError`` for a damaged, truncated or unknown archive.
    public func nextEntry() throws(ArchiveError) -> ArchiveEntry? {
        var pointer: OpaquePointer?
        let status = archive_read_next_header(handle, &pointer)
        if status == ARCHIVE_EOF { return nil }
        // ARCHIVE_WARN is a header libarchive could read but not fully convert
        // (a name that has no form in the C locale): the UTF-8 name is still there.
        // ARCHIVE_RETRY (a damaged header libarchive could skip) is a failure here.
        guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry = pointer else {
            throw ArchiveError("archive_read_next_header", handle: handle)
        }
        let header = ArchiveEntry(
            name: Self.name(archive_entry_pathname_utf8(entry), archive_entry_pathname(entry)),
            kind: Self.kind(entry),
            size: archive_entry_size_is_set(entry) != 0 ? UInt64(max(0, archive_entry_size(entry))) : 0,
            permissions: UInt32(archive_entry_perm(entry)),
            modificationTime: Int64(archive_entry_mtime(entry)),
            uid: Int64(archive_entry_uid(entry)),
            gid: Int64(archive_entry_gid(entry)),
            isSparse: archive_entry_sparse_count(entry) > 0)
        self.entry = (header.size, header.isSparse, 0, false)
        return header
    }

    /// Reads the current entry's next bytes into `buffer`; 0 at its end, once
    /// the entry's whole size (as its header declares it) was handed out.
    ///
    /// A sparse entry is read in full, its holes as zeros, the trailing one
    /// included: `archive_read_data` fills a hole only up to the next block of
    /// data, so a hole that ends the file (or a file that is one hole: the map
    /// `0 0`, `1279 0` of libarchive's `test_read_format_gtar_sparse_length`) is
    /// filled here, as GNU tar and bsdtar extract it.
    /// - Throws: ``ArchiveError``: libarchive's, or an entry whose data ends
    ///   before the size its header declares (`truncated`).
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        var count = 0
        if !entry.dataEnded {
            count = archive_read_data(handle, buffer.baseAddress, buffer.count)
            guard count >= 0 else { throw ArchiveError("archive_read_data", handle: handle) }
            entry.dataEnded = count == 0
        }
        if count == 0 && entry.delivered < entry.size {
            guard entry.isSparse else {
                throw ArchiveError(
                    "archive_read_data",
                    message: "Truncated entry: its data ends after \(entry.delivered) of the \(entry.size) bytes its header declares")
            }
            count = Int(min(UInt64(buffer.count), entry.size - entry.delivered))
            buffer.baseAddress?.initializeMemory(as: UInt8.self, repeating: 0, count: count)
        }
        entry.delivered += UInt64(count)
        return count
    }

    /// How much of the archive libarchive has read so far (from its file or pipe).
    public var bytesConsumed: UInt64 { UInt64(max(0, archive_filter_bytes(handle, -1))) }

    /// A descriptor of standard input of its own (closed with the reader, stdin
    /// left open), and what it is: a pipe, a file; a terminal is refused, as
    /// `tar` refuses to read an archive from one.
    private static func openStandardInput() throws(FileSystemError) -> (Int32, FileStatus) {
        let name = "standard input"
        guard isatty(STDIN_FILENO) == 0 else { throw FileSystemError("read", path: name, message: "is a terminal, not an archive") }
        let fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0)
        guard fd >= 0 else { throw FileSystemError("read", path: name, errno: errno) }
        let info: FileStatus
        do { info = try FileDescriptor(rawValue: fd, path: name).status() } catch {
            Glibc.close(fd)
            throw error
        }
        switch info.kind {
        case .regular, .fifo, .socket: return (fd, info)
        default:
            Glibc.close(fd)
            throw FileSystemError("read", path: name, message: FileKind.describe(info.mode) + ", nor a pipe: an archive is read from one")
        }
    }

    /// Passes over the current entry's data (still decompressed, to find the next header).
    public func skipData() throws(ArchiveError) {
        guard archive_read_data_skip(handle) == ARCHIVE_OK else { throw ArchiveError("archive_read_data_skip", handle: handle) }
    }

    /// libarchive's name for the tar dialect of the entries read so far:
    /// `POSIX pax interchange format`, `GNU tar format`, `POSIX ustar format`.
    public var formatName: String {
        archive_format_name(handle).map { String(cString: $0) } ?? "unknown"
    }

    /// The compression: `zstd`, `gzip`, `xz` or `none`.
    public var compressionName: String {
        archive_filter_name(handle, 0).map { String(cString: $0) } ?? "unknown"
    }

    /// Ends reading; the handle is freed in `deinit` either way.
    public func close() throws(ArchiveError) {
        guard !isClosed else { return }
        isClosed = true
        guard archive_read_close(handle) == ARCHIVE_OK else { throw ArchiveError("archive_read_close", handle: handle) }
    }

    private func check(_ status: Int32, _ function: String) throws(ArchiveError) {
        guard status == ARCHIVE_OK else { throw ArchiveError(function, handle: handle) }
    }

    /// The name's bytes: its UTF-8 form when libarchive has one (pax `path=`
    /// records), else the raw bytes of the header.
    private static func name(_ utf8: UnsafePointer<CChar>?, _ raw: UnsafePointer<CChar>?) -> [UInt8] {
        guard let text = utf8 ?? raw else { return [] }
        return Array(UnsafeBufferPointer(start: text, count: strlen(text))).map { UInt8(bitPattern: $0) }
    }

    private static func kind(_ entry: OpaquePointer) -> ArchiveEntry.Kind {
        // A hard link's type is often "regular file" with a link name: test it first.
        if let target = archive_entry_hardlink_utf8(entry) ?? archive_entry_hardlink(entry) {
            return .hardLink(target: name(target, nil))
        }
        switch UInt32(archive_entry_filetype(entry)) {
        case ArchiveFileType.regular: return .file
        case ArchiveFileType.folder: return .folder
        case ArchiveFileType.symbolicLink: return .symbolicLink(target: name(archive_entry_symlink_utf8(entry), archive_entry_symlink(entry)))
        case ArchiveFileType.characterDevice: return .characterDevice
        case ArchiveFileType.blockDevice: return .blockDevice
        case ArchiveFileType.fifo: return .fifo
        case ArchiveFileType.socket: return .socket
        case let type: return .unknown(mode: type)
        }
    }
}
