import FixtureKitSystem

/// Windows that many long values share: the same ``PatternIndex/windowBytes``
/// bytes at a window's offset (a common domain in pseudonymised e-mail
/// addresses, a URL's prefix, a JSON key). Searched one by one, each place the
/// window occurs costs one comparison per value that has it: a store of such
/// values, searched for its own replaced values, takes a time that grows with
/// the square of its rows (20,000 pseudonymised e-mail addresses anonymized
/// again: 9.7 s; 100,000: 2 min 44 s).
///
/// A group keeps its windows side by side in their bucket, in the order added,
/// its first one marked as its head; and a table of every run of
/// ``PatternIndex/runBytes`` bytes of its values that holds the window (up to
/// 17 per window: the run starts 0 to ``PatternIndex/reach`` bytes before it),
/// by a hash of the run's bytes. Where the window occurs, the runs around it are
/// looked up in the table instead: the values found are exactly those whose run
/// around the window reaches ``PatternIndex/runBytes`` bytes, each compared once.
extension PatternIndex {
    /// A group is made of more windows than this: below it, comparing each
    /// window's value costs less than looking up the 17 runs around it.
    static let groupThreshold = 64

    struct WindowGroup {
        /// Its windows: the head and the ones after it.
        var count: Int
        /// Each run of its values around the window: the high 32 bits of the
        /// run's hash, then the window's pattern; sorted.
        var runs: [UInt64]
    }

    /// Whether `pattern` heads a group of windows.
    @inline(__always)
    func isGroupHead(_ pattern: Int) -> Bool {
        !groupHeads.isEmpty && groupHeads[pattern >> 6] & (1 << UInt64(pattern & 63)) != 0
    }

    /// The hash of the ``runBytes`` bytes at `bytes`.
    @inline(__always)
    static func runHash(_ bytes: UnsafeRawPointer) -> UInt32 {
        var running = initialHash
        for word in 0..<(runBytes / 8) {
            running = step(running, bytes.loadUnaligned(fromByteOffset: word * 8, as: UInt64.self))
        }
        return UInt32(truncatingIfNeeded: finish(running, 0, length: runBytes) >> 32)
    }

    /// Puts the windows of each large group side by side and makes its table;
    /// the last step of ``build()``.
    mutating func groupCommonWindows() {
        let bucketCount = offsets.count - 1
        var moved: [UInt32: UInt32] = [:]
        for bucket in 0..<bucketCount {
            let first = Int(offsets[bucket]), end = Int(offsets[bucket + 1])
            guard end - first > Self.groupThreshold else { continue }
            let groups = commonWindows(in: first..<end)
            guard !groups.isEmpty else { continue }
            // The new order: each group at its first window's place, the rest as they were.
            var member: [Int: Int] = [:]
            for (index, group) in groups.enumerated() { for pattern in group { member[pattern] = index } }
            var order: [Int] = []
            var placed = Set<Int>()
            var heads: [(place: Int, group: Int)] = []
            for pattern in first..<end {
                guard let group = member[pattern] else {
                    order.append(pattern)
                    continue
                }
                guard placed.insert(group).inserted else { continue }
                heads.append((first + order.count, group))
                order += groups[group]
            }
            // The bucket's entries as they were: the bucket alone, not the whole
            // arrays, which would be copied once per bucket that holds a group.
            let (oldStarts, oldShapes, oldOwners) = (Array(starts[first..<end]), Array(shapes[first..<end]), Array(owners[first..<end]))
            for (offset, pattern) in order.enumerated() where pattern != first + offset {
                let place = first + offset
                starts[place] = oldStarts[pattern - first]
                shapes[place] = oldShapes[pattern - first]
                owners[place] = oldOwners[pattern - first]
                moved[UInt32(pattern)] = UInt32(place)
            }
            if groupHeads.isEmpty { groupHeads = [UInt64](repeating: 0, count: (starts.count + 63) / 64) }
            for (place, group) in heads {
                groupHeads[place >> 6] |= 1 << UInt64(place & 63)
                windowGroups[UInt32(place)] = WindowGroup(count: groups[group].count, runs: runs(of: place..<(place + groups[group].count)))
            }
        }
        // Short values moved within their bucket: the tracked columns' records follow them.
        if !moved.isEmpty && !sharedShort.isEmpty {
            sharedShort = sharedShort.map { entry in
                let pattern = UInt32(truncatingIfNeeded: entry >> 32)
                return UInt64(moved[pattern] ?? pattern) << 32 | (entry & 0xFFFF_FFFF)
            }.sorted()
        }
    }

    /// The windows of `range` in groups of more than ``groupThreshold`` with the
    /// same bytes, each group in the order added.
    private func commonWindows(in range: Range<Int>) -> [[Int]] {
        let windows = range.filter { shapes[$0] & Self.windowFlag != 0 }
        guard windows.count > Self.groupThreshold else { return [] }
        return arena.withUnsafeBytes { arena in
            func bytes(_ pattern: Int) -> UnsafeRawPointer { arena.baseAddress! + Int(starts[pattern]) }
            func precedes(_ a: Int, _ b: Int) -> Bool {
                if shapes[a] != shapes[b] { return shapes[a] < shapes[b] }
                let order = Memory.compare(bytes(a), bytes(b), count: Self.windowBytes)
                return order != 0 ? order < 0 : a < b
            }
            let sorted = windows.sorted(by: precedes)
            var groups: [[Int]] = []
            var start = 0
            for index in 1...sorted.count {
                if index < sorted.count, shapes[sorted[index]] == shapes[sorted[start]],
                   Memory.equal(bytes(sorted[index]), bytes(sorted[start]), count: Self.windowBytes) { continue }
                if index - start > Self.groupThreshold { groups.append(Array(sorted[start..<index])) }
                start = index
            }
            return groups
        }
    }

    /// The table of the runs around the windows of `group`.
    private func runs(of group: Range<Int>) -> [UInt64] {
        arena.withUnsafeBytes { arena in
            var runs: [UInt64] = []
            for pattern in group {
                let long = Int(owners[pattern])
                let valueStart = Int(longStarts[long]), valueEnd = valueStart + Int(longLengths[long])
                let window = Int(starts[pattern])
                for back in 0...Self.reach where window - back >= valueStart && window - back + Self.runBytes <= valueEnd {
                    runs.append(UInt64(Self.runHash(arena.baseAddress! + window - back)) << 32 | UInt64(pattern))
                }
            }
            runs.sort()
            return runs
        }
    }

    /// The windows of the group headed by `head` whose value's run around
    /// `position` (where the window's bytes are) reaches ``runBytes`` bytes, in
    /// the order added, each once.
    func groupMembers(_ head: Int, at position: Int, in base: UnsafeRawPointer, total: Int, arena: UnsafeRawPointer) -> [Int] {
        guard let group = windowGroups[UInt32(head)] else { return [] }
        var found: [Int] = []
        for back in 0...Self.reach where position - back >= 0 && position - back + Self.runBytes <= total {
            let run = base + position - back
            let key = UInt64(Self.runHash(run)) << 32
            var low = 0, high = group.runs.count
            while low < high {
                let middle = (low + high) / 2
                if group.runs[middle] < key { low = middle + 1 } else { high = middle }
            }
            while low < group.runs.count && group.runs[low] & ~0xFFFF_FFFF == key {
                let pattern = Int(group.runs[low] & 0xFFFF_FFFF)
                low += 1
                let long = Int(owners[pattern])
                let valueStart = Int(longStarts[long]), valueEnd = valueStart + Int(longLengths[long])
                let start = Int(starts[pattern]) - back
                guard start >= valueStart, start + Self.runBytes <= valueEnd,
                      Memory.equal(arena + start, run, count: Self.runBytes) else { continue }
                found.append(pattern)
            }
        }
        // A value found by several runs around the window counts once.
        found.sort()
        var kept = 0
        for pattern in found where kept == 0 || found[kept - 1] != pattern {
            found[kept] = pattern
            kept += 1
        }
        found.removeSubrange(kept...)
        return found
    }
}
