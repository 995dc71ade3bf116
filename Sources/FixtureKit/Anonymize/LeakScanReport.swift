import FixtureKitSystem

/// One place where a replaced value, or a run of one, was found.
///
/// A hit in a value SQLite reads names the table, the column and the row
/// (``foundIn`` and ``rowid`` or ``key``); a hit in the bytes outside any value
/// SQLite reads names the file, the offset, and in the store's main file the
/// page and what it is.
public struct LeakHit: Codable, Equatable, Sendable {
    /// `table.column` the value was replaced in.
    public var column: String
    /// The file, as named in the report.
    public var file: String
    /// `table.column` of the value that holds it, when SQLite reads it.
    public var foundIn: String?
    /// The row of that value, for a table with rowids.
    public var rowid: Int64?
    /// The row of that value, for a `WITHOUT ROWID` table: its primary key when
    /// that is made of integers (`7`, `7, 3`), else its place in key order (`row 12`).
    public var key: String?
    /// Where the bytes start in the file, for a hit in the bytes.
    public var offset: UInt64?
    /// The page of the store's main file, counted from 1, for a hit in its bytes.
    public var page: Int?
    /// What the page is: `table leaf`, `index interior`, `overflow`, `free`...
    public var pageType: String?
    /// The table or index the page belongs to.
    public var btree: String?
    /// Bytes found: the whole value, or the run of it compared (at least
    /// ``PatternIndex/runBytes``).
    public var length: Int
    /// Only part of the value was found (a run of a value longer than ``PatternIndex/runBytes``).
    public var piece: Bool

    package init(column: String, file: String, foundIn: String? = nil, rowid: Int64? = nil, key: String? = nil, offset: UInt64? = nil,
                page: Int? = nil, pageType: String? = nil, btree: String? = nil, length: Int, piece: Bool) {
        self.column = column
        self.file = file
        self.foundIn = foundIn
        self.rowid = rowid
        self.key = key
        self.offset = offset
        self.page = page
        self.pageType = pageType
        self.btree = btree
        self.length = length
        self.piece = piece
    }

    /// Where it is, in words: `history.bio, rowid 3`; `the file at offset 53545 (page 14, an index leaf page of people_lower)`.
    public var place: String {
        if let foundIn {
            if let rowid { return "\(foundIn), rowid \(rowid)" }
            if let key { return "\(foundIn), \(key.hasPrefix("row ") ? key + " in key order" : "key " + key)" }
            return foundIn
        }
        var text = "the file at offset \(offset ?? 0)"
        if let page {
            var what = pageType.map { "\($0) page" } ?? "page"
            if let btree { what += " of \(btree)" }
            let article = what.first.map { "aeio".contains($0) } == true ? "an" : "a"
            text += " (page \(page), \(article) \(what))"
        }
        return text
    }

    /// The hit in one line, without the file: `a replaced value of people.bio is in history.bio, rowid 3`.
    public var summary: String {
        (piece ? "a piece (\(length) bytes) of a replaced value of \(column) is in " : "a replaced value of \(column) is in ") + place
    }
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
    /// A run of this many bytes of a longer replaced value is found; a shorter value is searched whole.
    public var runBytes: Int
    /// Tables whose every value was read through SQLite: those whose rows
    /// spill onto overflow pages, and those on whose pages the bytes matched.
    public var tablesRead: [String]
    /// Matches in the bytes of a table's or an index's pages that no value of
    /// the table holds: they span two values, or a value and SQLite's own
    /// structure, and are no leak.
    public var spanning: Int
    /// Every hit up to ``LeakScanner/maximumReportedHits``.
    public var hits: [LeakHit]
    /// All hits, reported or not.
    public var hitCount: Int

    init(files: [String] = [], bytes: UInt64 = 0, valuesSearched: Int = 0, valuesExempt: Int = 0, runBytes: Int = PatternIndex.runBytes,
                tablesRead: [String] = [], spanning: Int = 0, hits: [LeakHit] = [], hitCount: Int = 0) {
        self.files = files
        self.bytes = bytes
        self.valuesSearched = valuesSearched
        self.valuesExempt = valuesExempt
        self.runBytes = runBytes
        self.tablesRead = tablesRead
        self.spanning = spanning
        self.hits = hits
        self.hitCount = hitCount
    }

    /// Adds a hit: counted, and kept while fewer than the most reported.
    mutating func add(_ hit: LeakHit) {
        hitCount += 1
        if hits.count < LeakScanner.maximumReportedHits { hits.append(hit) }
    }
}
