#if canImport(Glibc)
import Glibc
#endif

/// A file that only its owner can reach: created in a folder and unlinked at
/// once, read and written at offsets, its space returned when it is released.
/// What does not fit in memory waits there (the data profile's chunks of
/// hashes).
package final class SpillFile {
    private let fd: Int32
    private var end: Int64 = 0

    /// Creates the file in `folder`, named from `prefix` and the process, and unlinks it.
    package init(folder: String, prefix: String) throws(FileSystemError) {
        let path = folder.appendingPath("\(prefix)-\(getpid())")
        fd = try POSIX.open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600)
        unlink(path)
    }

    deinit { close(fd) }

    /// Writes `bytes` at the end of the file.
    /// - Returns: where they are, or `nil` when they could not be written (a full disk).
    package func append(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        let offset = end
        guard write(bytes, at: offset) else { return nil }
        end += Int64(bytes.count)
        return offset
    }

    /// Writes `bytes` at `offset` (over bytes written before).
    package func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> Bool {
        transfer(bytes.count, at: offset) { done, at in pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(at)) }
    }

    /// Reads `bytes.count` bytes from `offset`.
    package func read(_ bytes: UnsafeMutableRawBufferPointer, at offset: Int64) -> Bool {
        transfer(bytes.count, at: offset) { done, at in pread(fd, bytes.baseAddress! + done, bytes.count - done, off_t(at)) }
    }

    /// Calls `move` (given the bytes done and the file offset) until `count`
    /// bytes are moved, going on after short moves and interruptions.
    private func transfer(_ count: Int, at offset: Int64, _ move: (Int, Int64) -> Int) -> Bool {
        var done = 0
        while done < count {
            let moved = move(done, offset + Int64(done))
            if moved < 0 && errno == EINTR { continue }
            guard moved > 0 else { return false }
            done += moved
        }
        return true
    }
}

/// Memory in pages of its own, mapped from the system, so that it goes back
/// to the system whole when released; where the system maps none, the
/// allocator's memory serves (``release(_:byteCount:)`` tells the two apart by
/// alignment: a mapping starts on a page, an allocation never does, being
/// offset here).
package enum PageMemory {
    /// Pages for `byteCount` bytes (at least one), 8-byte aligned.
    package static func allocate(byteCount: Int) -> UnsafeMutableRawPointer {
        let bytes = max(1, byteCount)
        let memory = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        if let memory, memory != MAP_FAILED { return memory }
        // 8 past a 16-byte boundary: never on a page, so `release` knows it.
        return UnsafeMutableRawPointer.allocate(byteCount: bytes + 8, alignment: 16) + 8
    }

    /// Returns what ``allocate(byteCount:)`` gave for the same `byteCount`.
    package static func release(_ memory: UnsafeMutableRawPointer, byteCount: Int) {
        if Int(bitPattern: memory) % Int(sysconf(Int32(_SC_PAGESIZE))) == 0 {
            munmap(memory, max(1, byteCount))
        } else {
            (memory - 8).deallocate()
        }
    }
}
