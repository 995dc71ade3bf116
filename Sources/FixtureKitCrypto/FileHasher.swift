#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Synchronization
import FixtureKitSystem

/// The digest of one file and how many bytes were read to compute it.
public struct FileDigest: Sendable, Equatable {
    public package(set) var digest: SHA256Digest
    public package(set) var size: UInt64

    package init(digest: SHA256Digest, size: UInt64) {
        self.digest = digest
        self.size = size
    }
}

/// Hashes whole files in one sequential read pass, reusing one large buffer.
///
/// Not `Sendable`: each thread uses its own.
package final class FileHasher {
    /// Large reads keep the system-call count low; 1 MiB fits in L2 on the
    /// machines we measured and keeps peak memory at one buffer per core.
    static let bufferSize = 1 << 20

    private let hasher: SHA256
    private let buffer: UnsafeMutableRawBufferPointer
    /// Told of every block read.
    var progress: WorkProgress?

    package init() throws(CryptoError) {
        hasher = try SHA256()
        buffer = .allocate(byteCount: Self.bufferSize, alignment: 4096)
    }

    deinit { buffer.deallocate() }

    /// The reason given for a file whose size or modification time moved while it
    /// was read: its digest is of bytes it may never have held at once.
    package static let changedWhileRead = "changed while it was read"

    /// The digest of the regular file at `path`; symbolic links are not followed.
    ///
    /// - Throws: ``FileSystemError`` when the file cannot be opened or read, is
    ///   not a regular file (a folder, a FIFO, a device, a link), or changed
    ///   while it was read (``changedWhileRead``).
    package func digest(ofFileAt path: String) throws -> FileDigest {
        FaultInjection.reached(.willOpen, path)
        // O_NONBLOCK: opening a FIFO must not wait for a writer.
        let fd = try POSIX.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        defer { close(fd) }
        let file = FileDescriptor(rawValue: fd, path: path)
        let info = try file.status()
        guard info.kind == .regular else {
            throw FileSystemError("read", path: path, message: FileKind.describe(info.mode))
        }
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)
        FaultInjection.reached(.opened, path)
        var total: UInt64 = 0
        while true {
            let count = POSIX.retrying { read(fd, buffer.baseAddress, buffer.count) }
            if count < 0 { throw FileSystemError("read", path: path, errno: errno) }
            if count == 0 { break }
            try hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            total += UInt64(count)
            progress?.advance(UInt64(count))
        }
        // What tar calls "file changed as we read it": written to, grown or cut meanwhile.
        let after = try file.status()
        guard total == UInt64(info.size), after.size == info.size, after.modified == info.modified else { throw FileSystemError("read", path: path, message: Self.changedWhileRead) }
        return FileDigest(digest: try hasher.finalize(), size: total)
    }

    /// ``FileKind/describe(_:)``, for the callers that still name it here.
    package static func kindDescription(_ mode: mode_t) -> String { FileKind.describe(mode) }
}

/// Hashes many files at once, one file per core at a time.
public enum ParallelHasher {
    /// The number of cores this process may run on.
    /// (Foundation reads the process' CPU affinity and cgroup quota on Linux.)
    package static var coreCount: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// The digest of each file in `paths`, in the same order; a file that could
    /// not be read gets its error instead.
    ///
    /// Files are taken largest first so that one big file does not finish last
    /// alone; each is read once, sequentially, by one thread.
    /// - Parameters:
    ///   - sizes: a size hint per path (from a folder listing), for the order.
    ///   - threads: how many files are hashed at once; default every core.
    ///   - progress: told of every block read.
    public static func digests(of paths: [String], sizes: [UInt64]? = nil, threads: Int? = nil, progress: WorkProgress? = nil) -> [Result<FileDigest, any Error>] {
        let order = sizes.map { sizes in paths.indices.sorted { sizes[$0] > sizes[$1] } } ?? Array(paths.indices)
        let workers = max(1, min(threads ?? coreCount, paths.count))
        let next = Atomic<Int>(0)
        let results = Mutex<[Result<FileDigest, any Error>?]>(Array(repeating: nil, count: paths.count))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            let hasher: FileHasher
            do { hasher = try FileHasher() } catch {
                // Without a hasher this worker takes no file; the others do them all.
                return
            }
            hasher.progress = progress
            while true {
                let position = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard position < order.count else { break }
                let index = order[position]
                let result = Result { try hasher.digest(ofFileAt: paths[index]) }
                results.withLock { $0[index] = result }
            }
        }
        return results.withLock { slots in
            slots.map { $0 ?? .failure(CryptoError("EVP_MD_CTX_new")) }
        }
    }
}
