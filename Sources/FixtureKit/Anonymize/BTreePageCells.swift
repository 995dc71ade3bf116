/// Where bytes lie among the records of one b-tree page, read as SQLite's file
/// format lays them out (<https://www.sqlite.org/fileformat.html#b_tree_pages>,
/// <https://www.sqlite.org/fileformat.html#record_format>): the leak scan judges
/// a short value found on a page that SQL does not read (an index on
/// expressions, a free page that still holds an old b-tree page) by the value
/// of the record it lies in, as it judges a table's cells.
enum BTreePageCells {
    /// Where a range of the page's bytes lies.
    enum Place: Equatable {
        /// Inside one value of a record: the value's bytes on this page, its
        /// serial type, and whether it goes on past them (onto an overflow page).
        case value(Range<Int>, serialType: Int64, truncated: Bool)
        /// Over two values of a record, or over a record's header or a cell's own fields.
        case acrossValues
        /// In none of the page's cells (its header, free space, a freeblock), or
        /// the page is no b-tree page.
        case outside
    }

    /// The page types: interior index, interior table, leaf index, leaf table.
    static let interiorIndex: UInt8 = 2, interiorTable: UInt8 = 5, leafIndex: UInt8 = 10, leafTable: UInt8 = 13

    /// Where `range` (offsets from the page's first byte) lies on `page`.
    /// - Parameters:
    ///   - headerOffset: where the b-tree page header starts: 100 on page 1, else 0.
    ///   - usableSize: the page size less the bytes reserved at the end of each page.
    static func place(of range: Range<Int>, page: UnsafeRawBufferPointer, headerOffset: Int, usableSize: Int) -> Place {
        guard headerOffset + 8 <= page.count, usableSize <= page.count, usableSize > 35 else { return .outside }
        let type = page[headerOffset]
        guard [interiorIndex, interiorTable, leafIndex, leafTable].contains(type) else { return .outside }
        let isInterior = type == interiorIndex || type == interiorTable
        let cellCount = Int(page[headerOffset + 3]) << 8 | Int(page[headerOffset + 4])
        let pointers = headerOffset + (isInterior ? 12 : 8)
        guard pointers + 2 * cellCount <= usableSize else { return .outside }
        for cell in 0..<cellCount {
            let start = Int(page[pointers + 2 * cell]) << 8 | Int(page[pointers + 2 * cell + 1])
            guard start < usableSize, let layout = layout(at: start, type: type, page: page, usableSize: usableSize) else { continue }
            guard range.lowerBound < layout.end, range.upperBound > start else { continue }
            guard range.lowerBound >= layout.payload.lowerBound, range.upperBound <= layout.payload.upperBound else { return .acrossValues }
            return placeInRecord(range, payload: layout.payload, payloadSize: layout.payloadSize, page: page)
        }
        return .outside
    }

    /// A cell's payload on the page (its local part), the whole payload's size,
    /// and where the cell ends (after the overflow page number, when it has one).
    private static func layout(at start: Int, type: UInt8, page: UnsafeRawBufferPointer, usableSize: Int) -> (payload: Range<Int>, payloadSize: Int, end: Int)? {
        var offset = start
        if type == interiorTable {
            // A child page number and a rowid: no payload.
            guard let (_, length) = varint(page, at: offset + 4, limit: usableSize) else { return nil }
            return (offset..<offset, 0, offset + 4 + length)
        }
        if type == interiorIndex { offset += 4 }
        guard let (size, sizeLength) = varint(page, at: offset, limit: usableSize), size >= 0, size < 1 << 31 else { return nil }
        offset += sizeLength
        if type == leafTable {
            guard let (_, rowidLength) = varint(page, at: offset, limit: usableSize) else { return nil }
            offset += rowidLength
        }
        let payloadSize = Int(size)
        // How much of the payload stays on the page (fileformat.html#cellformat).
        let maximumLocal = type == leafTable ? usableSize - 35 : (usableSize - 12) * 64 / 255 - 23
        let minimumLocal = (usableSize - 12) * 32 / 255 - 23
        var local = payloadSize
        if payloadSize > maximumLocal {
            let candidate = minimumLocal + (payloadSize - minimumLocal) % (usableSize - 4)
            local = candidate <= maximumLocal ? candidate : minimumLocal
        }
        let end = offset + local + (local < payloadSize ? 4 : 0)
        guard end <= usableSize else { return nil }
        return (offset..<(offset + local), payloadSize, end)
    }

    /// Where `range` lies in the record whose payload starts the page's bytes `payload`.
    private static func placeInRecord(_ range: Range<Int>, payload: Range<Int>, payloadSize: Int, page: UnsafeRawBufferPointer) -> Place {
        guard let (headerSize, headerLength) = varint(page, at: payload.lowerBound, limit: payload.upperBound),
              headerSize >= Int64(headerLength), headerSize <= Int64(payloadSize) else { return .acrossValues }
        var typeOffset = payload.lowerBound + headerLength
        var valueOffset = payload.lowerBound + Int(headerSize)
        let headerEnd = min(valueOffset, payload.upperBound)
        guard range.lowerBound >= headerEnd else { return .acrossValues }
        while typeOffset < headerEnd, let (serialType, length) = varint(page, at: typeOffset, limit: headerEnd) {
            typeOffset += length
            let size = serialType >= 12 ? Int((serialType - 12) / 2) : [0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0][Int(max(0, serialType))]
            let value = valueOffset..<(valueOffset + size)
            valueOffset += size
            guard range.lowerBound < value.upperBound else { continue }
            guard range.upperBound <= value.upperBound else { return .acrossValues }
            let onPage = value.lowerBound..<min(value.upperBound, payload.upperBound)
            return .value(onPage, serialType: serialType, truncated: onPage.upperBound < value.upperBound)
        }
        return .acrossValues
    }

    /// A varint at `offset` (1 to 9 bytes, big-endian, 7 bits a byte but all 8 of
    /// the ninth) and its length; `nil` when it runs past `limit`.
    static func varint(_ bytes: UnsafeRawBufferPointer, at offset: Int, limit: Int) -> (Int64, Int)? {
        var value: UInt64 = 0
        for index in 0..<9 {
            guard offset + index < limit, offset + index < bytes.count else { return nil }
            let byte = bytes[offset + index]
            if index == 8 { return (Int64(bitPattern: value << 8 | UInt64(byte)), 9) }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { return (Int64(bitPattern: value), index + 1) }
        }
        return nil
    }
}
