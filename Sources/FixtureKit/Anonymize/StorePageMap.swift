import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

/// Which table or index each page of a store belongs to, and what the page is,
/// as SQLite's `dbstat` virtual table tells it
/// (<https://www.sqlite.org/dbstat.html>): the leak scan names a hit in the
/// bytes by it, and reads through SQL the tables whose records spill onto
/// overflow pages (where SQLite cuts a value in pieces).
struct StorePageMap {
    /// A table or an index, as `dbstat` names its b-tree.
    struct Tree {
        var name: String
        /// The table whose values it holds: itself for a table, the indexed table for an index.
        var table: String
        var isIndex: Bool
        /// An index with an expression among its keys: values SQL does not read.
        var hasExpressions: Bool
        /// Some record of it spills onto overflow pages.
        var overflows = false
    }

    /// What a page is.
    enum PageType: UInt32 {
        case none = 0, interior = 1, leaf = 2, overflow = 3
    }

    let pageSize: Int
    let pageCount: Int
    /// Bytes SQLite leaves at the end of every page, and whether the store
    /// keeps pointer-map pages (an auto-vacuum store).
    private let reservedBytes: Int
    private let hasPointerMap: Bool
    private(set) var trees: [Tree] = []
    /// Per page (page 1 first): its type in the top 2 bits, its tree's index + 1 below.
    private var pages: [UInt32]

    /// Reads the map of the store `database` has open (read-only is enough).
    init(database: Database, header: DatabaseHeader?) throws(SQLiteError) {
        pageSize = Int(try database.scalar("PRAGMA page_size")?.integer ?? 4096)
        pageCount = Int(try database.scalar("PRAGMA page_count")?.integer ?? 0)
        reservedBytes = header?.reservedBytesPerPage ?? 0
        hasPointerMap = try database.scalar("PRAGMA auto_vacuum")?.integer ?? 0 != 0
        pages = [UInt32](repeating: 0, count: pageCount)
        var schema: [String: (type: String, table: String)] = [:]
        for row in try database.rows("SELECT type, name, tbl_name FROM sqlite_schema") {
            if let type = row[0].text, let name = row[1].text, let table = row[2].text { schema[name] = (type, table) }
        }
        let statement = try database.prepare("SELECT name, pageno, pagetype FROM dbstat('main')")
        var treeIndex: [String: Int] = [:]
        var lastName: [UInt8] = []
        var current = -1
        while try statement.step() {
            let name = statement.columnText(0)
            if current < 0 || !lastName.elementsEqual(name) {
                lastName = Array(name)
                let text = String(decoding: name, as: UTF8.self)
                if let known = treeIndex[text] {
                    current = known
                } else {
                    current = trees.count
                    treeIndex[text] = current
                    trees.append(try Self.tree(text, schema: schema, database: database))
                }
            }
            let page = Int(statement.columnInt64(1))
            let typeText = String(decoding: statement.columnText(2), as: UTF8.self)
            let type: PageType = typeText == "overflow" ? .overflow : typeText == "leaf" ? .leaf : .interior
            if type == .overflow { trees[current].overflows = true }
            if page >= 1 && page <= pageCount { pages[page - 1] = type.rawValue << 30 | UInt32(current + 1) }
        }
    }

    private static func tree(_ name: String, schema: [String: (type: String, table: String)], database: Database) throws(SQLiteError) -> Tree {
        guard let entry = schema[name], entry.type == "index" else {
            return Tree(name: name, table: name == "sqlite_master" ? "sqlite_schema" : name, isIndex: false, hasExpressions: false)
        }
        let expressions = try database.scalar("SELECT count(*) FROM pragma_index_xinfo(?1) WHERE cid = -2", [.text(name)])?.integer ?? 0
        return Tree(name: name, table: entry.table, isIndex: true, hasExpressions: expressions > 0)
    }

    /// Bytes of a page that SQLite uses: the page less the bytes reserved at its end.
    var usableSize: Int { pageSize - reservedBytes }

    /// The tables whose records spill onto overflow pages (those of their indexes included).
    var overflowingTables: [String] {
        Array(Set(trees.filter(\.overflows).map(\.table))).sorted()
    }

    /// The tree a page belongs to (`nil` for a page of none) and what the page is.
    func page(_ number: Int) -> (tree: Tree?, type: PageType) {
        guard number >= 1 && number <= pages.count, pages[number - 1] != 0 else { return (nil, .none) }
        let entry = pages[number - 1]
        return (trees[Int(entry & 0x3FFF_FFFF) - 1], PageType(rawValue: entry >> 30) ?? .none)
    }

    /// What a page is, in words: `table leaf`, `index interior`, `overflow`; for
    /// a page of no table or index, what SQLite keeps there.
    func describe(_ number: Int) -> String {
        let (tree, type) = page(number)
        if let tree {
            switch type {
            case .overflow: return "overflow"
            case .leaf: return tree.isIndex ? "index leaf" : "table leaf"
            default: return tree.isIndex ? "index interior" : "table interior"
            }
        }
        if number > pageCount { return "beyond the database's end" }
        // The page holding the byte at 1 GiB is never used (https://www.sqlite.org/fileformat.html#the_lock_byte_page).
        if (number - 1) * pageSize <= 0x4000_0000 && 0x4000_0000 < number * pageSize { return "lock-byte" }
        if hasPointerMap {
            // Pointer-map pages: page 2, then every (usable size / 5 + 1) pages.
            let span = (pageSize - reservedBytes) / 5 + 1
            if number >= 2 && (number - 2) % span == 0 { return "pointer-map" }
        }
        return "free"
    }
}
