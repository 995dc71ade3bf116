#if canImport(Glibc)
import Glibc
#endif

/// Where the values replaced during a run wait for the leak scan: two files
/// unlinked as soon as they are created, so that nothing of them is left even
/// after `kill -9`, read back in batches of bounded size.
///
/// The first holds every replaced original of ``minimumPatternBytes`` or more
/// with the column it came from; the second every value the rules wrote, whose
/// own bytes may hold an original by chance (a fake name that is also a real
/// one, a shifted date that is another row's date) and are then no leak.
final class LeakSpool {
    /// Shorter values are not searched: 3 bytes are found anywhere by chance.
    static let minimumPatternBytes = 4
    /// Longer values are searched by their first this many bytes.
    static let maximumPatternBytes = 4096
    private static let bufferSize = 1 << 20

    fileprivate let originals: SpoolFile
    fileprivate let written: SpoolFile
    /// Text is also searched in this UTF-16 form, as the store keeps it.
    let utf16: Bool
    private(set) var originalCount = 0

    init(folder: String, utf16: Bool) throws(FileSystemError) {
        originals = try SpoolFile(folder: folder, name: "originals")
        written = try SpoolFile(folder: folder, name: "written")
        self.utf16 = utf16
    }

    /// Records a replaced original of column `column`.
    func addOriginal(column: Int, _ bytes: UnsafeRawBufferPointer, isText: Bool) {
        guard bytes.count >= Self.minimumPatternBytes else { return }
        guard isText && utf16 else {
            originals.append(UInt32(column), bytes.prefix(Self.maximumPatternBytes))
            originalCount += 1
            return
        }
        forEachEncoding(bytes, isText: isText) { encoded in
            originals.append(UInt32(column), encoded.prefix(Self.maximumPatternBytes))
            originalCount += 1
        }
    }

    /// Records a value the rules wrote.
    func addWritten(_ bytes: UnsafeRawBufferPointer, isText: Bool) {
        guard bytes.count >= Self.minimumPatternBytes else { return }
        guard isText && utf16 else { return written.append(nil, bytes[...]) }
        forEachEncoding(bytes, isText: isText) { encoded in written.append(nil, encoded[...]) }
    }

    private func forEachEncoding(_ bytes: UnsafeRawBufferPointer, isText: Bool, _ body: (Slice<UnsafeRawBufferPointer>) -> Void) {
        body(bytes[...])
        guard isText && utf16 else { return }
        let units = Array(String(decoding: bytes, as: UTF8.self).utf16)
        for bigEndian in [false, true] {
            var encoded: [UInt8] = []
            encoded.reserveCapacity(units.count * 2)
            for unit in units {
                let value = bigEndian ? unit.bigEndian : unit.littleEndian
                encoded.append(UInt8(truncatingIfNeeded: value))
                encoded.append(UInt8(truncatingIfNeeded: value >> 8))
            }
            encoded.withUnsafeBytes { body($0[...]) }
        }
    }

    /// Writes out what is buffered.
    func finish() throws(FileSystemError) {
        try originals.flush()
        try written.flush()
    }
}

/// One spool file: records of `[column u32][length u32][bytes]` (column omitted in the written spool).
fileprivate final class SpoolFile {
    static let bufferSize = 1 << 20
    let fd: Int32
    let path: String
    /// Records not written yet: the callbacks append with memcpy, no array in between.
    private let buffer: UnsafeMutableRawPointer
    private let state: UnsafeMutablePointer<(filled: Int, failure: FileSystemError?)>

    init(folder: String, name: String) throws(FileSystemError) {
        path = folder.appendingPath(".fixturekit-\(name)-\(getpid())")
        fd = try POSIX.open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600)
        unlink(path)
        buffer = .allocate(byteCount: Self.bufferSize, alignment: 16)
        state = .allocate(capacity: 1)
        state.initialize(to: (0, nil))
    }

    deinit {
        close(fd)
        buffer.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    func append(_ column: UInt32?, _ bytes: Slice<UnsafeRawBufferPointer>) {
        let record = UnsafeRawBufferPointer(rebasing: bytes)
        let size = (column == nil ? 4 : 8) + record.count
        if state.pointee.filled + size > Self.bufferSize {
            try? flush()
            // A record larger than the buffer goes straight to the file.
            guard size <= Self.bufferSize else {
                var header: [UInt8] = []
                if let column { withUnsafeBytes(of: column.littleEndian) { header.append(contentsOf: $0) } }
                withUnsafeBytes(of: UInt32(record.count).littleEndian) { header.append(contentsOf: $0) }
                header.withUnsafeBytes { write($0) }
                write(record)
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
        state.pointee.filled += size
    }

    /// Writes `bytes` to the file, or keeps the first failure for ``flush()`` to throw.
    private func write(_ bytes: UnsafeRawBufferPointer) {
        guard state.pointee.failure == nil else { return }
        do throws(FileSystemError) { try POSIX.writeAll(fd, bytes, path: path) } catch { state.pointee.failure = error }
    }

    func flush() throws(FileSystemError) {
        if state.pointee.filled > 0 {
            write(UnsafeRawBufferPointer(start: buffer, count: state.pointee.filled))
            state.pointee.filled = 0
        }
        if let failure = state.pointee.failure { throw failure }
    }

    /// Reads the records from the start, calling `body` with each; `body` returns
    /// `false` to stop, and the next call goes on from there.
    func records(from offset: inout off_t, withColumn: Bool, _ body: (UInt32, UnsafeRawBufferPointer) -> Bool) throws(FileSystemError) {
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var filled = 0
        var consumed = 0
        var position = offset
        let headerSize = withColumn ? 8 : 4
        while true {
            // Keep the unread tail, then fill up from the file.
            if consumed > 0 {
                chunk.withUnsafeMutableBytes { raw in
                    raw.baseAddress!.copyMemory(from: raw.baseAddress! + consumed, byteCount: filled - consumed)
                }
                filled -= consumed
                consumed = 0
            }
            let count = chunk.withUnsafeMutableBytes { raw in
                POSIX.retrying { pread(fd, raw.baseAddress! + filled, raw.count - filled, position) }
            }
            if count < 0 { throw FileSystemError("read", path: path, errno: errno) }
            position += off_t(count)
            filled += count
            var stop = false
            chunk.withUnsafeBytes { raw in
                while filled - consumed >= headerSize {
                    let column = withColumn ? raw.loadUnaligned(fromByteOffset: consumed, as: UInt32.self).littleEndian : 0
                    let length = Int(raw.loadUnaligned(fromByteOffset: consumed + headerSize - 4, as: UInt32.self).littleEndian)
                    guard filled - consumed >= headerSize + length else { break }
                    let record = UnsafeRawBufferPointer(rebasing: raw[(consumed + headerSize)..<(consumed + headerSize + length)])
                    consumed += headerSize + length
                    if !body(column, record) {
                        stop = true
                        break
                    }
                }
            }
            if stop || count == 0 {
                offset = position - off_t(filled - consumed)
                return
            }
            if filled - consumed == chunk.count {
                chunk.append(contentsOf: [UInt8](repeating: 0, count: chunk.count))
            }
        }
    }
}

/// A set of byte patterns searched for at once: a bitmap over each pattern's
/// first 4 bytes rules out nearly every position, and a hash table finds the
/// candidates. A pattern of 4 to 7 bytes is keyed by all its bytes; a longer one
/// by a hash of its first 8, 16, 32 or 64 bytes (the most it has), so that
/// values sharing a long prefix (`person.1…@…`) do not pile up under one key.
struct PatternIndex {
    private(set) var arena: [UInt8] = []
    private(set) var starts: [UInt32] = []
    private(set) var lengths: [UInt32] = []
    /// The column each pattern was replaced in (a rule's index).
    private(set) var columns: [UInt32] = []
    /// Patterns found inside what the rules wrote or in the schema: no leak.
    var exempt: [Bool] = []
    /// Patterns whose bytes an earlier pattern already has: never searched.
    private(set) var duplicate: [Bool] = []

    private static let filterBits = 24
    private static let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
    /// The prefix lengths long patterns are keyed by.
    private static let levels = [8, 16, 32, 64]
    private var filter = [UInt64](repeating: 0, count: 1 << (filterBits - 6))
    private var slotKeys: [UInt64] = []
    private var slotHeads: [Int32] = []
    private var next: [Int32] = []
    private var slotBits = 0
    /// Bit L set when a pattern of L bytes (4 to 7) exists; bit 8 + i for level i.
    private var lengthMask: UInt16 = 0
    private(set) var maximumLength = 0

    var count: Int { starts.count }
    var isEmpty: Bool { starts.isEmpty }
    var arenaBytes: Int { arena.count }

    /// Adds a pattern of at least 4 bytes.
    mutating func add(_ bytes: UnsafeRawBufferPointer, column: Int) {
        starts.append(UInt32(arena.count))
        lengths.append(UInt32(bytes.count))
        columns.append(UInt32(column))
        arena.append(contentsOf: bytes)
    }

    /// The level of a pattern of `length` bytes (8 or more).
    @inline(__always)
    private static func level(of length: Int) -> Int {
        length >= 64 ? 3 : length >= 32 ? 2 : length >= 16 ? 1 : 0
    }

    /// The key of the first `length` bytes (4 to 7), or of the first bytes of level `level`.
    @inline(__always)
    private static func key(_ pointer: UnsafeRawPointer, short length: Int) -> UInt64 {
        var key: UInt64 = 0
        for index in 0..<length { key |= UInt64(pointer.load(fromByteOffset: index, as: UInt8.self)) << UInt64(8 * index) }
        return key | UInt64(length) << 56
    }

    @inline(__always)
    private static func key(_ pointer: UnsafeRawPointer, level: Int) -> UInt64 {
        var hash = UInt64(level + 1) &* multiplier
        for word in 0..<(levels[level] / 8) {
            hash = (hash ^ pointer.loadUnaligned(fromByteOffset: word * 8, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            hash ^= hash >> 29
        }
        return hash
    }

    @inline(__always)
    private func slot(for key: UInt64) -> Int {
        var slot = Int(truncatingIfNeeded: (key &* Self.multiplier) >> UInt64(64 - slotBits))
        while slotHeads[slot] >= 0 && slotKeys[slot] != key { slot = (slot + 1) & ((1 << slotBits) - 1) }
        return slot
    }

    /// Builds the bitmap and the hash table; duplicates are dropped here.
    mutating func build() {
        slotBits = max(4, (starts.count * 2).bitWidthNeeded)
        slotKeys = [UInt64](repeating: 0, count: 1 << slotBits)
        slotHeads = [Int32](repeating: -1, count: 1 << slotBits)
        next = [Int32](repeating: -1, count: starts.count)
        exempt = [Bool](repeating: false, count: starts.count)
        duplicate = [Bool](repeating: false, count: starts.count)
        arena.withUnsafeBytes { arena in
            let base = arena.baseAddress!
            for pattern in 0..<starts.count {
                let start = Int(starts[pattern]), length = Int(lengths[pattern])
                let key = length < 8 ? Self.key(base + start, short: length) : Self.key(base + start, level: Self.level(of: length))
                let slot = slot(for: key)
                var candidate = slotHeads[slot]
                while candidate >= 0 {
                    let other = Int(candidate)
                    if Int(lengths[other]) == length && memcmp(base + Int(starts[other]), base + start, length) == 0 {
                        duplicate[pattern] = true
                        break
                    }
                    candidate = next[other]
                }
                guard !duplicate[pattern] else { continue }
                slotKeys[slot] = key
                next[pattern] = slotHeads[slot]
                slotHeads[slot] = Int32(pattern)
                let prefix = arena.loadUnaligned(fromByteOffset: start, as: UInt32.self)
                let bit = Int(truncatingIfNeeded: (UInt64(prefix) &* Self.multiplier) >> UInt64(64 - Self.filterBits))
                filter[bit >> 6] |= 1 << UInt64(bit & 63)
                lengthMask |= 1 << UInt16(length < 8 ? length : 8 + Self.level(of: length))
                maximumLength = max(maximumLength, length)
            }
        }
    }

    /// Calls `found` with each pattern that occurs in `buffer` at a position up
    /// to `end`; a pattern must lie wholly inside `buffer`.
    func search(_ buffer: UnsafeRawBufferPointer, end: Int, _ found: (_ pattern: Int, _ position: Int) -> Void) {
        guard !starts.isEmpty, let base = buffer.baseAddress else { return }
        let total = buffer.count
        let last = min(end, total - 4)
        guard last >= 0 else { return }
        arena.withUnsafeBytes { arena in
            filter.withUnsafeBufferPointer { filter in
                let arenaBase = arena.baseAddress!
                var position = 0
                while position <= last {
                    let prefix = (base + position).loadUnaligned(as: UInt32.self)
                    let bit = Int(truncatingIfNeeded: (UInt64(prefix) &* Self.multiplier) >> UInt64(64 - Self.filterBits))
                    if filter[bit >> 6] & (1 << UInt64(bit & 63)) == 0 {
                        position += 1
                        continue
                    }
                    let available = total - position
                    for kind in 4...11 where lengthMask & (1 << UInt16(kind)) != 0 {
                        let keyLength = kind < 8 ? kind : Self.levels[kind - 8]
                        guard available >= keyLength else { continue }
                        let key = kind < 8 ? Self.key(base + position, short: kind) : Self.key(base + position, level: kind - 8)
                        var candidate = slotHeads[slot(for: key)]
                        while candidate >= 0 {
                            let pattern = Int(candidate)
                            let length = Int(lengths[pattern])
                            if length <= available && (kind < 8 ? length == kind : length >= keyLength)
                                && memcmp(arenaBase + Int(starts[pattern]), base + position, length) == 0 {
                                found(pattern, position)
                            }
                            candidate = next[pattern]
                        }
                    }
                    position += 1
                }
            }
        }
    }
}

extension Int {
    /// Bits needed to write the number: 5 for 16 to 31.
    var bitWidthNeeded: Int { Int.bitWidth - leadingZeroBitCount }
}

/// One place where a replaced value was found.
public struct LeakHit: Codable, Equatable, Sendable {
    /// The file, as named in the report.
    public var file: String
    public var offset: UInt64
    /// `table.column` the value was replaced in.
    public var column: String
}

/// What the leak scan searched and found.
public struct LeakScanReport: Codable, Equatable, Sendable {
    /// The files searched, every byte of each.
    public var files: [String]
    public var bytes: UInt64
    /// Distinct replaced values searched for (each UTF-16 form counts once more).
    public var valuesSearched: Int
    /// Values left out because the rules wrote them themselves or the schema holds them.
    public var valuesExempt: Int
    /// Every hit up to ``LeakScanner/maximumReportedHits``.
    public var hits: [LeakHit]
    /// All hits, reported or not.
    public var hitCount: Int
}

/// Searches output files for the replaced originals of a spool.
enum LeakScanner {
    /// Bytes of patterns held in memory at once; more are searched in further passes.
    static let batchBytes = 32 << 20
    static let readSize = 1 << 20
    static let maximumReportedHits = 20

    /// Searches every byte of `files` for the spool's originals.
    /// - Parameters:
    ///   - names: how each file is named in the report.
    ///   - columns: `table.column` of each rule index.
    ///   - schemaText: text that is in the file whatever the data.
    static func scan(_ spool: LeakSpool, files: [(path: String, name: String)], columns: [String], schemaText: [String], batchBytes: Int = batchBytes) throws(FileSystemError) -> LeakScanReport {
        try spool.finish()
        var report = LeakScanReport(files: files.map(\.name), bytes: 0, valuesSearched: 0, valuesExempt: 0, hits: [], hitCount: 0)
        for file in files {
            let info = try POSIX.lstat(file.path)
            report.bytes += UInt64(info.st_size)
        }
        var offset: off_t = 0
        var pending: [UInt8]? = nil
        var pendingColumn = 0
        var done = false
        while !done {
            var index = PatternIndex()
            if let carried = pending {
                carried.withUnsafeBytes { index.add($0, column: pendingColumn) }
                pending = nil
            }
            var stopped = false
            try spool.originals.records(from: &offset, withColumn: true) { column, bytes in
                if index.arenaBytes + bytes.count > batchBytes && !index.isEmpty {
                    pending = Array(bytes)
                    pendingColumn = Int(column)
                    stopped = true
                    return false
                }
                index.add(bytes, column: Int(column))
                return true
            }
            done = !stopped
            guard !index.isEmpty else { break }
            index.build()
            // Exemptions: the schema, then every written value on its own.
            var exempt = index.exempt
            for text in schemaText {
                var bytes = Array(text.utf8)
                if spool.utf16 { bytes += utf16Forms(text) }
                bytes.withUnsafeBytes { raw in index.search(raw, end: raw.count) { pattern, _ in exempt[pattern] = true } }
            }
            var writtenOffset: off_t = 0
            try spool.written.records(from: &writtenOffset, withColumn: false) { _, bytes in
                index.search(bytes, end: bytes.count) { pattern, _ in exempt[pattern] = true }
                return true
            }
            index.exempt = exempt
            for pattern in 0..<index.count where !index.duplicate[pattern] {
                if exempt[pattern] { report.valuesExempt += 1 } else { report.valuesSearched += 1 }
            }
            for file in files {
                try search(file.path, name: file.name, index: index, columns: columns, report: &report)
            }
        }
        return report
    }

    private static func utf16Forms(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = [0]
        for bigEndian in [false, true] {
            for unit in text.utf16 {
                let value = bigEndian ? unit.bigEndian : unit.littleEndian
                bytes.append(UInt8(truncatingIfNeeded: value))
                bytes.append(UInt8(truncatingIfNeeded: value >> 8))
            }
            bytes.append(0)
        }
        return bytes
    }

    /// Streams one file through the index: each read is searched with the last
    /// bytes of the previous one in front, so that a value across two reads is found.
    private static func search(_ path: String, name: String, index: PatternIndex, columns: [String], report: inout LeakScanReport) throws(FileSystemError) {
        let fd = try POSIX.open(path, O_RDONLY | O_NOFOLLOW)
        defer { close(fd) }
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)
        let overlap = max(index.maximumLength - 1, 0)
        var buffer = [UInt8](repeating: 0, count: readSize + overlap)
        var carried = 0
        var bufferStart: UInt64 = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in
                POSIX.retrying { read(fd, raw.baseAddress! + carried, raw.count - carried) }
            }
            if count < 0 { throw FileSystemError("read", path: path, errno: errno) }
            let filled = carried + count
            let atEnd = count == 0
            // Positions from which every pattern fits in what was read: the rest waits.
            let end = atEnd ? filled : filled - overlap - 1
            buffer.withUnsafeBytes { raw in
                let valid = UnsafeRawBufferPointer(rebasing: raw[0..<filled])
                index.search(valid, end: end) { pattern, position in
                    guard !index.exempt[pattern] else { return }
                    report.hitCount += 1
                    if report.hits.count < maximumReportedHits {
                        let column = Int(index.columns[pattern])
                        report.hits.append(LeakHit(file: name, offset: bufferStart + UInt64(position), column: column < columns.count ? columns[column] : "?"))
                    }
                }
            }
            if atEnd { return }
            let keep = min(filled, max(filled - max(end + 1, 0), 0))
            buffer.withUnsafeMutableBytes { raw in
                raw.baseAddress!.copyMemory(from: raw.baseAddress! + (filled - keep), byteCount: keep)
            }
            bufferStart += UInt64(filled - keep)
            carried = keep
        }
    }
}
