import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

extension LeakScan {
    /// What ``classify(_:_:read:hits:leaks:report:)`` judges the store's matches with.
    struct Classification {
        /// The store's main file, as named in the report.
        var file: String
        var map: StorePageMap
        var index: PatternIndex
        var target: Target
        var judgment: TableScan.Judgment
    }

    /// Sorts the store file's matches by the page they are on: on a table's
    /// pages (or an index of its columns) the table is read, if it was not,
    /// and its values say whether they are a leak; anywhere else they are one,
    /// but for a short value (``WholeValue``), which the page's own records judge.
    func classify(_ fileHits: LeakScanner.FileHits, _ context: Classification,
                  read: inout Set<String>, hits: inout LogicalHits, leaks: inout [LeakHit], report: inout LeakScanReport) throws(FixtureKitError) {
        let map = context.map
        var onTables: [String: Int] = [:]
        var shortOnTables: Set<String> = []
        var elsewhere: Set<Int> = []
        var shortElsewhere: [Int] = []
        func tableOf(_ page: Int) -> String? {
            guard let tree = map.page(page).tree, !(tree.isIndex && tree.hasExpressions) else { return nil }
            return tree.table
        }
        for (page, count) in fileHits.pages {
            if let table = tableOf(page) { onTables[table, default: 0] += count } else { elsewhere.insert(page) }
        }
        for page in fileHits.shortPages.keys {
            if let table = tableOf(page) { shortOnTables.insert(table) } else { shortElsewhere.append(page) }
        }
        let unread = Set(onTables.keys).union(shortOnTables).filter { !read.contains($0) }.sorted()
        if !unread.isEmpty {
            do {
                let database = try Self.open(context.target.store)
                for table in unread {
                    read.insert(table)
                    try TableScan.scan(database, table: table, index: context.index, judgment: context.judgment, embedded: &report.embedded) { hits.add($0, in: table) }
                }
            } catch {
                throw Self.wrap(error, store: context.file)
            }
        }
        // Matches on the pages of a table none of whose values holds a run: they span values.
        for (table, count) in onTables where !hits.tables.contains(table) { report.spanning += count }
        let pages = try PageReader(context)
        var kept = 0
        for hit in fileHits.kept {
            let page = Int(hit.offset / UInt64(map.pageSize)) + 1
            guard elsewhere.contains(page) else { continue }
            kept += 1
            let start = (page - 1) * map.pageSize
            let range = Int(hit.offset) - start..<(Int(hit.offset) - start + hit.length)
            let bytes = try pages.read(page)
            var leak = pageHit(hit, page: page, context)
            if range.upperBound <= map.pageSize, case .value(let bounds, let serialType, _) = pages.place(of: range, on: page, in: bytes), serialType >= 12 {
                describe(&leak, range: range, in: bytes, value: bounds, form: serialType & 1 == 1 ? context.index.form(of: hit.pattern) : .blob)
            }
            leaks.append(leak)
        }
        report.hitCount += elsewhere.reduce(0) { $0 + (fileHits.pages[$1] ?? 0) } - kept
        try judgeShortValues(onPages: shortElsewhere.sorted(), context, pages: pages, leaks: &leaks, report: &report)
    }

    /// Reads the store's pages, one at a time (the last one kept), and where bytes lie on them.
    private final class PageReader {
        let file: FileDescriptor
        let context: Classification
        private var last: (page: Int, bytes: [UInt8])?

        init(_ context: Classification) throws(FixtureKitError) {
            self.context = context
            do { file = try FileDescriptor.open(context.target.store, .readOnly, options: .noFollow) } catch {
                throw LeakScan.wrap(error, store: context.file)
            }
        }

        deinit { try? file.close() }

        /// The page, and the bytes after it that a match starting on it may end in.
        func read(_ page: Int) throws(FixtureKitError) -> [UInt8] {
            if let last, last.page == page { return last.bytes }
            let pageSize = context.map.pageSize
            let bytes: [UInt8]
            do {
                bytes = try file.read(fromAbsoluteOffset: Int64((page - 1) * pageSize), upTo: pageSize + context.index.maximumLength)
            } catch {
                throw LeakScan.wrap(error, store: context.file)
            }
            last = (page, bytes)
            return bytes
        }

        func place(of range: Range<Int>, on page: Int, in bytes: [UInt8]) -> BTreePageCells.Place {
            let pageSize = context.map.pageSize
            guard range.upperBound <= min(pageSize, bytes.count) else { return .outside }
            return bytes.withUnsafeBytes { raw in
                BTreePageCells.place(of: range, page: UnsafeRawBufferPointer(rebasing: raw[0..<min(pageSize, raw.count)]), headerOffset: page == 1 ? 100 : 0, usableSize: context.map.usableSize)
            }
        }
    }

    /// A raw hit on a page no table's values explain, named by its page.
    private func pageHit(_ hit: LeakScanner.RawHit, page: Int, _ context: Classification) -> LeakHit {
        var leak = rawHit(hit, file: context.file, index: context.index, columns: context.target.columns)
        leak.page = page
        leak.pageType = context.map.describe(page)
        leak.btree = context.map.page(page).tree?.name
        return leak
    }

    /// Shows the bytes around a match within the value of a record that holds it (`value`), or, without one, within `bytes`.
    private func describe(_ leak: inout LeakHit, range: Range<Int>, in bytes: [UInt8], value: Range<Int>?, form: WholeValue.Form) {
        let around = value ?? 0..<bytes.count
        let shown: WholeValue.Form = value == nil ? .blob : form
        let context = LeakHit.contextBytes * shown.unit
        leak.cellBytes = value?.count
        leak.before = LeakHit.show(Array(bytes[max(around.lowerBound, range.lowerBound - context)..<range.lowerBound]), form: shown, leading: true)
        leak.after = LeakHit.show(Array(bytes[range.upperBound..<min(around.upperBound, range.upperBound + context)]), form: shown, leading: false)
    }

    /// Reads each page again and judges every match of a short value on it by
    /// what it lies in: a value of one of the page's records (an index key on
    /// expressions, an old record on a free page) as the logical pass judges a
    /// cell; over two values, no leak (``LeakScanReport/spanning``); outside the
    /// records (free space, a page that is no b-tree's), by the bytes around it.
    private func judgeShortValues(onPages list: [Int], _ context: Classification, pages: PageReader, leaks: inout [LeakHit], report: inout LeakScanReport) throws(FixtureKitError) {
        let index = context.index, pageSize = context.map.pageSize
        let wholeBelow = context.judgment.wholeBelow
        for page in list {
            let bytes = try pages.read(page)
            bytes.withUnsafeBytes { raw in
                index.search(raw, through: min(raw.count, pageSize) - 1) { pattern, run in
                    guard index.isJudgedWhole(pattern, below: wholeBelow), !index.isExempt(pattern, run: run, wholeBelow: wholeBelow) else { return }
                    let range = run.start..<(run.start + run.length)
                    let form = index.form(of: pattern)
                    var value: Range<Int>?
                    let whole: Bool
                    switch pages.place(of: range, on: page, in: bytes) {
                    case .acrossValues:
                        report.spanning += 1
                        return
                    case .value(let bounds, let serialType, let truncated):
                        // A number's bytes are no text; text (in the store's form, on a character's
                        // first byte) and blobs as in a table's cell.
                        value = bounds
                        let isText = serialType >= 13 && serialType & 1 == 1
                        let fits = !isText || form == .blob || form == context.judgment.storeForm && (range.lowerBound - bounds.lowerBound) % form.unit == 0
                        whole = serialType >= 12 && fits && WholeValue.isWhole(raw, range, form: isText ? form : .blob, value: bounds, truncated: truncated)
                    case .outside:
                        whole = WholeValue.isWhole(raw, range, form: form)
                    }
                    guard whole else {
                        report.embedded += 1
                        return
                    }
                    let start = (page - 1) * pageSize
                    var leak = pageHit(LeakScanner.RawHit(pattern: pattern, offset: UInt64(start + run.start), length: run.length, piece: false), page: page, context)
                    describe(&leak, range: range, in: bytes, value: value, form: form)
                    leaks.append(leak)
                }
            }
        }
    }

    func rawHit(_ hit: LeakScanner.RawHit, file: String, index: PatternIndex, columns: [String]) -> LeakHit {
        LeakHit(
            column: name(of: index.origin(of: hit.pattern).column, in: columns), file: file, offset: hit.offset, length: hit.length, piece: hit.piece,
            before: hit.before.map { LeakHit.show($0, form: .blob, leading: true) }, after: hit.after.map { LeakHit.show($0, form: .blob, leading: false) })
    }

    func name(of column: Int, in columns: [String]) -> String {
        column < columns.count ? columns[column] : "?"
    }
}
