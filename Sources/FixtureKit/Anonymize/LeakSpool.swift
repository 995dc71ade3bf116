import Dispatch
import Synchronization
import FixtureKitSystem

/// Where the values replaced during a run wait for the leak scan: two files
/// unlinked as soon as they are created, so that nothing of them is left even
/// after `kill -9`, read back in batches of bounded size.
///
/// The first holds every replaced original of ``PatternIndex/minimumBytes`` or
/// more with the column it came from; the second the values the rules wrote
/// (but a repeat of one written shortly before), whose own bytes may hold an
/// original by chance (a fake name that is also a real one, a shifted date
/// that is another row's date) and are then no leak.
/// Both hold values whole, a value longer than ``chunkBytes`` in overlapping
/// pieces (every run of ``PatternIndex/runBytes`` bytes of it is whole in one
/// piece), so that no record needs more memory than that to be read back.
///
/// Written on one thread; ``progress`` tells another how far the files are
/// written, so that it can read them back while they grow.
final class LeakSpool {
    /// The longest piece of a value a record holds.
    static let chunkBytes = 1 << 20
    /// Bytes shared by two pieces of a value: more than a run compared around
    /// a window takes (``PatternIndex/windowBytes`` and its reach both ways).
    static let chunkOverlap = 64

    let originals: SpoolFile
    let written: SpoolFile
    /// Text is also searched in this UTF-16 form, as the store keeps it.
    let utf16: Bool
    let progress = SpoolProgress()

    init(folder: String, utf16: Bool) throws(FileSystemError) {
        originals = try SpoolFile(folder: folder, name: "originals", progress: progress)
        written = try SpoolFile(folder: folder, name: "written", progress: nil, isSet: true)
        self.utf16 = utf16
    }

    /// Records a replaced original of column `column`, tagged with its form
    /// (``WholeValue/Form``: a UTF-8 text's column is the plain index).
    func addOriginal(column: Int, _ bytes: UnsafeRawBufferPointer, isText: Bool) {
        guard bytes.count >= PatternIndex.minimumBytes else { return }
        forEachEncoding(bytes, isText: isText) { form, encoded in originals.appendValue(WholeValue.tagged(column, form), encoded) }
    }

    /// Records a value the rules wrote.
    func addWritten(_ bytes: UnsafeRawBufferPointer, isText: Bool) {
        guard bytes.count >= PatternIndex.minimumBytes else { return }
        forEachEncoding(bytes, isText: isText) { _, encoded in written.appendValue(nil, encoded) }
    }

    private func forEachEncoding(_ bytes: UnsafeRawBufferPointer, isText: Bool, _ body: (WholeValue.Form, UnsafeRawBufferPointer) -> Void) {
        body(isText ? .utf8 : .blob, bytes)
        guard isText && utf16 else { return }
        let units = Array(String(decoding: bytes, as: UTF8.self).utf16)
        for bigEndian in [false, true] {
            Self.utf16(units, bigEndian: bigEndian).withUnsafeBytes { body(bigEndian ? .utf16BE : .utf16LE, $0) }
        }
    }

    /// UTF-16 code units as bytes, in either order.
    static func utf16(_ units: [UInt16], bigEndian: Bool) -> [UInt8] {
        var encoded: [UInt8] = []
        encoded.reserveCapacity(units.count * 2)
        for unit in units {
            let value = bigEndian ? unit.bigEndian : unit.littleEndian
            encoded.append(UInt8(truncatingIfNeeded: value))
            encoded.append(UInt8(truncatingIfNeeded: value >> 8))
        }
        return encoded
    }

    /// Writes out what is buffered: nothing more is added afterwards, and
    /// ``progress`` says so.
    func finish() throws(FileSystemError) {
        defer { progress.complete() }
        try originals.flush()
        try written.flush()
    }
}

/// How much of the originals' spool is in its file, for a thread that reads
/// it back while it is written: a count that only grows, a flag set once the
/// spool is complete, and a semaphore signalled on each change.
final class SpoolProgress: Sendable {
    private let bytes = Atomic<Int>(0)
    private let done = Atomic<Bool>(false)
    private let changed = DispatchSemaphore(value: 0)

    /// Bytes of whole records in the file.
    var available: Int { bytes.load(ordering: .acquiring) }
    /// No record is added after ``available``.
    var isComplete: Bool { done.load(ordering: .acquiring) }

    fileprivate func wrote(_ count: Int) {
        bytes.add(count, ordering: .releasing)
        changed.signal()
    }

    /// Marks the spool complete (also when it failed or was abandoned).
    func complete() {
        done.store(true, ordering: .releasing)
        changed.signal()
    }

    /// Waits until the next change (returns at once if one was missed).
    func waitForChange() { changed.wait() }
}

/// The values a spool took last, for a spool whose records only matter as a
/// set (the written values: the leak scan looks for originals inside each, and
/// finds nothing more in a repeat). A value equal to one of them is not taken
/// again: a mask or a constant writes the same few values on every row.
/// Direct-mapped by a hash of the bytes, compared whole; values up to
/// ``valueBytes`` long (longer ones are always taken). 512 slots, 32 KiB: the
/// table stays in the core's first-level cache. With 4,096 (256 KiB) each
/// value cost a cache miss, 5% of `anonymize`'s time on the benchmark.
struct RecentValues {
    private static let slotBits = 9
    static let slotCount = 1 << slotBits
    static let valueBytes = 56
    /// Per slot: the value's length + 1 (0: empty), 4 bytes unused, then its bytes.
    private static let slotBytes = 8 + valueBytes
    private let slots: UnsafeMutableRawPointer

    init() {
        slots = .allocate(byteCount: Self.slotCount * Self.slotBytes, alignment: 16)
        slots.initializeMemory(as: UInt8.self, repeating: 0, count: Self.slotCount * Self.slotBytes)
    }

    func release() { slots.deallocate() }

    /// Whether `bytes` is new: `false` when a slot holds it; otherwise its slot now does.
    @inline(__always)
    func insert(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count <= Self.valueBytes else { return true }
        let slot = slots + Int(truncatingIfNeeded: ValueHash.hash(bytes) >> UInt64(64 - Self.slotBits)) * Self.slotBytes
        if slot.load(as: UInt32.self) == UInt32(bytes.count + 1) && (bytes.isEmpty || Memory.equal(slot + 8, bytes.baseAddress!, count: bytes.count)) {
            return false
        }
        slot.storeBytes(of: UInt32(bytes.count + 1), as: UInt32.self)
        if let base = bytes.baseAddress { (slot + 8).copyMemory(from: base, byteCount: bytes.count) }
        return true
    }
}

/// One spool file: records of `[column u32][length u32][bytes]` (column omitted in the written spool).
final class SpoolFile {
    static let bufferSize = 1 << 20
    /// The file's pages read back are freed in runs of this many bytes (see ``records(from:to:withColumn:discarding:_:)``).
    static let discardStep: Int64 = 4 << 20
    private static let pageMask: Int64 = 4095
    let file: FileDescriptor
    let path: String
    private let progress: SpoolProgress?
    /// Records not written yet: appended with memcpy, no array in between.
    private let buffer: UnsafeMutableRawPointer
    /// Bytes in `buffer`, and the first write failure. Behind a pointer: a
    /// stored property of a class costs an exclusivity check on each access.
    private let state: UnsafeMutablePointer<(filled: Int, failure: FileSystemError?)>

    /// For a spool of a set: the values taken last, whose repeats are left out.
    private let recent: RecentValues?

    /// `isSet`: the records only matter as a set, and a repeat of a value taken
    /// last is left out (``RecentValues``).
    init(folder: String, name: String, progress: SpoolProgress?, isSet: Bool = false) throws(FileSystemError) {
        path = folder.appendingPath(".fixturekit-\(name)-\(POSIX.processID)")
        file = try FileDescriptor.open(path, .readWrite, options: [.exclusiveCreate, .noFollow], permissions: 0o600)
        try? POSIX.removeFile(path)
        self.progress = progress
        recent = isSet ? RecentValues() : nil
        buffer = .allocate(byteCount: Self.bufferSize, alignment: 16)
        state = .allocate(capacity: 1)
        state.initialize(to: (0, nil))
    }

    deinit {
        try? file.close()
        recent?.release()
        buffer.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Appends a value: whole, or in pieces of ``LeakSpool/chunkBytes`` that
    /// overlap by ``LeakSpool/chunkOverlap``; nothing for a repeat of a value
    /// the spool of a set took last.
    @inline(__always)
    func appendValue(_ column: UInt32?, _ bytes: UnsafeRawBufferPointer) {
        if let recent, !recent.insert(bytes) { return }
        guard bytes.count > LeakSpool.chunkBytes else { return append(column, bytes[...]) }
        var start = 0
        while true {
            let end = min(start + LeakSpool.chunkBytes, bytes.count)
            append(column, bytes[start..<end])
            if end == bytes.count { return }
            start = end - LeakSpool.chunkOverlap
        }
    }

    func append(_ column: UInt32?, _ bytes: Slice<UnsafeRawBufferPointer>) {
        let record = UnsafeRawBufferPointer(rebasing: bytes)
        let header = column == nil ? 4 : 8
        if state.pointee.filled + header + record.count > Self.bufferSize {
            try? flush()
            // A record larger than the buffer goes to the file on its own.
            if header + record.count > Self.bufferSize {
                var bytes: [UInt8] = []
                if let column { withUnsafeBytes(of: column.littleEndian) { bytes.append(contentsOf: $0) } }
                withUnsafeBytes(of: UInt32(record.count).littleEndian) { bytes.append(contentsOf: $0) }
                bytes.append(contentsOf: record)
                bytes.withUnsafeBytes { write($0) }
                return
            }
        }
        var at = buffer + state.pointee.filled
        if let column {
            at.storeBytes(of: column.littleEndian, as: UInt32.self)
            at += 4
        }
        at.storeBytes(of: UInt32(record.count).littleEndian, as: UInt32.self)
        if let base = record.baseAddress { (at + 4).copyMemory(from: base, byteCount: record.count) }
        state.pointee.filled += header + record.count
    }

    /// Writes whole records to the file, or keeps the first failure for ``flush()`` to throw.
    private func write(_ bytes: UnsafeRawBufferPointer) {
        guard state.pointee.failure == nil else { return }
        do throws(FileSystemError) {
            try file.writeAll(bytes)
            progress?.wrote(bytes.count)
        } catch {
            state.pointee.failure = error
        }
    }

    func flush() throws(FileSystemError) {
        if state.pointee.filled > 0 {
            write(UnsafeRawBufferPointer(start: buffer, count: state.pointee.filled))
            state.pointee.filled = 0
        }
        if let failure = state.pointee.failure { throw failure }
    }

    /// Reads the records from `offset` up to `limit` (a record boundary), calling
    /// `body` with each; `body` returns `false` to stop, and `offset` is then
    /// that record's, so that the next call starts with it.
    ///
    /// `discarding`: no record before the returned `offset` is read again, and
    /// the file's pages behind the reader are freed as it goes (every
    /// ``discardStep``), for the writer to reuse (``FileDescriptor/discard(_:)``).
    func records(from offset: inout Int64, to limit: Int64 = .max, withColumn: Bool, discarding: Bool = false, _ body: (UInt32, UnsafeRawBufferPointer) -> Bool) throws(FileSystemError) {
        var chunk = [UInt8](repeating: 0, count: Self.bufferSize)
        var filled = 0
        var consumed = 0
        var position = offset
        let headerSize = withColumn ? 8 : 4
        var discarding = discarding
        var discarded = offset & ~Self.pageMask
        // Frees the whole pages before the first unread byte, once `step` of them are read.
        func discardRead(step: Int64) {
            let read = (position - Int64(filled - consumed)) & ~Self.pageMask
            guard discarding && read - discarded >= step else { return }
            discarding = file.discard(discarded..<read)
            discarded = read
        }
        defer { discardRead(step: 1) }
        while true {
            discardRead(step: Self.discardStep)
            // Keep the unread tail, then fill up from the file.
            if consumed > 0 {
                chunk.withUnsafeMutableBytes { raw in
                    raw.baseAddress!.copyMemory(from: raw.baseAddress! + consumed, byteCount: filled - consumed)
                }
                filled -= consumed
                consumed = 0
            }
            let wanted = Int(min(Int64(chunk.count - filled), limit - position))
            let count = wanted <= 0 ? 0 : try file.read(fromAbsoluteOffset: position, into: &chunk, filled..<filled + wanted)
            position += Int64(count)
            filled += count
            var stop = false
            chunk.withUnsafeBytes { raw in
                while filled - consumed >= headerSize {
                    let column = withColumn ? raw.loadUnaligned(fromByteOffset: consumed, as: UInt32.self).littleEndian : 0
                    let length = Int(raw.loadUnaligned(fromByteOffset: consumed + headerSize - 4, as: UInt32.self).littleEndian)
                    guard filled - consumed >= headerSize + length else { break }
                    let record = UnsafeRawBufferPointer(rebasing: raw[(consumed + headerSize)..<(consumed + headerSize + length)])
                    if !body(column, record) {
                        stop = true
                        break
                    }
                    consumed += headerSize + length
                }
            }
            if stop || count == 0 {
                offset = position - Int64(filled - consumed)
                return
            }
            if filled - consumed == chunk.count {
                chunk.append(contentsOf: [UInt8](repeating: 0, count: chunk.count))
            }
        }
    }
}
