import CSQLite

/// Reads of a file that SQLite makes a page at a time, made ``size`` bytes at
/// a time where they follow one another, for the files ``CaptureVFS`` opens
/// with `fixturekit_source` (the main file of a store that `capture` and
/// `hash` read from start to end) or `fixturekit_gather` (anonymize's working
/// copy and output).
///
/// On Linux a read from the page cache costs about as much per call as its
/// 4 KiB (a 1.2 GiB store read a page a call took 0.57 s of system time on
/// the thread that hashes its content). When a read misses and starts where
/// the last one ended, the next ``size`` bytes (or what is left of the file)
/// are read into memory, and the reads they hold are copied from there; any
/// other read goes to the file as SQLite asked, keeping what was read ahead.
///
/// What SQLite reads of a database inside one read transaction does not
/// change meanwhile, whoever else writes the store (that is what lets SQLite
/// read a store through a memory map): a checkpoint never writes a page a
/// reader needs from the main file. What was read ahead is forgotten when a
/// lock changes (a transaction ends or begins: `xLock`, `xUnlock`,
/// `xShmLock`), when the connection writes into it, and when the file is
/// truncated. Used by the connection's thread only.
final class ReadAhead {
    /// 64 KiB: the default VFS reads less than 128 KiB a call.
    static let size = 1 << 16
    /// `SQLITE_IOERR_SHORT_READ` (a macro of a shifted value, which Swift does not import).
    static let shortRead = SQLITE_IOERR | (2 << 8)

    private let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 4096)
    /// The file's bytes at `start`, `held` of them (0: none).
    private var start: Int64 = 0
    private var held = 0
    /// Where SQLite's last read ended.
    private var lastEnd: Int64 = -1

    deinit { buffer.deallocate() }

    /// Reads `count` bytes at `offset` of `inner` into `output`.
    /// - Parameter before: called with the range about to be read from the
    ///   file, first: a failure it returns is the read's.
    func read(into output: UnsafeMutableRawPointer, count: Int, offset: Int64, from inner: UnsafeMutablePointer<sqlite3_file>, before: (Int64, Int) -> Int32) -> Int32 {
        let readFile = inner.pointee.pMethods!.pointee.xRead!
        let follows = offset == lastEnd
        lastEnd = offset + Int64(count)
        if offset >= start, lastEnd <= start + Int64(held) {
            output.copyMemory(from: buffer + Int(offset - start), byteCount: count)
            return SQLITE_OK
        }
        if follows, count < Self.size {
            if case let code = before(offset, Self.size), code != SQLITE_OK { return code }
            held = 0
            var bytes = Self.size
            var code = readFile(inner, buffer, Int32(bytes), offset)
            if code == Self.shortRead {
                // Near the end of the file: what is left of it.
                var size: sqlite3_int64 = 0
                if inner.pointee.pMethods!.pointee.xFileSize!(inner, &size) == SQLITE_OK, size - offset >= Int64(count) {
                    bytes = Int(size - offset)
                    code = readFile(inner, buffer, Int32(bytes), offset)
                }
            }
            if code == SQLITE_OK {
                start = offset
                held = bytes
                output.copyMemory(from: buffer, byteCount: count)
                return SQLITE_OK
            }
        }
        if case let code = before(offset, count), code != SQLITE_OK { return code }
        return readFile(inner, output, Int32(count), offset)
    }

    /// Forgets what was read ahead.
    func forget() { held = 0 }

    /// Forgets what was read ahead when the `count` bytes at `offset` lie in it.
    func forget(_ offset: Int64, count: Int) {
        if (start..<start + Int64(held)).overlaps(offset..<offset + Int64(count)) { held = 0 }
    }
}
