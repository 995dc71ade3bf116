import CArchive
import Foundation
import Testing
@testable import FixtureKit

/// One entry of an archive built in a test, good or hostile.
enum TestEntry {
    case file(String, [UInt8])
    case folder(String)
    case symbolicLink(String, to: String)
    case hardLink(String, to: String)
    case characterDevice(String)
    case fifo(String)
    /// A file of `count` zero bytes, streamed (for bombs).
    case zeros(String, count: Int)
    /// A sparse file as libarchive's pax writer stores one (GNU.sparse 1.0):
    /// only the blocks of `map` (offset, length) are stored, the rest are holes.
    case sparse(String, [UInt8], map: [(Int, Int)])

    static func text(_ name: String, _ contents: String) -> TestEntry { .file(name, Array(contents.utf8)) }

    /// `SHA256SUMS` listing `files` with their digests.
    static func sums(_ files: [(String, [UInt8])]) throws -> TestEntry {
        let entries = try files.map { SHA256SumsEntry(path: RelativePath($0.0), digest: try SHA256.hash($0.1)) }
        return .file("SHA256SUMS", SHA256Sums(entries: entries).rendered())
    }
}

/// Writes an archive entry by entry with libarchive (pax headers, no checks at
/// all): the hostile archives `unpack` must refuse are built this way.
func buildArchive(_ path: String, _ entries: [TestEntry], format: ArchiveFormat = .tarZstd) throws {
    let handle = try #require(archive_write_new())
    defer { archive_write_free(handle) }
    #expect(archive_write_set_format_pax(handle) == ARCHIVE_OK)
    switch format {
    case .tarZstd: archive_write_add_filter_zstd(handle)
    case .tarGzip: archive_write_add_filter_gzip(handle)
    case .tarXz: archive_write_add_filter_xz(handle)
    case .tar: archive_write_add_filter_none(handle)
    }
    try #require(archive_write_open_filename(handle, path) == ARCHIVE_OK)
    for item in entries {
        let entry = try #require(archive_entry_new())
        defer { archive_entry_free(entry) }
        var data: [UInt8] = []
        var zeros = 0
        let name: String
        archive_entry_set_perm(entry, 0o644)
        switch item {
        case .file(let path, let bytes):
            name = path
            data = bytes
            archive_entry_set_filetype(entry, ArchiveFileType.regular)
            archive_entry_set_size(entry, la_int64_t(bytes.count))
        case .zeros(let path, let count):
            name = path
            zeros = count
            archive_entry_set_filetype(entry, ArchiveFileType.regular)
            archive_entry_set_size(entry, la_int64_t(count))
        case .sparse(let path, let bytes, let map):
            // The writer is handed the whole file and drops what the map calls holes.
            name = path
            data = bytes
            archive_entry_set_filetype(entry, ArchiveFileType.regular)
            archive_entry_set_size(entry, la_int64_t(bytes.count))
            for (offset, length) in map { archive_entry_sparse_add_entry(entry, la_int64_t(offset), la_int64_t(length)) }
        case .folder(let path):
            name = path
            archive_entry_set_filetype(entry, ArchiveFileType.folder)
            archive_entry_set_perm(entry, 0o755)
        case .symbolicLink(let path, let target):
            name = path
            archive_entry_set_filetype(entry, ArchiveFileType.symbolicLink)
            archive_entry_set_symlink(entry, target)
        case .hardLink(let path, let target):
            name = path
            archive_entry_set_filetype(entry, ArchiveFileType.regular)
            archive_entry_set_hardlink(entry, target)
        case .characterDevice(let path):
            name = path
            archive_entry_set_filetype(entry, ArchiveFileType.characterDevice)
            archive_entry_set_rdevmajor(entry, 1)
            archive_entry_set_rdevminor(entry, 3)
        case .fifo(let path):
            name = path
            archive_entry_set_filetype(entry, ArchiveFileType.fifo)
        }
        archive_entry_set_pathname(entry, name)
        try #require(archive_write_header(handle, entry) == ARCHIVE_OK, "\(String(cString: archive_error_string(handle)))")
        if !data.isEmpty {
            let written = data.withUnsafeBytes { archive_write_data(handle, $0.baseAddress, $0.count) }
            #expect(written == data.count)
        }
        if zeros > 0 {
            let block = [UInt8](repeating: 0, count: 1 << 20)
            var left = zeros
            while left > 0 {
                let count = min(left, block.count)
                _ = block.withUnsafeBytes { archive_write_data(handle, $0.baseAddress, count) }
                left -= count
            }
        }
    }
    try #require(archive_write_close(handle) == ARCHIVE_OK)
}

/// A fixture folder `name` below `folder` with a store, a manifest, a nested
/// sidecar folder and SHA256SUMS written by `fixturekit sums`.
@discardableResult
func makeFixture(in folder: TemporaryFolder, _ name: String = "1.0.0", order: [Int] = [0, 1, 2, 3]) throws -> String {
    let files: [(String, [UInt8])] = [
        ("App.sqlite", Array("SQLite format 3\0".utf8) + (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) }),
        ("manifest.json", Array("{\"store\": \"App.sqlite\", \"version\": \"1.0.0\"}\n".utf8)),
        (".App_SUPPORT/_EXTERNAL_DATA/blob", [0, 1, 2, 3]),
        ("notes/é and spaces.txt", Array("non-ASCII name\n".utf8)),
    ]
    for index in order {
        try folder.write("\(name)/\(files[index].0)", files[index].1)
    }
    let sums = fixturekit("sums", "--quiet", folder.url(name))
    #expect(sums.status == 0, "\(sums.standardError)")
    return folder.url(name)
}

/// Everything below `path` with its type, size and mode (`find -printf`): what a
/// test compares before and after a command that must change nothing.
func snapshot(_ path: String) throws -> String {
    // A folder's size is its file system's (4096 on ext4, other on tmpfs or btrfs): `-`.
    try run(["sh", "-c", "find . \\( -type d -printf '%y - %m %p\\n' \\) -o -printf '%y %s %m %p\\n' | LC_ALL=C sort"], in: path).standardOutput
}

/// The SHA-256 of a file, in hex.
func sha256(ofFileAt path: String) throws -> String {
    try SHA256.hash(Array(try Data(contentsOf: URL(fileURLWithPath: path)))).hex
}
