import Synchronization
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// The leak scan of an anonymized output: proof that no replaced value, and no
/// run of ``PatternIndex/runBytes`` bytes of one, is left in it; a value shorter
/// than ``wholeValueBytes(storeBytes:values:)`` counts only where it stands
/// whole (``WholeValue``: a cell, a word, an index key).
///
/// Two passes, each over every batch of replaced values:
/// - the **raw pass** (``LeakScanner``) reads every byte of every file of the
///   output: the store's main file whatever SQLite put where, and the files
///   SQLite does not know (Core Data's external data);
/// - the **logical pass** (``TableScan``) reads every value of a table through
///   SQLite, whole however SQLite cut it over pages: the tables whose records
///   spill onto overflow pages (where a value is cut in pieces the raw pass may
///   find too short), and those on whose pages the raw pass matched. SQLite's
///   `dbstat` maps the store's pages to tables and indexes for it, when it is
///   needed: when the raw pass matched in the store, or saw a page that is no
///   b-tree's (every page of a store whose records all fit in their pages
///   starts with a b-tree page's type; an overflow page does not).
///
/// A match in the bytes of a table's pages (or of an index of its columns) is
/// then a leak exactly when a value of the table holds it, and it is reported
/// with its table, column and row. Every byte of the output is one of SQLite's
/// structures or a copy of a value the output holds (``AnonymizationEngine``
/// builds it with `VACUUM INTO`, from the live rows only), so a match that no
/// value holds spans two values, or a value and the structure around it: it is
/// counted as ``LeakScanReport/spanning``, no leak. A match anywhere else (a
/// free page, an index on expressions, whose values SQL does not read, a file
/// that is not the store) is a leak, named by file, offset and page; a short
/// value's there is judged by the record of the page it lies in
/// (``BTreePageCells``), or by the bytes around it.
///
/// A column the rules set to `null` is never searched for its own replaced
/// values: what it holds, its rule's `where` kept on purpose.
///
/// A pattern found inside a value the rules wrote, or in the schema, is no leak
/// (a fake name that is also a real one, a shifted date that is another row's):
/// those exemptions are looked for before the output is searched.
///
/// The first batch is prepared while the rows are rewritten: a second thread
/// reads the replaced values back from the spool as it is written and indexes
/// them; once the spool is complete, it looks for them in the values the rules
/// wrote while the caller builds the output. ``finish(_:)`` then runs the raw
/// pass on both threads (a large store one half each), the logical pass when
/// it is needed, and any further batch after that.
final class LeakScan {
    private let spool: LeakSpool
    private let schemaText: [String]
    private let batchBytes: Int
    /// The rule indexes of the columns the rules set to `null`.
    private let nullColumns: Set<Int>
    private let stage = BackgroundStage()
    private let first: Batch

    /// The patterns of one batch, and where the next one starts in the spool.
    /// Handed between the threads under ``BackgroundStage``'s rule.
    final class Batch: @unchecked Sendable {
        var index = PatternIndex()
        var offset: Int64
        var isLast = false
        init(offset: Int64) { self.offset = offset }
    }

    private final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        var isSet: Bool { value.load(ordering: .relaxed) }
        func set() { value.store(true, ordering: .relaxed) }
    }

    private let cancelled = Flag()

    /// The hits of the logical pass: the first ones kept, all of them counted.
    struct LogicalHits {
        var kept: [(table: String, hit: TableScan.Hit)] = []
        var count = 0
        /// How many are kept.
        var limit = LeakScanner.maximumReportedHits
        /// The tables with a hit.
        var tables: Set<String> = []

        mutating func add(_ hit: TableScan.Hit, in table: String) {
            count += 1
            tables.insert(table)
            if kept.count < limit { kept.append((table, hit)) }
        }
    }

    /// The second half's hits, handed back under ``BackgroundStage``'s rule.
    private final class SecondHalf: @unchecked Sendable {
        var hits = LeakScanner.FileHits()
    }

    /// What the logical pass found for a batch.
    private final class LogicalResult {
        var map: StorePageMap?
        var hits = LogicalHits()
        var tables: [String] = []
        var embedded = 0
    }

    /// What is searched.
    struct Target {
        /// Every file of the output, and how each is named in the report.
        var files: [(path: String, name: String)]
        /// The store's main file among them, which SQLite reads for the logical pass.
        var store: String
        /// Text is stored as UTF-16.
        var utf16: Bool
        /// `table.column` of each rule index.
        var columns: [String]
        /// Hits listed in the report (all are counted).
        var reportedHits = LeakScanner.maximumReportedHits
    }

    /// Starts indexing the spool's originals on a second thread.
    /// - Parameter nullColumns: the rule indexes of the columns the rules set to
    ///   `null`: their cells are not searched for their own replaced values.
    init(spool: LeakSpool, schemaText: [String], nullColumns: Set<Int> = [], batchBytes: Int = LeakScanner.batchBytes) {
        self.spool = spool
        self.schemaText = schemaText
        self.batchBytes = batchBytes
        self.nullColumns = nullColumns
        let first = Batch(offset: 0)
        self.first = first
        let cancelled = cancelled
        let tracked = Set(nullColumns.map { UInt32($0) })
        stage.start {
            try Self.fill(first, from: spool, batchBytes: batchBytes, following: true, tracked: tracked, cancelled: cancelled)
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
    /// No batch reads an original before its own first one, so the pages read
    /// are freed behind the reader.
    private static func fill(_ batch: Batch, from spool: LeakSpool, batchBytes: Int, following: Bool, tracked: Set<UInt32>, cancelled: Flag) throws(FileSystemError) {
        var offset = batch.offset
        var index = PatternIndex()
        index.trackedColumns = tracked
        index.reserve(bytes: batchBytes)
        defer {
            index.build()
            batch.index = index
            batch.offset = offset
        }
        while true {
            // Complete first: everything it covers is then in `available`.
            let complete = !following || spool.progress.isComplete
            let limit = following ? Int64(spool.progress.available) : .max
            var full = false
            try spool.originals.records(from: &offset, to: limit, withColumn: true, discarding: true) { column, bytes in
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

    /// Marks the patterns found in the schema or inside a value the rules wrote;
    /// the last batch frees the written values' pages behind it, which the
    /// output built meanwhile reuses.
    private static func findExemptions(_ batch: Batch, spool: LeakSpool, schemaText: [String]) throws(FileSystemError) {
        guard !batch.index.isEmpty else { return }
        let index = batch.index
        var exemptions = index.exemptions
        // `mark` reads the two arrays through pointers taken once: captured as
        // arrays, each was retained and released around every record's search.
        try index.shapes.withUnsafeBufferPointer { shapes throws(FileSystemError) in
            try index.owners.withUnsafeBufferPointer { owners throws(FileSystemError) in
                // A short value is marked whole too where it stands whole in `bytes`.
                func mark(_ pattern: Int, _ run: PatternIndex.Run, in bytes: UnsafeRawBufferPointer) {
                    let window = shapes[pattern] & PatternIndex.windowFlag != 0
                    let form = WholeValue.form(ofTagged: owners[pattern])
                    let whole = !window && run.start % form.unit == 0
                        && WholeValue.isWhole(bytes, run.start..<(run.start + run.length), form: form, value: 0..<bytes.count)
                    exemptions.mark(pattern, run: run, window: window, whole: whole)
                }
                for text in schemaText {
                    // Each form on its own, so that their edges are the text's.
                    var forms = [Array(text.utf8)]
                    if spool.utf16 { forms += [false, true].map { LeakSpool.utf16(Array(text.utf16), bigEndian: $0) } }
                    for bytes in forms {
                        bytes.withUnsafeBytes { raw in index.search(raw, through: raw.count - 1) { mark($0, $1, in: raw) } }
                    }
                }
                var offset: Int64 = 0
                try spool.written.records(from: &offset, withColumn: false, discarding: batch.isLast) { _, bytes in
                    index.search(bytes, through: bytes.count - 1) { mark($0, $1, in: bytes) }
                    return true
                }
            }
        }
        batch.index.exemptions = exemptions
    }

    private func waitForStage() throws(FixtureKitError) {
        do { try stage.wait() } catch { throw Self.wrap(error, store: nil) }
    }

    static func wrap(_ error: any Error, store: String?) -> FixtureKitError {
        switch error {
        case let error as FixtureKitError: return error
        case let error as FileSystemError: return FixtureKitError(what: "leak scan", failed: error)
        case let error as SQLiteError: return FixtureKitError(what: "leak scan", path: store, why: error.description, cause: error)
        default: return FixtureKitError(what: "leak scan", path: store, why: "\(error)")
        }
    }

    /// Searches the output for the spool's originals; the spool is finished first if it was not.
    /// - Throws: ``FixtureKitError`` when a file or the store cannot be read.
    func finish(_ target: Target) throws(FixtureKitError) -> LeakScanReport {
        do { try spool.finish() } catch {
            cancelled.set()
            throw Self.wrap(error, store: nil)
        }
        try waitForStage()
        var report = LeakScanReport(files: target.files.map(\.name))
        do {
            for file in target.files { report.bytes += UInt64(try POSIX.lstat(file.path).size) }
        } catch {
            throw Self.wrap(error, store: nil)
        }
        let header = try StoreSet.locate(target.store).header()
        let storeName = target.files.first { $0.path == target.store }?.name ?? target.store
        var map: StorePageMap?
        var tablesRead: Set<String> = []
        var batch = first
        var firstBatch = true
        while !batch.index.isEmpty {
            let index = batch.index
            let shortValues = (0..<index.count).reduce(0) { $0 + (index.isWindow($1) ? 0 : 1) }
            let wholeBelow = Self.wholeValueBytes(storeBytes: report.bytes, values: shortValues)
            report.wholeValueBytes = firstBatch ? wholeBelow : min(report.wholeValueBytes, wholeBelow)
            firstBatch = false
            for pattern in 0..<index.count {
                guard let exempt = index.isWhollyExempt(pattern, wholeBelow: wholeBelow) else { continue }
                if exempt { report.valuesExempt += 1 } else { report.valuesSearched += 1 }
            }
            report.valuesSearched += index.longValueCount
            let storeForm: WholeValue.Form = header.textEncoding == 2 ? .utf16LE : header.textEncoding == 3 ? .utf16BE : .utf8
            let judgment = TableScan.Judgment(wholeBelow: wholeBelow, utf16: target.utf16, storeForm: storeForm, nullColumns: nullColumnNames(target.columns))

            // Both threads: every byte of every file, the store's main file in two halves when it is
            // large, cut between two pages: no run of a value's bytes crosses one (a page's cells are
            // its own, and an overflow page's bytes start with its next one's number).
            let storeSize = Int(target.files.first { $0.path == target.store }.map { (try? POSIX.lstat($0.path).size) ?? 0 } ?? 0)
            let middle = storeSize >= LeakScanner.splitBytes ? storeSize / 2 / header.pageSize * header.pageSize : Int.max
            let second = SecondHalf()
            if middle != Int.max {
                let store = target.store, pageSize = header.pageSize
                stage.start { second.hits = try LeakScanner.search(store, from: middle, index: index, pageSize: pageSize, wholeBelow: wholeBelow) }
            }
            var raw: [LeakScanner.FileHits] = []
            do {
                for file in target.files {
                    let isStore = file.path == target.store
                    raw.append(try LeakScanner.search(file.path, to: isStore ? middle : .max, index: index, pageSize: isStore ? header.pageSize : nil, wholeBelow: wholeBelow))
                }
            } catch {
                stage.drain()
                throw Self.wrap(error, store: nil)
            }
            try waitForStage()
            // The logical pass, when the store's bytes matched or some of its pages are no b-tree's
            // (its records may spill): the page map (once), then the tables whose rows spill.
            let logical = LogicalResult()
            logical.map = map
            logical.hits.limit = target.reportedHits
            if let place = target.files.firstIndex(where: { $0.path == target.store }) {
                raw[place].merge(second.hits)
                // From 2^24 pages on, an overflow page's first byte (its next one's number) can look like a type.
                if storeSize / header.pageSize >= 1 << 24 { raw[place].pagesOutsideBTrees = true }
                if raw[place].count > 0 || !raw[place].shortPages.isEmpty || raw[place].pagesOutsideBTrees {
                    do {
                        let database = try Self.open(target.store)
                        if logical.map == nil { logical.map = try StorePageMap(database: database, header: header) }
                        for table in raw[place].pagesOutsideBTrees ? logical.map?.overflowingTables ?? [] : [] {
                            logical.tables.append(table)
                            try TableScan.scan(database, table: table, index: index, judgment: judgment, embedded: &logical.embedded) { logical.hits.add($0, in: table) }
                        }
                    } catch {
                        throw Self.wrap(error, store: storeName)
                    }
                }
            }
            map = logical.map
            report.embedded += logical.embedded
            var read = Set(logical.tables)
            var hits = logical.hits
            var leaks: [LeakHit] = []
            for (file, fileHits) in zip(target.files, raw) {
                report.embedded += fileHits.embedded
                guard fileHits.count > 0 || !fileHits.shortPages.isEmpty else { continue }
                guard file.path == target.store, let map else {
                    // A file SQLite does not read: every match is a leak.
                    leaks += fileHits.kept.map { rawHit($0, file: file.name, index: index, columns: target.columns) }
                    report.hitCount += fileHits.count - fileHits.kept.count
                    continue
                }
                let context = Classification(file: file.name, map: map, index: index, target: target, judgment: judgment)
                try classify(fileHits, context, read: &read, hits: &hits, leaks: &leaks, report: &report)
            }
            report.hitCount += hits.count - hits.kept.count
            for (_, hit) in hits.kept.sorted(by: { ($0.table, $0.hit.rowid ?? 0) < ($1.table, $1.hit.rowid ?? 0) }) {
                let origin = index.origin(of: hit.pattern)
                report.add(LeakHit(
                    column: name(of: origin.column, in: target.columns), file: storeName, foundIn: hit.column,
                    rowid: hit.rowid, key: hit.key, length: hit.length, piece: !hit.whole, cellBytes: hit.cellBytes,
                    before: LeakHit.show(hit.before, form: hit.form, leading: true), after: LeakHit.show(hit.after, form: hit.form, leading: false)),
                    limit: target.reportedHits)
            }
            // The values SQLite reads first, then the bytes outside them.
            for leak in leaks { report.add(leak, limit: target.reportedHits) }
            tablesRead.formUnion(read)
            guard !batch.isLast else { break }
            let next = Batch(offset: batch.offset)
            batch.index = PatternIndex()
            do {
                try Self.fill(next, from: spool, batchBytes: batchBytes, following: false, tracked: Set(nullColumns.map { UInt32($0) }), cancelled: cancelled)
                try Self.findExemptions(next, spool: spool, schemaText: schemaText)
            } catch {
                throw Self.wrap(error, store: nil)
            }
            batch = next
        }
        report.tablesRead = tablesRead.sorted(by: AnonymizationRules.bytewise)
        return report
    }

    /// The length below which a replaced value counts only where it stands
    /// whole (``WholeValue``): the smallest `k` at which `values` values
    /// together are expected to occur by chance at most once in a thousand in
    /// `storeBytes` bytes of decimal digits (the smallest alphabet values are
    /// drawn from), `values * storeBytes / 10^k <= 10^-3`, so
    /// `k = ceil(log10(values * storeBytes)) + 3`; from ``PatternIndex/minimumBytes``
    /// to ``PatternIndex/runBytes``.
    static func wholeValueBytes(storeBytes: UInt64, values: Int) -> Int {
        let product = Double(max(storeBytes, 1)) * Double(max(values, 1))
        // ceil(log10(product)): powers of ten up to 10^22 are exact in a Double.
        var digits = 0
        var power = 1.0
        while power < product {
            power *= 10
            digits += 1
        }
        return min(PatternIndex.runBytes, max(PatternIndex.minimumBytes, digits + 3))
    }

    /// `table.column` (as `identifierKey` gives it) of each column the rules set to `null`, and its rule's index.
    private func nullColumnNames(_ columns: [String]) -> [String: Int] {
        var names: [String: Int] = [:]
        for column in nullColumns where column < columns.count { names[columns[column].identifierKey] = column }
        return names
    }

    /// The output's store, read-only and immutable: no lock, no sidecar, nothing written.
    static func open(_ path: String) throws(SQLiteError) -> Database {
        try Database(path: ScratchStore.fileURI(path) + "?immutable=1", options: .init(readOnly: true, uri: true, busyTimeout: 0))
    }
}
