#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The pages a migration changed: the migrated store starts as a byte copy of
/// the source's checkpointed store, so comparing the two files page by page
/// says which pages the stages wrote.
///
/// Both files are read with `pread` while no SQLite connection of this process
/// has them open for writing: the migrated copy's stage connection is closed
/// first, and the source copy is the runner's own read-only reference. (Closing
/// a descriptor drops every fcntl lock the process holds on the file, which is
/// harmless only when no connection relies on one.)
struct ChangedPages: Sendable {
    let pageSize: Int
    /// One bit per page of the migrated store, page 1 first: set when the page
    /// differs from the source's page of the same number, or the source has none.
    private var bits: [UInt64]
    let pageCount: Int

    /// Compares `migrated` with `source`; `nil` when they cannot be compared
    /// page for page (different page sizes, a file that cannot be read, a WAL
    /// the migrated store still has).
    static func compare(migrated: String, source: String) -> ChangedPages? {
        guard (try? POSIX.lstatIfPresent(migrated + "-wal"))??.st_size ?? 0 == 0 else { return nil }
        guard let migratedFile = try? POSIX.open(migrated, O_RDONLY) else { return nil }
        defer { close(migratedFile) }
        guard let sourceFile = try? POSIX.open(source, O_RDONLY) else { return nil }
        defer { close(sourceFile) }
        var migratedInfo = stat(), sourceInfo = stat()
        guard fstat(migratedFile, &migratedInfo) == 0, fstat(sourceFile, &sourceInfo) == 0 else { return nil }
        guard let pageSize = Self.pageSize(migratedFile), pageSize == Self.pageSize(sourceFile) else { return nil }

        let pageCount = Int(migratedInfo.st_size) / pageSize
        let sourcePages = Int(sourceInfo.st_size) / pageSize
        var bits = [UInt64](repeating: 0, count: (pageCount + 63) / 64)
        let chunkPages = max(1, (1 << 20) / pageSize)
        var left = [UInt8](repeating: 0, count: chunkPages * pageSize)
        var right = left
        var first = 0 // zero-based page index
        while first < pageCount {
            let pages = min(chunkPages, pageCount - first)
            let offset = off_t(first) * off_t(pageSize)
            guard Self.read(migratedFile, into: &left, count: pages * pageSize, at: offset) else { return nil }
            let comparable = max(0, min(pages, sourcePages - first))
            if comparable > 0 {
                guard Self.read(sourceFile, into: &right, count: comparable * pageSize, at: offset) else { return nil }
            }
            left.withUnsafeBytes { a in
                right.withUnsafeBytes { b in
                    for page in 0..<pages {
                        let index = first + page
                        if page >= comparable || memcmp(a.baseAddress! + page * pageSize, b.baseAddress! + page * pageSize, pageSize) != 0 {
                            bits[index >> 6] |= 1 << UInt64(index & 63)
                        }
                    }
                }
            }
            first += pages
        }
        return ChangedPages(pageSize: pageSize, bits: bits, pageCount: pageCount)
    }

    /// Whether page `number` (SQLite's numbering, from 1) changed; a page past
    /// the end of the migrated file counts as changed.
    func changed(_ number: Int) -> Bool {
        let index = number - 1
        guard index >= 0, index < pageCount else { return true }
        return bits[index >> 6] & (1 << UInt64(index & 63)) != 0
    }

    private static func pageSize(_ fd: Int32) -> Int? {
        var header = [UInt8](repeating: 0, count: FileFormat.databaseHeaderSize)
        guard read(fd, into: &header, count: header.count, at: 0) else { return nil }
        return try? DatabaseHeader(bytes: header).pageSize
    }

    /// Fills the first `count` bytes of `buffer` from `offset`; `false` on an
    /// error or a file shorter than that.
    private static func read(_ fd: Int32, into buffer: inout [UInt8], count: Int, at offset: off_t) -> Bool {
        buffer.withUnsafeMutableBytes { raw in
            var filled = 0
            while filled < count {
                let got = POSIX.retrying { pread(fd, raw.baseAddress! + filled, count - filled, offset + off_t(filled)) }
                guard got > 0 else { return false }
                filled += got
            }
            return true
        }
    }
}

/// The source's tables a migration left exactly as they were: the table and
/// every index on it have the same CREATE statements and root pages in both
/// stores, and every page of their b-trees (overflow pages included, as
/// SQLite's `dbstat` walks them from the migrated store's roots) is
/// byte-identical to the source's page of the same number. A b-tree is what
/// its pages say, so such a table holds the same rows with the same values.
enum UnchangedTables {
    /// Lowercased names of the unchanged tables. `database` is the migrated
    /// store, with the source attached as `sourceSchema`.
    static func find(database: Database, sourceSchema: String, changedPages: ChangedPages) throws(SQLiteError) -> Set<String> {
        func objects(_ schema: String) throws(SQLiteError) -> [String: [[String]]] {
            let rows = try database.rows("SELECT type, name, tbl_name, rootpage, coalesce(sql, '') FROM \(schema).sqlite_schema WHERE type IN ('table', 'index')")
            var byTable: [String: [[String]]] = [:]
            for row in rows {
                let fields = row.map { $0.text ?? ($0.integer.map { String($0) } ?? "") }
                byTable[fields[2].lowercased(), default: []].append(fields)
            }
            return byTable.mapValues { $0.sorted { $0.lexicographicallyPrecedes($1) } }
        }
        let before = try objects(sourceSchema)
        let after = try objects("main")
        var unchanged: Set<String> = []
        let pages = try database.prepare("SELECT pageno FROM dbstat('main') WHERE name = ?1")
        for (table, group) in before.sorted(by: { $0.key < $1.key }) {
            // An ordinary table (a virtual table has root page 0), described
            // exactly as before, with every page of its b-trees unchanged.
            guard group == after[table], group.contains(where: { $0[0] == "table" && $0[3] != "0" }) else { continue }
            var same = true
            for object in group where same {
                try pages.bind([.text(object[1])])
                while same, try pages.step() {
                    if changedPages.changed(Int(pages.column(0).integer ?? 0)) { same = false }
                }
                pages.reset()
            }
            if same { unchanged.insert(table) }
        }
        return unchanged
    }
}
