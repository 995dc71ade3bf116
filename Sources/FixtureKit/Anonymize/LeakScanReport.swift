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
    /// The length in bytes of the value that holds it, for a hit in a value
    /// SQLite reads (or, on a page SQL does not read, one of its records).
    public var cellBytes: Int?
    /// The bytes right before and right after the match (at most
    /// ``contextBytes`` each, twice as many in UTF-16, within the value that
    /// holds it when that is known), never the match itself: text as text,
    /// control characters and bytes that are no text escaped (`\x01`). Empty
    /// at the edge of the value.
    public var before: String?
    public var after: String?

    /// Bytes shown on each side of a match.
    public static let contextBytes = 16

    package init(column: String, file: String, foundIn: String? = nil, rowid: Int64? = nil, key: String? = nil, offset: UInt64? = nil,
                page: Int? = nil, pageType: String? = nil, btree: String? = nil, length: Int, piece: Bool,
                cellBytes: Int? = nil, before: String? = nil, after: String? = nil) {
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
        self.cellBytes = cellBytes
        self.before = before
        self.after = after
    }

    /// Whether the value that holds it is the replaced value and nothing else.
    public var isWholeCell: Bool {
        cellBytes == length && before?.isEmpty != false && after?.isEmpty != false
    }

    /// What was found around it, in words: `the cell is that value, whole`;
    /// `the cell (83 bytes) holds it between "…code is " and ", thanks…"`;
    /// `the bytes around it are "\x03\x15" and "\x01…"`.
    public var surroundings: String? {
        guard let before, let after else { return nil }
        let quoted = { (text: String, leading: Bool) -> String in
            text.isEmpty ? "its \(leading ? "start" : "end")" : "\"" + (leading ? "…" : "") + text + (leading ? "" : "…") + "\""
        }
        guard let cellBytes else { return "the bytes around it are \(quoted(before, true)) and \(quoted(after, false))" }
        let what = foundIn != nil ? "the cell" : pageType?.hasPrefix("index") == true ? "the index key" : "the record's value"
        if isWholeCell { return "\(what) is that value, whole" }
        return "\(what) (\(cellBytes) bytes) holds it between \(quoted(before, true)) and \(quoted(after, false))"
    }

    /// Bytes around a match as ``before`` and ``after`` show them: text
    /// (UTF-8 or UTF-16 in `form`'s order) cut at whole characters, with control
    /// characters escaped; a blob's or raw bytes' printable ASCII as it is, every other byte as `\xNN`.
    static func show(_ bytes: [UInt8], form: WholeValue.Form, leading: Bool) -> String {
        switch form {
        case .utf8:
            var slice = bytes[...]
            // Whole characters only: no continuation byte at the start, no lead byte cut at the end.
            if leading { while let first = slice.first, first & 0xC0 == 0x80 { slice = slice.dropFirst() } }
            if !leading, let lead = slice.lastIndex(where: { $0 & 0xC0 != 0x80 }), slice[lead] >= 0xC0 {
                let needed = slice[lead] >= 0xF0 ? 4 : slice[lead] >= 0xE0 ? 3 : 2
                if slice.endIndex - lead < needed { slice = slice[..<lead] }
            }
            guard let text = String(validating: Array(slice), as: UTF8.self) else { return escaped(bytes) }
            return text.escapingControlCharacters()
        case .utf16LE, .utf16BE:
            var units: [UInt16] = stride(from: 0, to: bytes.count - 1, by: 2).map { index in
                form == .utf16LE ? UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8 : UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
            }
            if leading, let first = units.first, (0xDC00...0xDFFF).contains(first) { units.removeFirst() }
            if !leading, let last = units.last, (0xD800...0xDBFF).contains(last) { units.removeLast() }
            return String(decoding: units, as: UTF16.self).escapingControlCharacters()
        case .blob:
            return escaped(bytes)
        }
    }

    private static func escaped(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            guard byte < 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\\") else { return String(UnicodeScalar(byte)) }
            let hex = String(byte, radix: 16, uppercase: true)
            return "\\x" + (hex.count == 1 ? "0" + hex : hex)
        }.joined()
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
    /// A replaced value shorter than this counts only where it stands whole: a
    /// cell (or a file, or an index key) that is exactly it, or a word of a text
    /// (see ``WholeValue``): the length from which a chance match in the output's
    /// bytes is unlikely (``LeakScan/wholeValueBytes(storeBytes:values:)``).
    /// The smallest of the batches when the values were searched in several.
    public var wholeValueBytes: Int
    /// Matches of such short values that do not stand whole (inside a longer
    /// number, word, or base64 or hex run): no leak.
    public var embedded: Int
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
         wholeValueBytes: Int = PatternIndex.minimumBytes, embedded: Int = 0, tablesRead: [String] = [], spanning: Int = 0, hits: [LeakHit] = [], hitCount: Int = 0) {
        self.files = files
        self.bytes = bytes
        self.valuesSearched = valuesSearched
        self.valuesExempt = valuesExempt
        self.runBytes = runBytes
        self.wholeValueBytes = wholeValueBytes
        self.embedded = embedded
        self.tablesRead = tablesRead
        self.spanning = spanning
        self.hits = hits
        self.hitCount = hitCount
    }

    /// Adds a hit: counted, and kept while fewer than the most reported.
    mutating func add(_ hit: LeakHit, limit: Int = LeakScanner.maximumReportedHits) {
        hitCount += 1
        if hits.count < limit { hits.append(hit) }
    }
}
