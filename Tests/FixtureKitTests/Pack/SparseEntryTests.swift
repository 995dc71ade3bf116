import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// Sparse tar entries are read in full, their holes as zeros, whoever wrote
/// them (GNU tar's `-S` in its three formats, libarchive's pax writer, a map
/// that is nothing but holes as in libarchive's `test_read_format_gtar_sparse_length`),
/// and hashed as the bytes GNU tar and bsdtar extract; an entry whose data ends
/// before its declared size is refused as truncated.
@Suite struct SparseEntryTests {
    /// A file's layout: its size, and the ranges that hold data (the rest are holes).
    struct Layout: Sendable, CustomTestStringConvertible {
        var name: String
        var size: Int
        var data: [Range<Int>]
        var testDescription: String { name }

        var bytes: [UInt8] {
            var bytes = [UInt8](repeating: 0, count: size)
            for range in data { for index in range { bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ 7) | 1 } }
            return bytes
        }
    }

    static let layouts: [Layout] = [
        Layout(name: "one hole of 1279 bytes", size: 1279, data: []),
        Layout(name: "one hole of 64 MiB", size: 64 << 20, data: []),
        Layout(name: "data, then a hole to the end", size: 1 << 20, data: [0..<5000]),
        Layout(name: "a hole, then data to the end", size: 1 << 20, data: [(1 << 20) - 4096..<(1 << 20)]),
        Layout(name: "data, a hole, data", size: 3 << 20, data: [0..<4096, (2 << 20)..<(2 << 20) + 10]),
        Layout(name: "a hole, data, a hole", size: 2 << 20, data: [(1 << 20)..<(1 << 20) + 8192]),
        Layout(name: "8 MiB: a few bytes in the middle", size: 8 << 20, data: [1_000_000..<1_000_005]),
    ]

    /// Writes `layout` as a file with real holes (a hole is what is never written).
    static func writeSparse(_ layout: Layout, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(fd >= 0)
        defer { close(fd) }
        let bytes = layout.bytes
        for range in layout.data {
            _ = bytes[range].withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(range.lowerBound)) }
        }
        #expect(ftruncate(fd, off_t(layout.size)) == 0)
    }

    /// Verifies, inspects and unpacks `archive`, which holds `fixture` (SHA256SUMS
    /// first): every command sees the file's bytes, and unpacks exactly them.
    func expectReadInFull(_ archive: String, fixture: String, in folder: TemporaryFolder, label: String) throws {
        let verify = fixturekit("verify", archive)
        #expect(verify.status == 0, "\(label): \(verify.standardError)")
        #expect(fixturekit("inspect", "--quiet", archive).status == 0, "\(label)")
        let destination = folder.url("unpacked-\(UUID().uuidString)")
        // A sparse entry expands to its whole size: far more than 1000 times a hole's few bytes.
        let unpack = fixturekit("unpack", "--max-ratio", "1000000", archive, destination)
        #expect(unpack.status == 0, "\(label): \(unpack.standardError)")
        #expect(try sha256(ofFileAt: destination + "/file") == (try sha256(ofFileAt: fixture + "/file")), "\(label)")
        // The SHA256SUMS of a short reading (the file's data without its holes, or nothing) fails.
        try? FileManager.default.removeItem(atPath: destination)
    }

    @Test(arguments: layouts)
    func aSparseEntryWrittenByGNUTarIsReadInFull(layout: Layout) throws {
        let folder = try TemporaryFolder()
        let fixture = folder.url("fixture")
        try FileManager.default.createDirectory(atPath: fixture, withIntermediateDirectories: true)
        try Self.writeSparse(layout, to: fixture + "/file")
        #expect(try run(["sh", "-c", "sha256sum file > SHA256SUMS"], in: fixture).status == 0)
        for format in ["gnu", "posix", "oldgnu"] {
            let archive = folder.url("\(format).tar")
            let tar = try run(["tar", "-S", "--hole-detection=raw", "--format=\(format)", "-cf", archive, "-C", fixture, "SHA256SUMS", "file"])
            #expect(tar.status == 0, "\(tar.standardError)")
            // GNU tar stored it sparse: the archive is smaller than the file's bytes.
            let size = try #require(try FileManager.default.attributesOfItem(atPath: archive)[.size] as? Int)
            #expect(layout.size < 1 << 20 || size < layout.size / 2, "\(layout.name) \(format): \(size)")
            try expectReadInFull(archive, fixture: fixture, in: folder, label: "\(layout.name), tar --format=\(format)")
            // bsdtar reads it back the same.
            let bsdtar = try run(["sh", "-c", "bsdtar -xOf \"$0\" file | sha256sum", archive])
            #expect(bsdtar.standardOutput.prefix(64) == (try sha256(ofFileAt: fixture + "/file")), "\(layout.name) \(format)")
        }
    }

    @Test(arguments: layouts)
    func aSparseEntryWrittenByLibarchiveIsReadInFull(layout: Layout) throws {
        let folder = try TemporaryFolder()
        let fixture = folder.url("fixture")
        let bytes = layout.bytes
        try folder.write("fixture/file", bytes)
        let sums = try TestEntry.sums([("file", bytes)])
        // libarchive's own map: the data blocks, and (as its writer adds) the end of the file.
        let map = layout.data.map { ($0.lowerBound, $0.count) }
        for format in [ArchiveFormat.tar, .tarZstd] {
            let archive = folder.url("libarchive" + format.suffix)
            try buildArchive(archive, [sums, .sparse("file", bytes, map: map)], format: format)
            try expectReadInFull(archive, fixture: fixture, in: folder, label: "\(layout.name), libarchive \(format.suffix)")
            // A SHA256SUMS that lists the bytes a short reading gives (the data
            // blocks alone, with no hole) does not verify.
            let short = layout.data.flatMap { Array(bytes[$0]) }
            try buildArchive(archive, [try TestEntry.sums([("file", short)]), .sparse("file", bytes, map: map)], format: format)
            let verify = fixturekit("verify", "--quiet", archive)
            #expect(verify.status == 1, "\(layout.name): \(verify.standardError)")
            #expect(verify.standardError.hasPrefix("fixturekit: verify: \(archive): entry \"file\": changed\n"), "\(verify.standardError)")
        }
    }

    /// An archive cut anywhere in an entry's data is refused: never read short.
    @Test func anEntryCutShortIsRefusedAsTruncated() throws {
        let folder = try TemporaryFolder()
        let bytes = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        let archive = folder.url("whole.tar")
        try buildArchive(archive, [try TestEntry.sums([("file", bytes)]), .file("file", bytes)], format: .tar)
        let whole = try folder.read("whole.tar")
        // The file's data starts after SHA256SUMS' headers and data, and its own headers.
        let start = try #require(whole.indices.first { whole[$0..<min($0 + 64, whole.count)].elementsEqual(bytes.prefix(64)) })
        for cut in stride(from: start, to: start + bytes.count, by: 777) + [start + bytes.count - 1] {
            let path = folder.url("cut-\(cut).tar")
            try folder.write("cut-\(cut).tar", Array(whole.prefix(cut)))
            let verify = fixturekit("verify", path)
            #expect(verify.status == 2, "cut at \(cut): \(verify.standardError)")
            #expect(verify.standardError.hasPrefix("fixturekit: verify: \(path): entry \"file\": truncated"), "cut at \(cut): \(verify.standardError)")
            let unpack = fixturekit("unpack", path, folder.url("dest"))
            #expect(unpack.status == 2 && !FileManager.default.fileExists(atPath: folder.url("dest")), "cut at \(cut)")
        }
    }
}
