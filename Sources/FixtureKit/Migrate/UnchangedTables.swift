#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// The pages a migration changed: the migrated store starts as a byte copy of
/// the source's checkpointed store, so comparing the two files page by page
/// says which pages the stages wrote.
///
/// Both files are read front to back while no SQLite connection of this process
/// has them open for writing: the migrated copy's stage connection is closed
/// first, and the source copy is the runner's own read-only reference. (Closing
/// a descriptor drops every fcntl lock the process holds on the file, which is
/// harmless only when no connection relies on one.)
struct ChangedPages: Sendable {
    /// One bit per page of the migrated store, page 1 first: set when the page
    /// differs from the source's page of the same number, or the source has none.
    private var bits: [UInt64]
    private let pageCount: Int

    /// Compares `migrated` with `source`; `nil` when they cannot be compared
    /// page for page (different page sizes, a file that cannot be read, a WAL
    /// the migrated store still has).
    static func compare(migrated: String, source: String) -> ChangedPages? {
        guard (try? POSIX.lstatIfPresent(migrated + "-wal"))??.st_size ?? 0 == 0,
              let migratedFile = try? SequentialReader(path: migrated),
              let sourceFile = try? SequentialReader(path: source) else { return nil }
        // 1 MiB at a time: a whole number of pages of every page size SQLite has.
        var left = [UInt8](repeating: 0, count: 1 << 20)
        var right = left
        var leftCount = migratedFile.read(into: &left)
        var rightCount = sourceFile.read(into: &right)
        guard leftCount >= FileFormat.databaseHeaderSize, rightCount >= FileFormat.databaseHeaderSize,
              let pageSize = try? DatabaseHeader(bytes: Array(left[0..<FileFormat.databaseHeaderSize])).pageSize,
              pageSize == (try? DatabaseHeader(bytes: Array(right[0..<FileFormat.databaseHeaderSize])).pageSize)
        else { return nil }

        let pageCount = Int(migratedFile.size) / pageSize
        var bits = [UInt64](repeating: 0, count: (pageCount + 63) / 64)
        var first = 0 // zero-based index of the chunk's first page
        while first < pageCount {
            let pages = min(leftCount / pageSize, pageCount - first)
            let comparable = rightCount / pageSize
            left.withUnsafeBytes { a in
                right.withUnsafeBytes { b in
                    for page in 0..<pages where page >= comparable
                        || memcmp(a.baseAddress! + page * pageSize, b.baseAddress! + page * pageSize, pageSize) != 0 {
                        let index = first + page
                        bits[index >> 6] |= 1 << UInt64(index & 63)
                    }
                }
            }
            // A file that ends short of its size (it shrank meanwhile): its
            // missing pages count as changed.
            guard pages > 0 else {
                for index in first..<pageCount { bits[index >> 6] |= 1 << UInt64(index & 63) }
                break
            }
            first += pages
            leftCount = migratedFile.read(into: &left)
            rightCount = sourceFile.read(into: &right)
        }
        return ChangedPages(bits: bits, pageCount: pageCount)
    }

    /// Whether page `number` (SQLite's numbering, from 1) changed; a page past
    /// the end of the migrated file counts as changed.
    func changed(_ number: Int) -> Bool {
        let index = number - 1
        guard index >= 0, index < pageCount else { return true }
        return bits[index >> 6] & (1 << UInt64(index & 63)) != 0
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
