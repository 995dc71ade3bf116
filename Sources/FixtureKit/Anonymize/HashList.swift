import FixtureKitSystem

/// A growing list of hashes. Its current chunk lives in pages of its own,
/// mapped from the system (`mmap`); a full chunk goes to the ``SpillFile``
/// (kept in memory where it cannot). To be counted, a list of at most
/// ``gatherLimit`` hashes is read back in one mapping, sorted, then returned to
/// the system (`munmap`); a longer one is counted by merging its chunks, each
/// sorted in turn, from the spill (see ``merged()``), so that counting costs a
/// few MiB whatever the column's size. The list is cut to two copies of each
/// hash when it reaches its threshold, so a column of repeated values stays
/// within its first chunk; once a cut finds repeats, a small table of the
/// hashes last appended (``repeatSlots``, by their low bits) leaves out an
/// append of a hash the list is known to hold twice, which the next cut would
/// only drop: a column of few values then costs no cuts at all.
struct HashList {
    /// Hashes per chunk: 1 MiB.
    static let chunkEntries = 1 << 17
    /// Hashes merged from each chunk at a time: 16 KiB per chunk.
    static let mergeBlock = 1 << 11
    /// The longest list counted in one mapping: 4 Mi hashes, 32 MiB (and as
    /// much again to sort them). Tests lower it to reach the merge with small lists.
    var gatherLimit = 1 << 22
    var spill: SpillFile?
    private var current: UnsafeMutablePointer<UInt64>?
    private var currentCount = 0
    /// Full chunks: spilled (an offset in the spill), or in memory.
    private var full: [(offset: Int64?, memory: UnsafeMutablePointer<UInt64>?)] = []
    private var count = 0
    private var threshold = 1 << 16
    /// The repeat table's slots: 32 KiB, made at the first cut that finds repeats.
    static let repeatSlots = 1 << 11
    /// Per slot, a hash and how many times it was appended since it took the slot.
    private var repeats: UnsafeMutablePointer<(hash: UInt64, copies: UInt64)>?

    @inline(__always)
    mutating func append(_ hash: UInt64) {
        if let repeats {
            let slot = repeats + Int(truncatingIfNeeded: hash) & (Self.repeatSlots - 1)
            if slot.pointee.hash != hash {
                slot.pointee = (hash, 1)
            } else if slot.pointee.copies >= 2 {
                // Held twice already: cuts keep two copies of a hash, never fewer.
                return
            } else {
                slot.pointee.copies += 1
            }
        }
        guard let current, currentCount < Self.chunkEntries else { return appendSlowly(hash) }
        current[currentCount] = hash
        currentCount += 1
        count += 1
        if count >= threshold { compact() }
    }

    /// ``append(_:)`` when the current chunk is missing or full.
    private mutating func appendSlowly(_ hash: UInt64) {
        if currentCount == Self.chunkEntries { retire() }
        if current == nil { current = Self.map(Self.chunkEntries) }
        current![currentCount] = hash
        currentCount += 1
        count += 1
        if count >= threshold { compact() }
    }

    /// Moves the current chunk to the spill, or keeps it when it cannot be written.
    private mutating func retire() {
        guard let chunk = current else { return }
        if let spill, let offset = spill.append(UnsafeRawBufferPointer(start: chunk, count: Self.chunkEntries * 8)) {
            full.append((offset, nil))
            currentCount = 0
        } else {
            full.append((nil, chunk))
            current = nil
            currentCount = 0
        }
    }

    /// Pages of their own for `entries` hashes (``PageMemory``).
    static func map(_ entries: Int) -> UnsafeMutablePointer<UInt64> {
        PageMemory.allocate(byteCount: max(1, entries) * MemoryLayout<UInt64>.stride)
            .bindMemory(to: UInt64.self, capacity: max(1, entries))
    }

    static func unmap(_ memory: UnsafeMutablePointer<UInt64>, _ entries: Int) {
        PageMemory.release(UnsafeMutableRawPointer(memory), byteCount: max(1, entries) * MemoryLayout<UInt64>.stride)
    }

    /// The hashes in one sorted mapping, and their number; the list is empty afterwards.
    /// `nil` when a spilled chunk could not be read back.
    private mutating func gathered() -> (UnsafeMutablePointer<UInt64>, Int)? {
        let total = count
        let all = Self.map(total)
        var readable = true
        for (index, chunk) in full.enumerated() {
            let target = all + index * Self.chunkEntries
            if let memory = chunk.memory {
                target.update(from: memory, count: Self.chunkEntries)
                Self.unmap(memory, Self.chunkEntries)
            } else if let offset = chunk.offset, let spill {
                readable = spill.read(UnsafeMutableRawBufferPointer(start: target, count: Self.chunkEntries * 8), at: offset) && readable
            }
        }
        if let current { (all + full.count * Self.chunkEntries).update(from: current, count: currentCount) }
        full = []
        currentCount = 0
        count = 0
        guard readable else {
            Self.unmap(all, total)
            return nil
        }
        RadixSort.sort(UnsafeMutableBufferPointer(start: all, count: total))
        return (all, total)
    }

    /// Cuts every run to two copies; a list that shrank by less than a half
    /// is not cut again before the end.
    private mutating func compact() {
        let before = count
        guard let (all, total) = gathered() else { return }
        var kept = 0
        for index in 0..<total where kept < 2 || all[index] != all[kept - 2] {
            all[kept] = all[index]
            kept += 1
        }
        threshold = .max
        // Put back as they are, not through the repeat table: its counts are of appends.
        let table = repeats
        repeats = nil
        for index in 0..<kept { append(all[index]) }
        Self.unmap(all, total)
        repeats = table
        threshold = kept * 2 > before ? .max : max(1 << 16, 2 * kept)
        if threshold != .max && repeats == nil {
            let table = UnsafeMutablePointer<(hash: UInt64, copies: UInt64)>.allocate(capacity: Self.repeatSlots)
            table.initialize(repeating: (0, 0), count: Self.repeatSlots)
            repeats = table
        }
    }

    /// Distinct hashes and hashes held twice or more, `nil` when the hashes
    /// could not be read back; the memory is returned.
    mutating func finish() -> (distinct: Int, groups: Int)? {
        defer { release() }
        guard count > 0 else { return (0, 0) }
        if count > gatherLimit, full.contains(where: { $0.offset != nil }) { return merged() }
        guard let (all, total) = gathered() else { return nil }
        defer { Self.unmap(all, total) }
        var runs = RunCounter()
        for index in 0..<total { runs.add(all[index]) }
        return runs.result
    }

    /// ``finish()`` of a list longer than ``gatherLimit``: every chunk sorted
    /// (a spilled one read back, sorted and written over itself, one at a
    /// time), then all merged in order through a heap, ``mergeBlock`` hashes of
    /// each spilled chunk in memory at a time. `nil` when the spill failed.
    private mutating func merged() -> (distinct: Int, groups: Int)? {
        guard let spill else { return nil }
        let chunkBytes = Self.chunkEntries * MemoryLayout<UInt64>.stride
        var sources: [(offset: Int64?, memory: UnsafeMutablePointer<UInt64>?, count: Int)] = []
        let scratch = Self.map(Self.chunkEntries)
        var readable = true
        for chunk in full where readable {
            if let memory = chunk.memory {
                RadixSort.sort(UnsafeMutableBufferPointer(start: memory, count: Self.chunkEntries))
                sources.append((nil, memory, Self.chunkEntries))
            } else if let offset = chunk.offset {
                readable = spill.read(UnsafeMutableRawBufferPointer(start: scratch, count: chunkBytes), at: offset)
                RadixSort.sort(UnsafeMutableBufferPointer(start: scratch, count: Self.chunkEntries))
                readable = readable && spill.write(UnsafeRawBufferPointer(start: scratch, count: chunkBytes), at: offset)
                sources.append((offset, nil, Self.chunkEntries))
            }
        }
        Self.unmap(scratch, Self.chunkEntries)
        if let current, currentCount > 0 {
            RadixSort.sort(UnsafeMutableBufferPointer(start: current, count: currentCount))
            sources.append((nil, current, currentCount))
        }
        guard readable else { return nil }

        // Each source's window: its memory, or its block of `blocks` read from the spill.
        let block = Self.mergeBlock
        let blocks = Self.map(sources.count * block)
        defer { Self.unmap(blocks, sources.count * block) }
        var position = [Int](repeating: 0, count: sources.count)
        /// The window of source `index` holding its hash at `position[index]`, and that hash's place in it.
        func load(_ index: Int) -> UnsafeMutablePointer<UInt64>? {
            let source = sources[index]
            if let memory = source.memory { return memory + position[index] }
            let within = position[index] % block
            let window = blocks + index * block
            if within == 0 {
                let entries = min(block, source.count - position[index])
                let at = source.offset! + Int64(position[index] * MemoryLayout<UInt64>.stride)
                guard spill.read(UnsafeMutableRawBufferPointer(start: window, count: entries * MemoryLayout<UInt64>.stride), at: at) else {
                    readable = false
                    return nil
                }
            }
            return window + within
        }
        // A binary heap of (hash, source), smallest first.
        var heap: [(hash: UInt64, source: Int)] = []
        heap.reserveCapacity(sources.count)
        func siftDown(_ start: Int) {
            var parent = start
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < heap.count && heap[left].hash < heap[smallest].hash { smallest = left }
                if right < heap.count && heap[right].hash < heap[smallest].hash { smallest = right }
                if smallest == parent { return }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        for index in sources.indices where sources[index].count > 0 {
            guard let hash = load(index)?.pointee else { return nil }
            heap.append((hash, index))
        }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
        var runs = RunCounter()
        while let top = heap.first {
            runs.add(top.hash)
            let index = top.source
            position[index] += 1
            if position[index] < sources[index].count {
                guard let next = load(index) else { return nil }
                heap[0].hash = next.pointee
            } else {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            siftDown(0)
        }
        return readable ? runs.result : nil
    }

    mutating func release() {
        repeats?.deallocate()
        repeats = nil
        for chunk in full { if let memory = chunk.memory { Self.unmap(memory, Self.chunkEntries) } }
        full = []
        if let current { Self.unmap(current, Self.chunkEntries) }
        current = nil
        currentCount = 0
        count = 0
    }
}

/// Distinct hashes and hashes held twice or more, of hashes given in order.
struct RunCounter {
    private var last: UInt64 = 0
    private var length = 0
    private var distinct = 0, groups = 0

    @inline(__always)
    mutating func add(_ hash: UInt64) {
        if length > 0 && hash == last {
            length += 1
            if length == 2 { groups += 1 }
            return
        }
        last = hash
        length = 1
        distinct += 1
    }

    var result: (distinct: Int, groups: Int) { (distinct, groups) }
}

/// Sorts 64-bit hashes in two scattering passes, most significant bits first:
/// by the top byte into a buffer (256 write streams, which the cache keeps),
/// then each of those buckets by the next bits back into place (a bucket of a
/// million keys' 256 is a few thousand: it stays in the cache), down to
/// buckets of a few keys that an insertion sort finishes. Hashes are spread
/// evenly, so the cost is about two passes.
enum RadixSort {
    static func sort(_ keys: UnsafeMutableBufferPointer<UInt64>) {
        guard let base = keys.baseAddress else { return }
        let count = keys.count
        guard count > 64 else { return insertionSort(base, count: count) }
        let buffer = HashList.map(count)
        defer { HashList.unmap(buffer, count) }
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 257 + (1 << 16) + 1) { memory in
            let starts = UnsafeMutableBufferPointer(rebasing: memory[0..<257])
            let inner = UnsafeMutableBufferPointer(rebasing: memory[257...])
            scatter(from: base, to: buffer, count: count, shift: 56, bits: 8, starts: starts)
            for bucket in 0..<256 {
                let low = starts[bucket], size = starts[bucket + 1] - low
                guard size > 64 else {
                    (base + low).update(from: buffer + low, count: size)
                    insertionSort(base + low, count: size)
                    continue
                }
                var bits = 1
                while bits < 16 && (1 << (bits + 2)) < size { bits += 1 }
                let counts = UnsafeMutableBufferPointer(rebasing: inner[0..<((1 << bits) + 1)])
                scatter(from: buffer + low, to: base + low, count: size, shift: UInt64(56 - bits), bits: bits, starts: counts)
                for sub in 0..<(1 << bits) where counts[sub + 1] - counts[sub] > 1 {
                    insertionSort(base + low + counts[sub], count: counts[sub + 1] - counts[sub])
                }
            }
        }
    }

    /// Moves `count` keys from `source` to `target`, in the order of their
    /// `bits` bits below `shift`; `starts` (2^bits + 1 places) receives where each bucket starts and ends.
    private static func scatter(from source: UnsafeMutablePointer<UInt64>, to target: UnsafeMutablePointer<UInt64>, count: Int, shift: UInt64, bits: Int, starts: UnsafeMutableBufferPointer<Int>) {
        let mask = UInt64((1 << bits) - 1)
        starts.update(repeating: 0)
        for index in 0..<count { starts[Int((source[index] >> shift) & mask) + 1] += 1 }
        for index in 1..<starts.count { starts[index] += starts[index - 1] }
        // Each bucket's next place, kept in its successor's slot and restored afterwards.
        for index in 0..<count {
            let bucket = Int((source[index] >> shift) & mask)
            target[starts[bucket]] = source[index]
            starts[bucket] += 1
        }
        for index in stride(from: starts.count - 1, to: 0, by: -1) { starts[index] = starts[index - 1] }
        starts[0] = 0
    }

    private static func insertionSort(_ keys: UnsafeMutablePointer<UInt64>, count: Int) {
        guard count > 1 else { return }
        for index in 1..<count {
            let key = keys[index]
            var place = index
            while place > 0 && keys[place - 1] > key {
                keys[place] = keys[place - 1]
                place -= 1
            }
            keys[place] = key
        }
    }
}
