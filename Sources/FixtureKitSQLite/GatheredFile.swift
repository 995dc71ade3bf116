import CSQLite

/// The writes of a database file that one connection alone reads and writes,
/// with no journal (opened through ``CaptureVFS`` with `fixturekit_gather=1`:
/// anonymize's working copy and the output `VACUUM INTO` builds from it).
///
/// SQLite reads and writes a page a call, and on Linux a call into the page
/// cache costs about as much as its 4 KiB: 88 MiB in 4 KiB writes take 0.10 s
/// of system time, in 64 KiB writes 0.02 s. Here, on SQLite's thread, writes
/// that follow one another in the file are gathered into one write of up to
/// ``pieceSize`` bytes (a write elsewhere first writes what is gathered); its
/// reads go through a ``ReadAhead``.
///
/// Nothing can see the file without what is gathered: it is written before a
/// read of a range it overlaps, the file's size, a truncation, a sync, a lock
/// change, any file control but a size hint (SQLite's commit ends with a sync
/// or its file control), and the close. A failed write is the answer of the
/// call that needed it and of every call after it, so that a commit or a
/// `VACUUM INTO` fails rather than leaving a short file.
final class GatheredFile {
    /// 64 KiB: the default VFS writes less than 128 KiB a call (its
    /// `seekAndWrite` masks the size with 0x1ffff), and a larger write saves
    /// little more.
    static let pieceSize = 1 << 16

    private let piece = UnsafeMutableRawPointer.allocate(byteCount: pieceSize, alignment: 4096)
    /// Where the gathered bytes go in the file, and how many there are.
    private var start: Int64 = 0
    private var filled = 0
    /// The first failed write's code; `SQLITE_OK` while none failed.
    private var failure = SQLITE_OK

    deinit { piece.deallocate() }

    /// Takes SQLite's write of `count` bytes at `offset` to `inner`.
    func write(_ bytes: UnsafeRawPointer, count: Int, offset: Int64, to inner: UnsafeMutablePointer<sqlite3_file>) -> Int32 {
        guard failure == SQLITE_OK else { return failure }
        if filled > 0, offset != start + Int64(filled) || count > Self.pieceSize - filled {
            if case let code = flush(inner), code != SQLITE_OK { return code }
        }
        guard count < Self.pieceSize else { return record(inner.pointee.pMethods!.pointee.xWrite!(inner, bytes, Int32(count), offset)) }
        if filled == 0 { start = offset }
        (piece + filled).copyMemory(from: bytes, byteCount: count)
        filled += count
        return SQLITE_OK
    }

    /// Whether gathered bytes lie in the `count` bytes at `offset`.
    func overlaps(_ offset: Int64, count: Int) -> Bool {
        (start..<start + Int64(filled)).overlaps(offset..<offset + Int64(count))
    }

    /// Writes what is gathered to `inner`.
    /// - Returns: `SQLITE_OK`, or the code of this or an earlier failed write.
    func flush(_ inner: UnsafeMutablePointer<sqlite3_file>) -> Int32 {
        guard failure == SQLITE_OK, filled > 0 else { return failure }
        let count = filled
        filled = 0
        return record(inner.pointee.pMethods!.pointee.xWrite!(inner, piece, Int32(count), start))
    }

    private func record(_ code: Int32) -> Int32 {
        if code != SQLITE_OK { failure = code }
        return code
    }
}
