import FixtureKitSystem

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
    /// A store's main file this large or larger is searched by two threads, one half each.
    static let splitBytes = 4 << 20
    /// The first byte of a b-tree page: interior index, interior table, leaf index, leaf table
    /// (<https://www.sqlite.org/fileformat.html#b_tree_pages>).
    static let bTreePageTypes: Set<UInt8> = [2, 5, 10, 13]

    /// A run of a replaced value found in a file.
    struct RawHit {
        var pattern: Int
        /// Where the run starts in the file.
        var offset: UInt64
        var length: Int
        var piece: Bool
        /// The bytes right before and after the run (``LeakHit/contextBytes`` at most).
        var before: [UInt8]? = nil
        var after: [UInt8]? = nil
    }

    /// The hits of one file: the first ones with where they are, all of them counted.
    struct FileHits {
        var count = 0
        var kept: [RawHit] = []
        /// Hits by page (counted from 1), when the file is searched as a store of that page size.
        var pages: [Int: Int] = [:]
        /// In a store: the matches of values judged whole (shorter than the scan's
        /// ``LeakScan/wholeValueBytes(storeBytes:values:)``) by page, whole or not:
        /// where they lie decides (a table's values, or the page's own records).
        var shortPages: [Int: Int] = [:]
        /// In another file: the matches of such values that do not stand whole (no leak).
        var embedded = 0
        /// A page (after the first) starts with a byte that is no b-tree page's type: an
        /// overflow page (whose first bytes are the next one's number, smaller than 2^24),
        /// a free page or a pointer-map page. When none does, no record spills.
        var pagesOutsideBTrees = false

        mutating func merge(_ other: FileHits) {
            count += other.count
            kept += other.kept.prefix(maximumKeptHits - kept.count)
            pages.merge(other.pages, uniquingKeysWith: +)
            shortPages.merge(other.shortPages, uniquingKeysWith: +)
            embedded += other.embedded
            pagesOutsideBTrees = pagesOutsideBTrees || other.pagesOutsideBTrees
        }
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

    /// Searches the positions `start..<end` of the file at `path` (to its end
    /// by default): each read with the bytes before it that a run may start in,
    /// and the bytes after it that a pattern or run may end in (read past `end`
    /// when they are there), so that nothing across two reads or two ranges is
    /// missed. The windows of one copy of a long value count as one hit.
    /// - Parameters:
    ///   - pageSize: counts the hits by page of that size, and looks at
    ///     the pages' first bytes (the store's main file).
    ///   - wholeBelow: values shorter than this are judged whole (``WholeValue``):
    ///     in a store, counted by page in ``FileHits/shortPages`` for the caller
    ///     to judge; in another file, a hit only where they stand whole in its bytes.
    static func search(_ path: String, from start: Int = 0, to end: Int = .max, index: PatternIndex, pageSize: Int? = nil, wholeBelow: Int = PatternIndex.minimumBytes) throws(FileSystemError) -> FileHits {
        let file = try FileDescriptor.open(path, .readOnly, options: .noFollow)
        defer { try? file.close() }
        file.adviseSequential()
        let behind = PatternIndex.reach
        let ahead = max(index.maximumLength, PatternIndex.windowBytes) + PatternIndex.reach
        var buffer = [UInt8](repeating: 0, count: behind + readSize + ahead)
        var hits = FileHits()
        var recent: [RecentRun] = []
        // buffer[0..<filled] holds the file from `bufferStart`; positions from `next` on are not searched yet.
        var bufferStart = max(0, start - behind)
        var filled = 0
        var next = start
        var atEnd = false
        let limit = end == .max ? Int.max : end + ahead
        while !atEnd && next < end {
            let wanted = min(buffer.count - filled, limit - (bufferStart + filled))
            let count = wanted <= 0 ? 0 : try file.read(fromAbsoluteOffset: Int64(bufferStart + filled), into: &buffer, filled..<filled + wanted)
            filled += count
            atEnd = count == 0
            // Positions from which every pattern and its run fit in what was read, before `end`: the rest waits.
            let last = min(atEnd ? filled - 1 : filled - ahead - 1, end - 1 - bufferStart)
            if last >= next - bufferStart {
                if let pageSize, !hits.pagesOutsideBTrees {
                    // Page 1 is always sqlite_schema's root; its type byte is after the header.
                    var page = max(next, pageSize)
                    page = (page + pageSize - 1) / pageSize * pageSize
                    while page <= bufferStart + last {
                        if !bTreePageTypes.contains(buffer[page - bufferStart]) { hits.pagesOutsideBTrees = true }
                        page += pageSize
                    }
                }
                buffer.withUnsafeBytes { raw in
                    let filledBytes = UnsafeRawBufferPointer(rebasing: raw[0..<filled])
                    index.search(filledBytes, from: next - bufferStart, through: last) { pattern, run in
                        guard !index.isExempt(pattern, run: run, wholeBelow: wholeBelow) else { return }
                        let offset = UInt64(bufferStart + run.start)
                        if index.isJudgedWhole(pattern, below: wholeBelow) {
                            if let pageSize {
                                hits.shortPages[Int(offset / UInt64(pageSize)) + 1, default: 0] += 1
                                return
                            }
                            // The buffer holds the file's first (last) byte, or enough bytes around the match.
                            guard WholeValue.isWhole(filledBytes, run.start..<(run.start + run.length), form: index.form(of: pattern)) else {
                                hits.embedded += 1
                                return
                            }
                        }
                        let origin = index.origin(of: pattern)
                        let valueLength = index.valueLength(of: pattern)
                        let kept = hits.kept.count < maximumKeptHits ? hits.kept.count : nil
                        if let long = origin.longValue {
                            // The next windows of one copy extend its run: one hit, its length as far as it goes.
                            let diagonal = Int64(offset) - Int64(origin.offset - run.back)
                            let end = offset + UInt64(run.length)
                            if let same = recent.firstIndex(where: { $0.longValue == long && $0.diagonal == diagonal && $0.end + UInt64(PatternIndex.windowStep) >= offset }) {
                                let grew = end > recent[same].end
                                recent[same].end = max(recent[same].end, end)
                                if let place = recent[same].kept {
                                    hits.kept[place].length = Int(recent[same].end - recent[same].start)
                                    if grew {
                                        let after = run.start + run.length
                                        hits.kept[place].after = Array(filledBytes[after..<min(filled, after + LeakHit.contextBytes)])
                                    }
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
                            let end = run.start + run.length
                            hits.kept.append(RawHit(
                                pattern: pattern, offset: offset, length: run.length, piece: !whole,
                                before: Array(filledBytes[max(0, run.start - LeakHit.contextBytes)..<run.start]),
                                after: Array(filledBytes[end..<min(filled, end + LeakHit.contextBytes)])))
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
