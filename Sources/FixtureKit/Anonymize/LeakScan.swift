#if canImport(Glibc)
import Glibc
#endif
import Synchronization

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
    static let batchBytes = 64 << 20
    static let readSize = 1 << 20
    static let maximumReportedHits = 20
    /// A file this large or larger is searched by two threads, one half each.
    static let splitBytes = 4 << 20

    /// Searches every byte of `files` for the spool's originals.
    /// - Parameters:
    ///   - names: how each file is named in the report.
    ///   - columns: `table.column` of each rule index.
    ///   - schemaText: text that is in the file whatever the data.
    static func scan(_ spool: LeakSpool, files: [(path: String, name: String)], columns: [String], schemaText: [String], batchBytes: Int = batchBytes) throws(FileSystemError) -> LeakScanReport {
        try LeakScan(spool: spool, schemaText: schemaText, batchBytes: batchBytes).finish(files: files, columns: columns)
    }

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

    /// The hits of one part of a file.
    struct RangeHits {
        var count = 0
        /// The first ones, in the order found: (pattern, offset in the file).
        var first: [(pattern: Int, offset: UInt64)] = []
    }

    /// Searches the positions `start..<end` of the file at `path`, reading on
    /// past `end` as far as the longest pattern needs. Each read is searched with
    /// the last bytes of the previous one in front, so that a value across two
    /// reads is found.
    static func search(_ path: String, from start: Int, to end: Int, index: PatternIndex) throws(FileSystemError) -> RangeHits {
        let fd = try POSIX.open(path, O_RDONLY | O_NOFOLLOW)
        defer { close(fd) }
        _ = posix_fadvise(fd, off_t(start), 0, POSIX_FADV_SEQUENTIAL)
        let overlap = max(index.maximumLength - 1, 0)
        var buffer = [UInt8](repeating: 0, count: readSize + overlap)
        var hits = RangeHits()
        var carried = 0
        var bufferStart = start
        var position = start
        while true {
            let wanted = min(buffer.count - carried, end + overlap - position)
            let count = wanted <= 0 ? 0 : buffer.withUnsafeMutableBytes { raw in
                POSIX.retrying { pread(fd, raw.baseAddress! + carried, wanted, off_t(position)) }
            }
            if count < 0 { throw FileSystemError("read", path: path, errno: errno) }
            position += count
            let filled = carried + count
            let atEnd = count == 0
            // Positions from which every pattern fits in what was read, and before `end`: the rest waits.
            let last = min(atEnd ? filled : filled - overlap - 1, end - 1 - bufferStart)
            buffer.withUnsafeBytes { raw in
                index.search(UnsafeRawBufferPointer(rebasing: raw[0..<filled]), end: last) { pattern, at in
                    guard !index.isExempt(pattern) else { return }
                    hits.count += 1
                    if hits.first.count < maximumReportedHits { hits.first.append((pattern, UInt64(bufferStart + at))) }
                }
            }
            if atEnd { return hits }
            let keep = min(filled, max(filled - max(last + 1, 0), 0))
            buffer.withUnsafeMutableBytes { raw in
                raw.baseAddress!.copyMemory(from: raw.baseAddress! + (filled - keep), byteCount: keep)
            }
            bufferStart += filled - keep
            carried = keep
        }
    }
}

/// A leak scan that starts before the rewrite: while SQLite rewrites rows on
/// the caller's thread, a second thread reads the replaced values back from
/// the spool as it is written and indexes the first batch of them; once the
/// spool is complete, it looks for them in the values the rules wrote (which
/// exempts them) while the caller builds the output. ``finish(files:columns:)``
/// then searches every file, a large one by both threads, and any further
/// batch after that.
final class LeakScan {
    private let spool: LeakSpool
    private let schemaText: [String]
    private let batchBytes: Int
    private let stage = BackgroundStage()
    private let first: Batch

    /// The patterns of one batch, and where the next one starts in the spool.
    /// Handed between the threads under ``BackgroundStage``'s rule.
    private final class Batch: @unchecked Sendable {
        var index = PatternIndex()
        var offset: off_t
        var isLast = false
        init(offset: off_t) { self.offset = offset }
    }

    private final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        var isSet: Bool { value.load(ordering: .relaxed) }
        func set() { value.store(true, ordering: .relaxed) }
    }

    private let cancelled = Flag()

    /// The second half's hits, handed back under ``BackgroundStage``'s rule.
    private final class HitsBox: @unchecked Sendable {
        var hits = LeakScanner.RangeHits()
    }

    /// Starts indexing the spool's originals on a second thread.
    init(spool: LeakSpool, schemaText: [String], batchBytes: Int = LeakScanner.batchBytes) {
        self.spool = spool
        self.schemaText = schemaText
        self.batchBytes = batchBytes
        let first = Batch(offset: 0)
        self.first = first
        let cancelled = cancelled
        stage.start {
            try Self.fill(first, from: spool, batchBytes: batchBytes, following: true, cancelled: cancelled)
            guard !cancelled.isSet else { return }
            try Self.findExemptions(first, spool: spool, schemaText: schemaText)
        }
    }

    deinit {
        cancelled.set()
        spool.progress.complete()
        stage.drain()
    }

    /// Reads originals from `batch.offset` into `batch.index` until the batch is
    /// full or the spool ends; `following`: waits for a spool still written.
    private static func fill(_ batch: Batch, from spool: LeakSpool, batchBytes: Int, following: Bool, cancelled: Flag) throws(FileSystemError) {
        var offset = batch.offset
        var index = PatternIndex()
        index.reserve(bytes: batchBytes)
        defer {
            index.build()
            batch.index = index
            batch.offset = offset
        }
        while true {
            // Complete first: everything it covers is then in `available`.
            let complete = !following || spool.progress.isComplete
            let limit = following ? off_t(spool.progress.available) : .max
            var full = false
            try spool.originals.records(from: &offset, to: limit, withColumn: true) { column, bytes in
                if index.arenaBytes + bytes.count > batchBytes && !index.isEmpty {
                    full = true
                    return false
                }
                index.add(bytes, column: Int(column))
                return true
            }
            if full { break }
            if complete {
                batch.isLast = true
                break
            }
            if cancelled.isSet { return }
            spool.progress.waitForChange()
        }
        // The written values must all be there before they are searched.
        while following && !spool.progress.isComplete && !cancelled.isSet { spool.progress.waitForChange() }
    }

    /// Marks the patterns found in the schema or inside a value the rules wrote.
    private static func findExemptions(_ batch: Batch, spool: LeakSpool, schemaText: [String]) throws(FileSystemError) {
        guard !batch.index.isEmpty else { return }
        let index = batch.index
        var exempt = index.exemptBits
        func mark(_ pattern: Int, _: Int) { exempt[pattern >> 6] |= 1 << UInt64(pattern & 63) }
        for text in schemaText {
            var bytes = Array(text.utf8)
            if spool.utf16 { bytes += LeakScanner.utf16Forms(text) }
            bytes.withUnsafeBytes { raw in index.search(raw, end: raw.count, mark) }
        }
        var offset: off_t = 0
        try spool.written.records(from: &offset, withColumn: false) { _, bytes in
            index.search(bytes, end: bytes.count, mark)
            return true
        }
        batch.index.exemptBits = exempt
    }

    private func waitForStage() throws(FileSystemError) {
        do { try stage.wait() } catch let error as FileSystemError { throw error } catch {
            throw FileSystemError("leak scan", path: "", message: "\(error)")
        }
    }

    /// Searches every byte of `files` for the spool's originals; the spool is
    /// finished first if it was not.
    /// - Parameters:
    ///   - files: the paths, and how each is named in the report.
    ///   - columns: `table.column` of each rule index.
    func finish(files: [(path: String, name: String)], columns: [String]) throws(FileSystemError) -> LeakScanReport {
        do { try spool.finish() } catch {
            cancelled.set()
            throw error
        }
        try waitForStage()
        var report = LeakScanReport(files: files.map(\.name), bytes: 0, valuesSearched: 0, valuesExempt: 0, hits: [], hitCount: 0)
        var sizes: [Int] = []
        for file in files {
            let info = try POSIX.lstat(file.path)
            report.bytes += UInt64(info.st_size)
            sizes.append(Int(info.st_size))
        }
        var batch = first
        while !batch.index.isEmpty {
            for pattern in 0..<batch.index.count {
                if batch.index.isExempt(pattern) { report.valuesExempt += 1 } else { report.valuesSearched += 1 }
            }
            for (file, size) in zip(files, sizes) {
                try search(file, size: size, index: batch.index, columns: columns, report: &report)
            }
            guard !batch.isLast else { break }
            let next = Batch(offset: batch.offset)
            batch.index = PatternIndex()
            try Self.fill(next, from: spool, batchBytes: batchBytes, following: false, cancelled: cancelled)
            try Self.findExemptions(next, spool: spool, schemaText: schemaText)
            batch = next
        }
        return report
    }

    /// Searches one file: a large one in two halves, the second on the stage's thread.
    private func search(_ file: (path: String, name: String), size: Int, index: PatternIndex, columns: [String], report: inout LeakScanReport) throws(FileSystemError) {
        var parts: [LeakScanner.RangeHits]
        if size >= LeakScanner.splitBytes {
            let middle = size / 2
            let box = HitsBox()
            stage.start { box.hits = try LeakScanner.search(file.path, from: middle, to: size, index: index) }
            let firstHalf: LeakScanner.RangeHits
            do { firstHalf = try LeakScanner.search(file.path, from: 0, to: middle, index: index) } catch {
                stage.drain()
                throw error
            }
            try waitForStage()
            parts = [firstHalf, box.hits]
        } else {
            parts = [try LeakScanner.search(file.path, from: 0, to: max(size, 0), index: index)]
        }
        for part in parts {
            report.hitCount += part.count
            for (pattern, offset) in part.first where report.hits.count < LeakScanner.maximumReportedHits {
                let column = Int(index.columns[pattern])
                report.hits.append(LeakHit(file: file.name, offset: offset, column: column < columns.count ? columns[column] : "?"))
            }
        }
    }
}
