import CSQLite
import FixtureKitSystem
import FixtureKitCrypto

/// The writes of a file that SQLite builds, opened through ``CaptureVFS`` with
/// `fixturekit_sink=ID`: the file's SHA-256 computed from the bytes as they are
/// written, without reading the file again, and the writes gathered into pieces of
/// ``pieceSize`` bytes, each hashed on one thread and written on another while
/// SQLite produces the next one: a piece then takes the longer of the two rather
/// than both, and SQLite's thread does not wait for the disk (a 1.2 GiB copy
/// through `O_DIRECT` waits about 0.6 ms per MiB for it, while SHA-256 takes
/// 0.55 ms).
///
/// A SHA-256 takes the bytes in file order. The online backup writes a new copy
/// in page order, except page 1, which stays in its page cache until the commit
/// changes its header and writes it last: the caller gives page 1 as it will be
/// written (``init(firstPage:writeback:direct:)``), it is hashed first, and the page the
/// commit writes must be that one. Any other order (a write out of sequence, a
/// different page 1, a truncation) makes ``finish()`` answer `nil`: the caller
/// then hashes the file as it is on disk.
///
/// Used by the one thread that runs the connection; the two others only ever
/// hold a piece between ``BackgroundStage/start(_:)`` and its wait.
package final class HashedWrites {
    /// 1 MiB: 256 pages of 4 KiB per write, a piece the hasher takes at full speed.
    static let pieceSize = 1 << 20

    private let hasher: SHA256
    private var pieces: [UnsafeMutableRawBufferPointer]
    private var current = 0
    private var filled = 0
    /// Where the piece being filled starts in the file.
    private var pieceOffset: Int64
    /// The expected page 1, hashed first; `nil` when none was given.
    private let firstPage: [UInt8]?
    private var firstPageWritten = false
    /// Whether every byte so far was hashed in file order.
    private var inOrder = true
    private let hashing = BackgroundStage()
    private let writing = BackgroundStage()
    private var inner: UnsafeMutablePointer<sqlite3_file>?
    private let writeback: Int32?
    private var tracker = WritebackTracker()
    /// A descriptor of the file opened with `O_DIRECT`, while writes to it work;
    /// used by the writing thread only.
    private var direct: FileDescriptor?
    /// The first failure of a write, reported to SQLite and by ``finish()``.
    private var failure: (any Error)?

    /// A failed write, as SQLite's write method reports it.
    struct WriteFailed: Error {
        let code: Int32
    }

    /// - Parameters:
    ///   - firstPage: page 1 as the file will hold it; `nil` when the file is
    ///     written in order from its first byte.
    ///   - writeback: a descriptor of the file on which to start write-back as the
    ///     pieces are written (the caller closes it after the connection).
    ///   - direct: a descriptor of the file opened with `O_DIRECT` (the caller
    ///     closes it after the connection): the pieces go to the disk through it,
    ///     around the page cache, for a copy nothing reads afterwards. The kernel
    ///     then neither copies them into its cache nor writes them back later: on
    ///     a 1 GiB copy, about 0.4 s less CPU. A piece it refuses (an unaligned
    ///     one, a file system without `O_DIRECT`, a full disk) is written through
    ///     SQLite's file as before, and so is every piece after it.
    package init(firstPage: [UInt8]?, writeback: Int32? = nil, direct: FileDescriptor? = nil) throws(CryptoError) {
        hasher = try SHA256()
        pieces = (0..<2).map { _ in UnsafeMutableRawBufferPointer.allocate(byteCount: Self.pieceSize, alignment: 4096) }
        self.firstPage = firstPage
        self.writeback = writeback
        self.direct = direct
        if let firstPage { try hasher.update(firstPage) }
        pieceOffset = Int64(firstPage?.count ?? 0)
    }

    deinit {
        hashing.drain()
        writing.drain()
        pieces.forEach { $0.deallocate() }
    }

    func attach(_ file: UnsafeMutablePointer<sqlite3_file>) { inner = file }

    func detach() {
        quiesce()
        inner = nil
    }

    /// The SHA-256 of the file and its size, once its connection is closed; `nil`
    /// when the writes did not come in the order that lets them be hashed as
    /// they came.
    /// - Throws: the failure of a write (a full disk), as a ``SQLiteError``.
    package func finish() throws(SQLiteError) -> FileDigest? {
        _ = flush()
        if let failure = failure as? WriteFailed { throw SQLiteError(code: failure.code, message: "cannot write the copy") }
        guard inOrder, firstPage == nil || firstPageWritten, let digest = try? hasher.finalize() else { return nil }
        return FileDigest(digest: digest, size: UInt64(pieceOffset))
    }

    // MARK: - The VFS's calls

    func write(_ bytes: UnsafeRawPointer, count: Int, offset: Int64) -> Int32 {
        if let failure = failure as? WriteFailed { return failure.code }
        if inOrder, offset == Self.lockPageOffset + Int64(count), pieceOffset + Int64(filled) == Self.lockPageOffset {
            // The page after the lock page: the file holds zeros where SQLite never writes.
            if case let code = append(nil, count: count), code != SQLITE_OK { return code }
        }
        if inOrder, offset == pieceOffset + Int64(filled) { return append(bytes, count: count) }
        if inOrder, offset == 0, let firstPage, !firstPageWritten, count == firstPage.count,
            firstPage.withUnsafeBytes({ Memory.equal($0.baseAddress!, bytes, count: count) }) {
            firstPageWritten = true
        } else {
            inOrder = false
        }
        // Out of the sequence: written through, after what is pending.
        if case let code = flush(), code != SQLITE_OK { return code }
        let code = writeThrough(bytes, count: count, offset: offset)
        if code != SQLITE_OK, failure == nil { failure = WriteFailed(code: code) }
        return code
    }

    /// Where a store's lock page starts: the page that holds SQLite's lock bytes
    /// (`PENDING_BYTE`, at 1 GiB), which no database file ever has written, so
    /// that it reads as zeros. It starts at 1 GiB whatever the page size.
    static let lockPageOffset: Int64 = 0x4000_0000

    /// `count` bytes in file order (zeros when `bytes` is nil: the lock page),
    /// into the pieces.
    private func append(_ bytes: UnsafeRawPointer?, count: Int) -> Int32 {
        var done = 0
        while done < count {
            let take = min(count - done, Self.pieceSize - filled)
            let target = pieces[current].baseAddress! + filled
            if let bytes { target.copyMemory(from: bytes + done, byteCount: take) } else { target.initializeMemory(as: UInt8.self, repeating: 0, count: take) }
            filled += take
            done += take
            if filled == Self.pieceSize, case let code = submit(), code != SQLITE_OK { return code }
        }
        return SQLITE_OK
    }

    /// Hands the piece being filled to the two other threads, after the one before.
    @discardableResult
    func flush() -> Int32 {
        if filled > 0, case let code = submit(), code != SQLITE_OK { return code }
        return quiesce()
    }

    /// Waits for the piece the two other threads hold.
    @discardableResult
    func quiesce() -> Int32 {
        var code = SQLITE_OK
        for stage in [hashing, writing] {
            do { try stage.wait() } catch {
                failure = failure ?? error
                if code == SQLITE_OK { code = (error as? WriteFailed)?.code ?? CaptureVFS.ioErrorWrite }
            }
        }
        return code
    }

    func truncate(to size: Int64) -> Int32 {
        let code = flush()
        if size < pieceOffset { inOrder = false }
        return code
    }

    private func submit() -> Int32 {
        if case let code = quiesce(), code != SQLITE_OK { return code }
        let piece = UnsafeRawBufferPointer(rebasing: pieces[current][0..<filled])
        let offset = pieceOffset
        if inOrder { hashing.start { [hasher] in try hasher.update(piece) } }
        writing.start { [self] in
            if writeDirect(piece, at: offset) { return }
            let code = writeThrough(piece.baseAddress!, count: piece.count, offset: offset)
            guard code == SQLITE_OK else { throw WriteFailed(code: code) }
            if let writeback { tracker.wrote(piece.count, to: writeback) }
        }
        pieceOffset += Int64(filled)
        filled = 0
        current ^= 1
        return SQLITE_OK
    }

    /// The alignment of a piece's offset and size that `O_DIRECT` asks for: the
    /// logical block of every common device, 512 or 4096 bytes.
    static let directAlignment = 4096

    /// Writes `piece` at `offset` through ``direct``; `false` when it was not
    /// (none, an unaligned piece, or a failed write, which stops them all).
    private func writeDirect(_ piece: UnsafeRawBufferPointer, at offset: Int64) -> Bool {
        guard let file = direct, offset % Int64(Self.directAlignment) == 0, piece.count % Self.directAlignment == 0 else { return false }
        do { try file.writeAll(toAbsoluteOffset: offset, piece) } catch {
            direct = nil
            return false
        }
        return true
    }

    /// The default VFS writes at most 128 KiB - 1 bytes a call (its `seekAndWrite`
    /// masks the size with 0x1ffff: SQLite never writes more than a page); a
    /// piece goes in writes of the largest page size.
    static let writeSize = 1 << 16

    private func writeThrough(_ bytes: UnsafeRawPointer, count: Int, offset: Int64) -> Int32 {
        guard let inner, let write = inner.pointee.pMethods?.pointee.xWrite else { return CaptureVFS.ioErrorWrite }
        var done = 0
        while done < count {
            let size = min(count - done, Self.writeSize)
            let code = write(inner, bytes + done, Int32(size), offset + Int64(done))
            guard code == SQLITE_OK else { return code }
            done += size
        }
        return SQLITE_OK
    }
}
