import FixtureKitSystem

extension PatternIndex {
    /// Sorts the patterns by bucket (keeping the order they were added in
    /// within one) and drops the values equal to one added before them;
    /// searching needs it. Every pass reads or writes in order, but for one
    /// scattered write or read per pattern, which do not wait for each other.
    mutating func build() {
        guard !isBuilt else { return }
        isBuilt = true
        let dropped = duplicateLongValues()
        let added = starts.count
        // About four patterns a bucket: their shapes share a cache line.
        bucketBits = max(4, Int.bitWidth - added.leadingZeroBitCount - 2)
        let bucketCount = 1 << bucketBits
        // Counting sort: each bucket's end, then every pattern placed from the last back.
        offsets = [UInt32](repeating: 0, count: bucketCount + 1)
        for high in hashes {
            offsets[bucket(UInt64(high) << 32) + 1] += 1
            let keyBit = Self.bit(UInt64(high) << 32)
            keyFilter[keyBit >> 6] |= 1 << UInt64(keyBit & 63)
        }
        for index in 0..<bucketCount { offsets[index + 1] += offsets[index] }
        // Each pattern's place, from the last back so that a bucket keeps the
        // order added, written over its hash (not read again): offsets[bucket + 1]
        // ends as the bucket's start, where it stays until compacted.
        let bits = bucketBits
        hashes.withUnsafeMutableBufferPointer { hashes in
            offsets.withUnsafeMutableBufferPointer { offsets in
                for pattern in stride(from: added - 1, through: 0, by: -1) {
                    let bucket = Self.bucket(UInt64(hashes[pattern]) << 32, bits: bits) + 1
                    offsets[bucket] -= 1
                    hashes[pattern] = offsets[bucket]
                }
            }
        }
        // One array at a time, each freed once placed, so that only one is doubled at once.
        var sortedStarts = Self.placed(&starts, at: hashes)
        var sortedShapes = Self.placed(&shapes, at: hashes)
        var sortedOwners = Self.placed(&owners, at: hashes)
        hashes = []
        // Bucket by bucket: a short value whose shape and bytes an earlier one of
        // its bucket has is dropped, and every window of a dropped long value;
        // the patterns kept move down in place, and `offsets` is rewritten to
        // their places.
        var kept = 0
        let tracked = trackedColumns
        var shared: [UInt64] = []
        arena.withUnsafeBytes { arena in
            for bucket in 0..<bucketCount {
                let first = Int(offsets[bucket + 1]), end = bucket + 2 <= bucketCount ? Int(offsets[bucket + 2]) : added
                offsets[bucket] = UInt32(kept)
                let bucketStart = kept
                for place in first..<end {
                    let shape = sortedShapes[place]
                    var duplicate = false
                    if shape & Self.windowFlag != 0 {
                        let long = Int(sortedOwners[place])
                        duplicate = dropped[long >> 6] & (1 << UInt64(long & 63)) != 0
                    } else {
                        for earlier in bucketStart..<kept where sortedShapes[earlier] == shape {
                            let length = Int(shape & Self.lengthMask)
                            if Memory.equal(arena.baseAddress! + Int(sortedStarts[earlier]), arena.baseAddress! + Int(sortedStarts[place]), count: length) {
                                duplicate = true
                                let column = sortedOwners[place] & WholeValue.columnMask
                                if !tracked.isEmpty && column != sortedOwners[earlier] & WholeValue.columnMask && tracked.contains(column) {
                                    shared.append(UInt64(earlier) << 32 | UInt64(column))
                                }
                                break
                            }
                        }
                    }
                    guard !duplicate else { continue }
                    sortedStarts[kept] = sortedStarts[place]
                    sortedShapes[kept] = shape
                    sortedOwners[kept] = sortedOwners[place]
                    kept += 1
                }
            }
        }
        offsets[bucketCount] = UInt32(kept)
        sortedStarts.removeSubrange(kept...)
        sortedShapes.removeSubrange(kept...)
        sortedOwners.removeSubrange(kept...)
        starts = sortedStarts
        shapes = sortedShapes
        owners = sortedOwners
        exemptions = Exemptions(count: kept)
        sharedShort = shared.sorted()
        if groupsCommonWindows { groupCommonWindows() }
        longValueCount = longStarts.indices.reduce(0) { $0 + (dropped[$1 >> 6] & (1 << UInt64($1 & 63)) == 0 ? 1 : 0) }
    }

    /// `values` (one per pattern) moved to their `places`; `values` is emptied.
    private static func placed(_ values: inout [UInt32], at places: [UInt32]) -> [UInt32] {
        var sorted = [UInt32](repeating: 0, count: values.count)
        sorted.withUnsafeMutableBufferPointer { sorted in
            values.withUnsafeBufferPointer { values in
                places.withUnsafeBufferPointer { places in
                    for pattern in values.indices { sorted[Int(places[pattern])] = values[pattern] }
                }
            }
        }
        values = []
        return sorted
    }

    /// The long values equal to one added before them, one bit each: their
    /// hashes (read in order, as the values lie in the arena) sorted with their
    /// index, and the values of equal hashes compared.
    private mutating func duplicateLongValues() -> [UInt64] {
        let count = longStarts.count
        let tracked = trackedColumns
        var shared: [UInt64] = []
        defer { sharedLong = shared.sorted() }
        var dropped = [UInt64](repeating: 0, count: (count + 63) / 64)
        guard count > 1 else { return dropped }
        // The high bits of the hash, then the index: equal hashes sort together, in the order added.
        let indexBits = Int.bitWidth - count.leadingZeroBitCount
        var keys = [UInt64](repeating: 0, count: count)
        arena.withUnsafeBytes { arena in
            for long in 0..<count {
                let value = UnsafeRawBufferPointer(start: arena.baseAddress! + Int(longStarts[long]), count: Int(longLengths[long]))
                keys[long] = (Self.hash(value) >> UInt64(indexBits)) << UInt64(indexBits) | UInt64(long)
            }
            keys.withUnsafeMutableBufferPointer { RadixSort.sort($0) }
            let indexMask = UInt64(1) << UInt64(indexBits) - 1
            var groupStart = 0
            for position in 1...count {
                guard position == count || keys[position] & ~indexMask != keys[groupStart] & ~indexMask else { continue }
                // keys[groupStart..<position] share a hash: each is compared with the kept ones before it.
                if position - groupStart > 1 {
                    var keptInGroup: [Int] = []
                    for key in keys[groupStart..<position] {
                        let long = Int(key & indexMask)
                        func equal(_ other: Int) -> Bool {
                            longLengths[other] == longLengths[long]
                                && Memory.equal(arena.baseAddress! + Int(longStarts[other]), arena.baseAddress! + Int(longStarts[long]), count: Int(longLengths[long]))
                        }
                        guard let other = keptInGroup.first(where: equal) else {
                            keptInGroup.append(long)
                            continue
                        }
                        dropped[long >> 6] |= 1 << UInt64(long & 63)
                        let column = longColumns[long] & WholeValue.columnMask
                        if column != longColumns[other] & WholeValue.columnMask && tracked.contains(column) {
                            shared.append(UInt64(other) << 32 | UInt64(column))
                        }
                    }
                }
                groupStart = position
            }
        }
        return dropped
    }
}
