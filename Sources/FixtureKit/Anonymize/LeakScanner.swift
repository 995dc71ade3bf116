#if canImport(Glibc)
import Glibc
#endif

/// The raw pass of the leak scan: every byte of a file, searched for the
/// patterns of a ``PatternIndex``, wherever SQLite put them (an overflow page,
/// an index, a free page) or in a file SQLite does not know (Core Data's
/// external data).
enum LeakScanner {
    /// Bytes of values held in memory at once; more are searched in further passes.
    static let batchBytes = 64 << 20
    static let readSize = 1 << 20
    static let maximumReportedHits = 20
    /// Hits of a file kept with where they are; beyond, only counted (by page in the store).
    static let maximumKeptHits = 4096

    static func utf16Forms(_ text: String) -> [UInt8] {
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

    /// A run of a replaced value found in a file.
    struct RawHit {
        var pattern: Int
        /// Where the run starts in the file.
        var offset: UInt64
        var length: Int
        var piece: Bool
    }

    /// The hits of one file: the first ones with where they are, all of them counted.
    struct FileHits {
        var count = 0
        var kept: [RawHit] = []
        /// Hits by page (counted from 1), when the file is searched as a store of that page size.
        var pages: [Int: Int] = [:]
    }

    /// A run recently found, to tell the next windows of the same copy of a long value from a new hit.
    private struct RecentRun {
        var longValue: Int
        /// Where the value's first byte would be in the file: equal for windows of one copy.
        var diagonal: Int64
        var start: UInt64
        var end: UInt64
        /// Its place among the kept hits, if it was kept.
        var kept: Int?
    }

    /// Searches every byte of the file at `path`: each read with the bytes
    /// before it that a run may start in, and the bytes after it that a
    /// pattern or run may end in, so that nothing across two reads is missed.
    /// The windows of one copy of a long value count as one hit.
    /// - Parameter pageSize: counts the hits by page of that size (the store's main file).
    static func search(_ path: String, index: PatternIndex, pageSize: Int? = nil) throws(FileSystemError) -> FileHits {
        let fd = try POSIX.open(path, O_RDONLY | O_NOFOLLOW)
        defer { close(fd) }
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)
        let behind = PatternIndex.reach
        let ahead = max(index.maximumLength, PatternIndex.windowBytes) + PatternIndex.reach
        var buffer = [UInt8](repeating: 0, count: behind + readSize + ahead)
        var hits = FileHits()
        var recent: [RecentRun] = []
        // buffer[0..<filled] holds the file from `bufferStart`; positions from `next` on are not searched yet.
        var bufferStart = 0
        var filled = 0
        var next = 0
        var atEnd = false
        while !atEnd {
            let count = buffer.withUnsafeMutableBytes { raw in
                POSIX.retrying { pread(fd, raw.baseAddress! + filled, raw.count - filled, off_t(bufferStart + filled)) }
            }
            if count < 0 { throw FileSystemError("read", path: path, errno: errno) }
            filled += count
            atEnd = count == 0
            // Positions from which every pattern and its run fit in what was read: the rest waits.
            let last = atEnd ? filled - 1 : filled - ahead - 1
            if last >= next - bufferStart {
                buffer.withUnsafeBytes { raw in
                    index.search(UnsafeRawBufferPointer(rebasing: raw[0..<filled]), from: next - bufferStart, through: last) { pattern, run in
                        guard !index.isExempt(pattern, run: run) else { return }
                        let offset = UInt64(bufferStart + run.start)
                        let origin = index.origin(of: pattern)
                        let valueLength = index.valueLength(of: pattern)
                        let kept = hits.kept.count < maximumKeptHits ? hits.kept.count : nil
                        if let long = origin.longValue {
                            // The next windows of one copy extend its run: one hit, its length as far as it goes.
                            let diagonal = Int64(offset) - Int64(origin.offset - run.back)
                            let end = offset + UInt64(run.length)
                            if let same = recent.firstIndex(where: { $0.longValue == long && $0.diagonal == diagonal && $0.end + UInt64(PatternIndex.windowStep) >= offset }) {
                                recent[same].end = max(recent[same].end, end)
                                if let place = recent[same].kept {
                                    hits.kept[place].length = Int(recent[same].end - recent[same].start)
                                    hits.kept[place].piece = !(Int64(recent[same].start) == diagonal && Int64(recent[same].end) - diagonal == Int64(valueLength))
                                }
                                return
                            }
                            if recent.count == 8 { recent.removeFirst() }
                            recent.append(RecentRun(longValue: long, diagonal: diagonal, start: offset, end: end, kept: kept))
                        }
                        hits.count += 1
                        if let pageSize { hits.pages[Int(offset / UInt64(pageSize)) + 1, default: 0] += 1 }
                        if kept != nil {
                            let whole = origin.longValue == nil || (origin.offset == run.back && run.length == valueLength)
                            hits.kept.append(RawHit(pattern: pattern, offset: offset, length: run.length, piece: !whole))
                        }
                    }
                }
                next = bufferStart + last + 1
            }
            // Keep what a later run may start in, and what is not searched yet.
            let keepFrom = max(0, min(next - bufferStart - behind, filled))
            buffer.withUnsafeMutableBytes { raw in
                raw.baseAddress!.copyMemory(from: raw.baseAddress! + keepFrom, byteCount: filled - keepFrom)
            }
            bufferStart += keepFrom
            filled -= keepFrom
        }
        return hits
    }
}
