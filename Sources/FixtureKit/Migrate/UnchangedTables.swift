import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// The pages a migration changed: the migrated store starts as a byte copy of
/// the source's checkpointed store, so comparing a page with the source's page
/// of the same number says whether the stages wrote it. Only the pages asked
/// about are read (the b-trees of the tables that may be unchanged), a run of
/// consecutive pages at a time: a stage that rewrote most of the store costs
/// no read of it.
///
/// The files are read while no SQLite connection of this process writes them:
/// the migrated copy's stages are over, and the source copy is the runner's own
/// read-only reference. (Closing a descriptor drops every fcntl lock the
/// process holds on the file, which is harmless only when no connection relies
/// on one to keep a writer out.)
struct ChangedPages: Sendable {
    let migrated: String
    let source: String
    let pageSize: Int
    /// The pages of each file, when it was compared.
    private let migratedPages: Int
    private let sourcePages: Int

    /// Whether `migrated` can be compared with `source` page for page; `nil`
    /// when it cannot (different page sizes, a file that cannot be read, a WAL
    /// the migrated store has: its main file is not the whole store).
    static func compare(migrated: String, source: String) -> ChangedPages? {
        guard !hasWAL(migrated),
              let migratedFile = try? SequentialReader(path: migrated),
              let sourceFile = try? SequentialReader(path: source) else { return nil }
        var left = [UInt8](repeating: 0, count: FileFormat.databaseHeaderSize)
        var right = left
        guard (try? migratedFile.read(into: &left)) == left.count, (try? sourceFile.read(into: &right)) == right.count,
              let pageSize = try? DatabaseHeader(bytes: left).pageSize, pageSize == (try? DatabaseHeader(bytes: right).pageSize)
        else { return nil }
        return ChangedPages(
            migrated: migrated, source: source, pageSize: pageSize,
            migratedPages: Int(migratedFile.size) / pageSize, sourcePages: Int(sourceFile.size) / pageSize)
    }

    private static func hasWAL(_ store: String) -> Bool {
        (try? POSIX.lstatIfPresent(store + "-wal"))??.size ?? 0 != 0
    }

    /// Whether any of `pages` (SQLite's numbering, from 1) differs from the
    /// source's page of the same number: a page the source does not have, one
    /// past the end of the migrated file, or one that cannot be read counts as
    /// changed.
    func changed(_ pages: [Int]) -> Bool {
        guard !Self.hasWAL(migrated) else { return true }
        let left = try? FileDescriptor.open(migrated, .readOnly, options: .noFollow)
        let right = try? FileDescriptor.open(source, .readOnly, options: .noFollow)
        defer {
            try? left?.close()
            try? right?.close()
        }
        guard let left, let right else { return true }
        let sorted = Array(Set(pages)).sorted()
        guard let first = sorted.first, first >= 1, let last = sorted.last, last <= min(migratedPages, sourcePages) else { return true }
        // Runs of consecutive pages, at most 1 MiB each.
        let perRead = max(1, (1 << 20) / pageSize)
        var a = [UInt8](repeating: 0, count: perRead * pageSize)
        var b = a
        var index = 0
        while index < sorted.count {
            var end = index + 1
            while end < sorted.count, end - index < perRead, sorted[end] == sorted[end - 1] + 1 { end += 1 }
            let count = (end - index) * pageSize
            let offset = Int64(sorted[index] - 1) * Int64(pageSize)
            let same = a.withUnsafeMutableBytes { x in
                b.withUnsafeMutableBytes { y in
                    let (x, y) = (UnsafeMutableRawBufferPointer(rebasing: x[0..<count]), UnsafeMutableRawBufferPointer(rebasing: y[0..<count]))
                    return (try? left.readFully(fromAbsoluteOffset: offset, into: x)) == count && (try? right.readFully(fromAbsoluteOffset: offset, into: y)) == count
                        && UnsafeRawBufferPointer(x).hasSameBytes(as: UnsafeRawBufferPointer(y))
                }
            }
            guard same else { return true }
            index = end
        }
        return false
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
    /// - Parameter sourcePages: the pages of the source's b-trees by object
    ///   name (``SourcePages``), walked beforehand: the same pages as the
    ///   migrated store's walk wherever the pages are the same. An object they
    ///   lack is walked in the migrated store.
    static func find(database: Database, sourceSchema: String, changedPages: ChangedPages, sourcePages: [String: [Int]]? = nil) throws(SQLiteError) -> Set<String> {
        func objects(_ schema: String) throws(SQLiteError) -> [String: [[String]]] {
            let rows = try database.rows("SELECT type, name, tbl_name, rootpage, coalesce(sql, '') FROM \(schema).sqlite_schema WHERE type IN ('table', 'index')")
            var byTable: [String: [[String]]] = [:]
            for row in rows {
                let fields = row.map { $0.text ?? ($0.integer.map { String($0) } ?? "") }
                byTable[fields[2].identifierKey, default: []].append(fields)
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
            var numbers: [Int] = []
            for object in group {
                if let known = sourcePages?[object[1]] {
                    numbers += known
                    continue
                }
                try pages.bind([.text(object[1])])
                while try pages.step() { numbers.append(Int(pages.column(0).integer ?? 0)) }
                pages.reset()
            }
            if !changedPages.changed(numbers) { unchanged.insert(table) }
        }
        return unchanged
    }
}
