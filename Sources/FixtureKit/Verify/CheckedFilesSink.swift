import FixtureKitSystem
import FixtureKitModels

/// Writes what a fixture's checks beyond its checksums read (``FixtureCheck``)
/// from an archive scan into a private folder, so that an archive's fixture is
/// checked by the same code, in the same order, as a folder's: one verdict.
///
/// Without `--deep` the checks read a store set's headers and its log, not its
/// pages: each file gets its first ``prefixSize`` bytes and its whole size (the
/// rest a hole, which takes no room), a `-wal` all its bytes; with `--deep`,
/// whose checks open a copy of the store with SQLite, every file whole.
final class CheckedFilesSink: ArchiveScanSink {
    /// More than any header the checks read (database, `-shm`, `-journal`).
    static let prefixSize = 64 << 10

    let root: String
    private let whole: Bool
    private var fd: FileDescriptor?
    private var current = ""
    private var keepsAll = false
    private var size: UInt64 = 0

    /// - Parameters:
    ///   - root: the folder to write into; it is created, mode 0700.
    ///   - whole: every file whole (`--deep`).
    init(root: String, whole: Bool) throws(FileSystemError) {
        self.root = root
        self.whole = whole
        try POSIX.makeFolder(root, mode: 0o700)
    }

    deinit { try? fd?.close() }

    /// The file being written (`EBADF` between files).
    private func file(_ operation: String) throws(FileSystemError) -> FileDescriptor {
        guard let fd else { throw FileSystemError(operation, path: current, code: .badFileDescriptor) }
        return fd
    }

    func beginFile(_ path: RelativePath) throws {
        for ancestor in path.ancestors {
            let folder = root.appendingPath(ancestor.description)
            if try POSIX.lstatIfPresent(folder) == nil { try POSIX.makeFolder(folder, mode: 0o700) }
        }
        current = root.appendingPath(path.description)
        fd = try FileDescriptor.open(current, .writeOnly, options: [.exclusiveCreate, .noFollow], permissions: 0o600)
        keepsAll = whole || path.description.hasSuffix(StoreSet.Sidecar.wal.rawValue)
        size = 0
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        let kept = keepsAll ? bytes.count : max(0, min(bytes.count, Self.prefixSize - Int(min(size, UInt64(Self.prefixSize)))))
        if kept > 0 { try file("write").writeAll(UnsafeRawBufferPointer(rebasing: bytes[0..<kept])) }
        size += UInt64(bytes.count)
    }

    func endFile() throws {
        defer {
            try? fd?.close()
            fd = nil
        }
        try file("truncate").truncate(to: Int64(size))
    }
}
