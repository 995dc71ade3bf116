import FixtureKitSQLite

/// The violations of the foreign keys that name their parent's rowid, counted
/// from the rows a content hash reads anyway (``Database/contentHashAndRowCounts(observing:)``)
/// instead of by an anti-join of their own afterwards: the parent's rowids and
/// the child's values are gathered during the scan, compared at its end.
///
/// A key is counted here when it is one of a table whose keys are all simple
/// (``StoreContents/hasSimpleKeys(_:schema:)``), its parent column is the
/// parent's rowid, and every non-NULL value of its child column is an INTEGER:
/// such a value violates the key exactly when no parent row has it as rowid,
/// which is what `PRAGMA foreign_key_check` finds. A key with a value of another
/// storage class (which the pragma converts first), a table the scan did not
/// read, or more values than ``capacity`` is left to the anti-join
/// (``StoreContents/violations(_:of:in:schema:)``): ``counts()`` leaves it out.
///
/// Used on one thread, the one that reads the rows.
package final class ForeignKeyTally {
    /// The most values kept at once, over every key and parent (8 bytes each).
    package static let capacity = 2 << 20

    package typealias ID = StoreContents.ForeignKeyID

    private struct Key {
        let id: ID
        let child: String
        let childColumn: String
        /// Its place in ``parents``.
        let parent: Int
        /// The child's values, kept while its parent is not read yet.
        var values: [Int64] = []
        /// The values not found among the parent's rowids, when those were read
        /// before the child (the values are then not kept).
        var missing = 0
        var isCounted = true
        var childRead = false
    }

    private struct Parent {
        let table: String
        let column: String
        var rowids: [Int64] = []
        var isRead = false
        var isComplete = true
    }

    // Unchecked: the tally is used on one thread, and its per-row function
    // would otherwise pay a dynamic exclusivity check on every access to them
    // (a tenth of a second of a capture's content hash on a 1 GiB store).
    @exclusivity(unchecked) private var keys: [Key] = []
    /// Each parent table once, by its identifier key; the rows read index them.
    @exclusivity(unchecked) private var parents: [Parent] = []
    /// The rowids of the parents read whole, by their place in ``parents``.
    private var lookups: [Int: RowidSet] = [:]
    @exclusivity(unchecked) private var kept = 0
    private let capacity: Int

    /// The keys of `schema` counted here when their values allow it.
    /// - Parameter capacity: the most values kept at once (tests lower it).
    package init(schema: SchemaSnapshot, capacity: Int = ForeignKeyTally.capacity) {
        self.capacity = capacity
        for table in schema.tables where table.kind == "table" && StoreContents.hasSimpleKeys(table, schema: schema) {
            for (index, key) in table.foreignKeys.enumerated() {
                guard let parentColumn = key.to.first ?? nil, let childColumn = key.from.first,
                      schema.isRowid(parentColumn, of: key.table) else { continue }
                let parentTable = key.table.identifierKey
                let parent = parents.firstIndex { $0.table == parentTable } ?? parents.count
                if parent == parents.count { parents.append(Parent(table: parentTable, column: parentColumn)) }
                keys.append(Key(id: ID(table: table.name, index: index), child: table.name.identifierKey, childColumn: childColumn, parent: parent))
            }
        }
    }

    /// The keys this tally may count: the others are counted by anti-joins.
    package var candidates: Set<ID> { Set(keys.map(\.id)) }

    /// The function that gathers what `table`'s rows give the keys, for
    /// ``Database/contentHashAndRowCounts(observing:)``. The tables are read
    /// one after the other: a parent read before is read whole.
    package func observer(table: String, columns: [String]) -> ((ContentRow) -> Void)? {
        let name = table.identifierKey
        let columns = columns.map(\.identifierKey)
        let read = parents.firstIndex { $0.table == name }
        var parentColumn: Int?
        if let read {
            parentColumn = columns.firstIndex(of: parents[read].column.identifierKey)
            parents[read].isRead = parentColumn != nil
        }
        var children: [(key: Int, column: Int, lookup: RowidSet?)] = []
        for index in keys.indices where keys[index].child == name {
            guard let column = columns.firstIndex(of: keys[index].childColumn.identifierKey) else { continue }
            keys[index].childRead = true
            let parent = keys[index].parent
            if parent != read, parents[parent].isRead, !parents[parent].isComplete {
                // Its parent's rowids could not all be kept: nothing to look its values up in.
                keys[index].isCounted = false
                continue
            }
            children.append((index, column, parent == read ? nil : lookup(parent)))
        }
        guard parentColumn != nil || !children.isEmpty else { return nil }
        // Holds the tally strongly: the function is dropped with the scan.
        return { row in
            if let parentColumn, let read { self.gatherRowid(row[parentColumn], of: read) }
            for (key, column, lookup) in children { self.gather(row[column], for: key, lookup: lookup) }
        }
    }

    /// The rowids of `parent` when it was read whole, its list then freed.
    private func lookup(_ parent: Int) -> RowidSet? {
        if let found = lookups[parent] { return found }
        guard parents[parent].isRead, parents[parent].isComplete else { return nil }
        let made = RowidSet(parents[parent].rowids)
        lookups[parent] = made
        kept -= parents[parent].rowids.count
        parents[parent].rowids = []
        return made
    }

    private func gatherRowid(_ value: SQLiteValueRef, of parent: Int) {
        guard parents[parent].isComplete else { return }
        guard value.storageClass == .integer, kept < capacity else {
            parents[parent].isComplete = false
            kept -= parents[parent].rowids.count
            parents[parent].rowids = []
            return
        }
        parents[parent].rowids.append(value.int64)
        kept += 1
    }

    private func gather(_ value: SQLiteValueRef, for key: Int, lookup: RowidSet?) {
        guard keys[key].isCounted else { return }
        switch value.storageClass {
        case .null:
            return
        case .integer:
            if let lookup {
                if !lookup.contains(value.int64) { keys[key].missing += 1 }
                return
            }
            if kept < capacity {
                keys[key].values.append(value.int64)
                kept += 1
                return
            }
        default:
            break
        }
        keys[key].isCounted = false
        kept -= keys[key].values.count
        keys[key].values = []
    }

    /// The violations of each key whose parent and child were both read whole;
    /// the others are left out.
    package func counts() -> [ID: Int] {
        var found: [ID: Int] = [:]
        for key in keys where key.isCounted && key.childRead {
            guard let rowids = lookup(key.parent) else { continue }
            found[key.id] = key.missing + key.values.count(where: { !rowids.contains($0) })
        }
        return found
    }
}

/// A parent's rowids, looked up by a bitmap over their range when it is at most
/// ``RowidSet/bitmapBits`` wide (the usual case: rowids from 1 up, few gaps),
/// else by binary search of them sorted.
private struct RowidSet {
    static let bitmapBits: Int64 = 1 << 26
    private let low: Int64
    private var bits: [UInt64] = []
    private var sorted: [Int64] = []

    init(_ rowids: [Int64]) {
        // Read in rowid order: sorted already, unless the scan's order was another.
        let rowids = zip(rowids, rowids.dropFirst()).allSatisfy { $0 <= $1 } ? rowids : rowids.sorted()
        low = rowids.first ?? 0
        let high = rowids.last ?? 0
        let (span, overflow) = high.subtractingReportingOverflow(low)
        guard !rowids.isEmpty, !overflow, span < Self.bitmapBits else {
            sorted = rowids
            return
        }
        bits = [UInt64](repeating: 0, count: Int(span / 64) + 1)
        for rowid in rowids {
            let offset = Int(rowid &- low)
            bits[offset >> 6] |= 1 << UInt64(offset & 63)
        }
    }

    func contains(_ value: Int64) -> Bool {
        guard !bits.isEmpty else { return sorted.containsSorted(value) }
        let (offset, overflow) = value.subtractingReportingOverflow(low)
        guard !overflow, offset >= 0, offset >> 6 < Int64(bits.count) else { return false }
        return bits[Int(offset >> 6)] & (1 << UInt64(offset & 63)) != 0
    }
}

extension Array where Element == Int64 {
    /// Binary search of a sorted array.
    fileprivate func containsSorted(_ value: Int64) -> Bool {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low < count && self[low] == value
    }
}
