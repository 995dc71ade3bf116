#if canImport(Glibc)
import Glibc
#endif
import CArchive
import FixtureKitSystem
import FixtureKitCrypto

/// A byte-reproducible tar archive being written through libarchive: POSIX
/// pax-restricted headers, one pinned compressor, to a file descriptor.
///
/// zstd compresses on worker threads (``workers``): zstd's multi-threaded mode
/// cuts the stream into jobs of a size set by the level alone, so its output is
/// the same bytes for any number of workers from 1 up (its single-threaded mode,
/// 0 workers, writes other bytes, and is never used). gzip and xz run on the
/// calling thread, as they always did: their bytes do not change.
///
/// Every header field that could carry something of the machine is fixed: uid and
/// gid 0, no user or group name, modes 0644 and 0755, one modification time, no
/// access or change time, no extended attributes (entries are built from scratch,
/// never read from disk by libarchive). The compressor settings are explicit rather
/// than libarchive's defaults, so that a later libarchive changing a default does not
/// change the bytes.
///
/// Owns one `struct archive *`, freed in `deinit`; not `Sendable`.
package final class ArchiveWriter {
    /// tar's record: 20 blocks of 512 bytes, what GNU tar and bsdtar write by
    /// default. libarchive hands its output to the file in records of this size.
    static let bytesPerBlock: Int32 = 10_240
    /// The last record is not padded: padding after a compressed stream is
    /// garbage to the decompressor (libarchive pads only uncompressed output).
    static let bytesInLastBlock: Int32 = 1
    package static let fileMode: mode_t = 0o644
    package static let folderMode: mode_t = 0o755

    private let handle: OpaquePointer
    private let output: Output
    private var isClosed = false

    /// Where libarchive's output goes: the file, through a buffer of
    /// ``bufferSize`` (libarchive hands over 10 KiB records), and a SHA-256 of every
    /// byte, so that the archive's digest needs no second read.
    final class Output {
        static let bufferSize = 1 << 20

        let fd: Int32
        let path: String
        let hasher: SHA256
        var byteCount: UInt64 = 0
        /// The first failure inside the write callback, which can only return -1.
        var failure: (any Error)?
        private var buffer: [UInt8] = []
        private var writeback = WritebackTracker()

        init(fd: Int32, path: String) throws(CryptoError) {
            self.fd = fd
            self.path = path
            self.hasher = try SHA256()
            buffer.reserveCapacity(Self.bufferSize)
        }

        func append(_ bytes: UnsafeRawBufferPointer) throws {
            try hasher.update(bytes)
            byteCount += UInt64(bytes.count)
            buffer.append(contentsOf: bytes)
            if buffer.count >= Self.bufferSize { try flush() }
        }

        func flush() throws {
            guard !buffer.isEmpty else { return }
            try buffer.withUnsafeBytes { try POSIX.writeAll(fd, $0, path: path) }
            writeback.wrote(buffer.count, to: fd)
            buffer.removeAll(keepingCapacity: true)
        }
    }

    /// Starts an archive written to `fd` (whose name, for messages, is `path`).
    ///
    /// - Parameters:
    ///   - format: one of ``ArchiveFormat/packable``.
    ///   - level: a level in `format.levels`.
    ///   - workers: zstd's worker threads, at least 1; `nil` for one per core.
    ///     The bytes written do not depend on it.
    /// - Throws: ``ArchiveError`` when libarchive refuses a setting.
    package init(fd: Int32, path: String, format: ArchiveFormat, level: Int, workers: Int? = nil) throws {
        // The output first: once the handle exists, every failure goes through
        // deinit, which frees it.
        self.output = try Output(fd: fd, path: path)
        guard let handle = archive_write_new() else { throw ArchiveError("archive_write_new", message: "out of memory") }
        self.handle = handle
        try check(archive_write_set_format_pax_restricted(handle), "archive_write_set_format_pax_restricted")
        switch format {
        case .tarZstd:
            try check(archive_write_add_filter_zstd(handle), "archive_write_add_filter_zstd")
            try setOption("zstd", "compression-level", String(level))
            // libarchive 3.6 passes this to ZSTD_c_nbWorkers and streams with
            // ZSTD_e_continue, then ZSTD_e_end: zstd's multi-threaded mode, whose
            // output is the same for 1 worker or 64 (0 would be its single-threaded
            // mode, whose output differs).
            try setOption("zstd", "threads", String(Self.zstdWorkers(workers)))
        case .tarGzip:
            try check(archive_write_add_filter_gzip(handle), "archive_write_add_filter_gzip")
            try setOption("gzip", "compression-level", String(level))
            // No time of writing in the gzip header (libarchive writes one by
            // default); libarchive never writes an original file name.
            try setOption("gzip", "timestamp", nil)
        case .tarXz:
            try check(archive_write_add_filter_xz(handle), "archive_write_add_filter_xz")
            try setOption("xz", "compression-level", String(level))
            // One thread: liblzma's multi-threaded encoder writes other blocks.
            try setOption("xz", "threads", "1")
        case .tar:
            try check(archive_write_add_filter_none(handle), "archive_write_add_filter_none")
        }
        try check(archive_write_set_bytes_per_block(handle, Self.bytesPerBlock), "archive_write_set_bytes_per_block")
        try check(archive_write_set_bytes_in_last_block(handle, Self.bytesInLastBlock), "archive_write_set_bytes_in_last_block")
        let client = Unmanaged.passUnretained(output).toOpaque()
        try check(archive_write_open2(handle, client, nil, archiveWriterCallback, nil, nil), "archive_write_open2")
    }

    deinit { archive_write_free(handle) }

    /// At most this many zstd workers: each holds a job's input and output
    /// (about 12 MiB at level 3), and a fixture is read from one disk.
    static let maxWorkers = 4

    /// The workers zstd gets when asked for `workers` (`nil`: one per core):
    /// never 0, which would switch zstd to its single-threaded mode.
    static func zstdWorkers(_ workers: Int?) -> Int {
        min(max(1, workers ?? ParallelHasher.coreCount), maxWorkers)
    }

    /// The bytes written so far, and their SHA-256 once ``close()`` returned.
    package var byteCount: UInt64 { output.byteCount }

    /// The digest of the whole archive; call once, after ``close()``.
    package func digest() throws(CryptoError) -> SHA256Digest { try output.hasher.finalize() }

    /// Writes the header of a regular file of `size` bytes at `path`.
    package func beginFile(_ path: RelativePath, size: UInt64, modificationTime: Int64) throws {
        try writeHeader(path, type: ArchiveFileType.regular, mode: Self.fileMode, size: size, modificationTime: modificationTime)
    }

    /// Writes the entry of a folder at `path` (libarchive adds the trailing `/`).
    package func addFolder(_ path: RelativePath, modificationTime: Int64) throws {
        try writeHeader(path, type: ArchiveFileType.folder, mode: Self.folderMode, size: 0, modificationTime: modificationTime)
    }

    /// Writes the next bytes of the current file: all of them.
    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let written = archive_write_data(handle, bytes.baseAddress! + offset, bytes.count - offset)
            guard written > 0 else { throw failure("archive_write_data") }
            offset += written
        }
    }

    /// Ends the archive: the end-of-archive blocks, the compressor's last bytes,
    /// all written to the file.
    package func close() throws {
        guard !isClosed else { return }
        isClosed = true
        guard archive_write_close(handle) == ARCHIVE_OK else { throw failure("archive_write_close") }
        try output.flush()
    }

    private func writeHeader(_ path: RelativePath, type: UInt32, mode: mode_t, size: UInt64, modificationTime: Int64) throws {
        guard let entry = archive_entry_new2(handle) else { throw ArchiveError("archive_entry_new2", message: "out of memory") }
        defer { archive_entry_free(entry) }
        path.withCString { archive_entry_set_pathname_utf8(entry, $0) }
        archive_entry_set_filetype(entry, type)
        archive_entry_set_perm(entry, mode)
        archive_entry_set_size(entry, la_int64_t(size))
        archive_entry_set_mtime(entry, time_t(modificationTime), 0)
        archive_entry_set_uid(entry, 0)
        archive_entry_set_gid(entry, 0)
        guard archive_write_header(handle, entry) == ARCHIVE_OK else { throw failure("archive_write_header") }
    }

    private func setOption(_ module: String, _ option: String, _ value: String?) throws {
        try check(archive_write_set_filter_option(handle, module, option, value), "archive_write_set_filter_option \(module):\(option)")
    }

    private func check(_ status: Int32, _ function: String) throws {
        guard status == ARCHIVE_OK else { throw failure(function) }
    }

    /// The write callback's own failure when there was one (a full disk), else libarchive's.
    private func failure(_ function: String) -> any Error {
        output.failure ?? ArchiveError(function, handle: handle)
    }
}

/// libarchive's write callback for ``ArchiveWriter``: writes a block to the file
/// and hashes it. (A C function pointer cannot be formed from a method.)
private func archiveWriterCallback(_ archive: OpaquePointer?, _ client: UnsafeMutableRawPointer?, _ buffer: UnsafeRawPointer?, _ length: Int) -> Int {
    guard let client, let buffer else { return -1 }
    let output = Unmanaged<ArchiveWriter.Output>.fromOpaque(client).takeUnretainedValue()
    do {
        try output.append(UnsafeRawBufferPointer(start: buffer, count: length))
    } catch {
        if output.failure == nil { output.failure = error }
        return -1
    }
    return length
}
