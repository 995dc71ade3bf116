#if canImport(Glibc)
import Glibc
#endif

/// The replaced values of a leak scan, searched for at once in one pass over
/// the bytes, so that any run of ``runBytes`` bytes of one of them is found.
///
/// A value shorter than ``runBytes`` is one pattern, searched whole. A longer
/// one is kept once, whole, and searched by its *windows*: ``windowBytes``
/// bytes at every ``windowStep``-th offset. Any run of ``runBytes`` bytes of the
/// value holds one whole window (the run's first ``windowStep`` offsets hold a
/// multiple of ``windowStep``, and the window that starts there ends inside the
/// run); where a window matches, the bytes on either side are compared with
/// the value's, up to ``reach`` bytes each way, and a run of at least
/// ``runBytes`` is a hit. A window that matches in a shorter run is not.
///
/// Two bitmaps rule out nearly every position: one of the first 2 bytes of
/// every pattern (8 KiB, it stays in the L1 cache), then one of a hash of the
/// first 4. A hash table keyed by each pattern's bytes then finds the
/// candidates; the keys of every length a pattern has are computed in one pass
/// over a position's bytes, and a third bitmap of keys rules out most before
/// their bucket is read.
///
/// Patterns are added one after the other (appended: no table is touched),
/// then ``build()`` sorts them by bucket, which reads and writes memory in
/// order instead of one cache miss per pattern, and drops every
/// value equal to one added before it: the first one added is kept, with its
/// column.
///
/// Memory per short value: its bytes, and 16 bytes while added (start, shape,
/// column, half its key's hash), 12 once built; per long value its bytes, 12
/// bytes, and as much per window; plus 4 per bucket (one bucket per two to four
/// patterns).
struct PatternIndex {
    /// Runs of this many bytes of a value are always found; a value shorter than
    /// this is searched whole.
    static let runBytes = 32
    /// The length of a long value's windows.
    static let windowBytes = 16
    /// Every run of ``runBytes`` bytes holds a whole window at this spacing.
    static let windowStep = runBytes - windowBytes + 1
    /// How far a run is compared beyond its window, each way.
    static let reach = runBytes - windowBytes
    /// Shorter values are not searched: 3 bytes are found anywhere by chance.
    static let minimumBytes = 4

    /// The values' bytes, one after the other.
    private(set) var arena: [UInt8] = []
    /// Per pattern, in the order added, then, once built, in bucket order: where its bytes start.
    private(set) var starts: [UInt32] = []
    /// Per pattern: its length (5 bits), whether it is a window (bit 5), and
    /// 26 bits of its key's hash, so that one load rules out the other patterns of a bucket.
    private var shapes: [UInt32] = []
    /// Per pattern: the column of a short value (a rule's index), the long value of a window.
    private var owners: [UInt32] = []
    /// Per pattern: the high half of its key's hash (bucket and key bit), until built.
    private var hashes: [UInt32] = []
    /// Once built: bucket `b` holds the patterns `offsets[b]..<offsets[b + 1]`.
    private var offsets: [UInt32] = []
    private var bucketBits = 0
    private(set) var isBuilt = false

    /// Per long value: where its bytes start, how many, and its column.
    private var longStarts: [UInt32] = []
    private var longLengths: [UInt32] = []
    private var longColumns: [UInt32] = []

    /// Patterns that the rules themselves wrote, or the schema holds: no leak.
    var exemptions = Exemptions(count: 0)

    private static let lengthMask: UInt32 = 0x1F
    private static let windowFlag: UInt32 = 0x20
    private static let tagShift: UInt32 = 6
    private static let filterBits = 24
    private static let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// One bit per value of the first two bytes.
    private var pairFilter = [UInt64](repeating: 0, count: 1 << (16 - 6))
    /// One bit per hash of the first four bytes.
    private var prefixFilter = [UInt64](repeating: 0, count: 1 << (filterBits - 6))
    /// One bit per hash of a key.
    private var keyFilter = [UInt64](repeating: 0, count: 1 << (filterBits - 6))
    /// Bit K set when a pattern of K bytes exists.
    private var lengthsPresent: UInt64 = 0
    private(set) var maximumLength = 0

    /// Patterns: once built, the distinct ones.
    var count: Int { starts.count }
    var isEmpty: Bool { starts.isEmpty }
    /// Bytes of the values added (equal short ones counted until built).
    var arenaBytes: Int { arena.count }
    /// Long values, equal ones once (once built).
    private(set) var longValueCount = 0

    /// What a pattern stands for.
    struct Origin {
        /// The rule's index the value was replaced by.
        var column: Int
        /// The long value of a window (an identity within this index), `nil` for a short value.
        var longValue: Int?
        /// Where the pattern starts in its value.
        var offset: Int
    }

    func origin(of pattern: Int) -> Origin {
        let owner = Int(owners[pattern])
        guard shapes[pattern] & Self.windowFlag != 0 else { return Origin(column: owner, longValue: nil, offset: 0) }
        return Origin(column: Int(longColumns[owner]), longValue: owner, offset: Int(starts[pattern] - longStarts[owner]))
    }

    func isWindow(_ pattern: Int) -> Bool { shapes[pattern] & Self.windowFlag != 0 }

    /// The length of the value a pattern stands for.
    func valueLength(of pattern: Int) -> Int {
        isWindow(pattern) ? Int(longLengths[Int(owners[pattern])]) : Int(shapes[pattern] & Self.lengthMask)
    }

    /// The whole run of a value around a pattern found in `buffer`, as far as
    /// the bytes match (for a hit's report: a search compares only ``reach``
    /// bytes each way): where it starts in the buffer, its length, and whether
    /// it is the whole value.
    func fullRun(_ pattern: Int, in buffer: UnsafeRawBufferPointer, at run: Run) -> (start: Int, length: Int, whole: Bool) {
        guard isWindow(pattern) else { return (run.start, run.length, true) }
        let long = Int(owners[pattern])
        let valueStart = Int(longStarts[long]), valueLength = Int(longLengths[long])
        let windowStart = run.start + run.back
        let offset = Int(starts[pattern]) - valueStart
        return arena.withUnsafeBytes { arena in
            var back = 0
            while back < offset && back < windowStart && buffer[windowStart - back - 1] == arena[valueStart + offset - back - 1] { back += 1 }
            var forward = 0
            let end = windowStart + Self.windowBytes
            while offset + Self.windowBytes + forward < valueLength && end + forward < buffer.count
                && buffer[end + forward] == arena[valueStart + offset + Self.windowBytes + forward] { forward += 1 }
            let length = back + Self.windowBytes + forward
            return (windowStart - back, length, length == valueLength)
        }
    }

    /// Reserves room for values of `bytes` bytes in all (a hint: pages not
    /// written to are not in memory).
    mutating func reserve(bytes: Int) {
        arena.reserveCapacity(bytes)
        let patterns = bytes / 16
        starts.reserveCapacity(patterns)
        shapes.reserveCapacity(patterns)
        owners.reserveCapacity(patterns)
        hashes.reserveCapacity(patterns)
    }

    // MARK: - Keys

    /// A key's hash is built as its bytes are read: a running hash of every
    /// whole 8-byte word, the bytes after the last whole word, and its length.
    private static let initialHash: UInt64 = 0xCBF2_9CE4_8422_2325

    /// The running hash, one word more.
    @inline(__always)
    private static func step(_ running: UInt64, _ word: UInt64) -> UInt64 {
        let hash = (running ^ word) &* 0xFF51_AFD7_ED55_8CCD
        return hash ^ (hash >> 32)
    }

    /// The hash of a key: its whole words' running hash, the word of the bytes after them, its length.
    @inline(__always)
    private static func finish(_ running: UInt64, _ tail: UInt64, length: Int) -> UInt64 {
        var hash = (running &* multiplier) ^ tail ^ (UInt64(length) << 56)
        hash = hash &* 0xBF58_476D_1CE4_E5B9
        hash ^= hash >> 31
        hash = hash &* 0x94D0_49BB_1331_11EB
        return hash ^ (hash >> 29)
    }

    private static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var running = initialHash
        var offset = 0
        while offset + 8 <= bytes.count {
            running = step(running, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian)
            offset += 8
        }
        var tail: UInt64 = 0
        for index in offset..<bytes.count { tail |= UInt64(bytes[index]) << UInt64(8 * (index - offset)) }
        return finish(running, tail, length: bytes.count)
    }

    @inline(__always)
    private func bucket(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash >> UInt64(64 - bucketBits)) }

    @inline(__always)
    private static func bit(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash >> UInt64(64 - filterBits)) }

    @inline(__always)
    private static func prefixBit(_ prefix: UInt32) -> Int { bit(UInt64(prefix) &* multiplier) }

    /// The tag of a shape: 26 bits of the key's hash (bits the bucket does not use).
    @inline(__always)
    private static func tag(_ hash: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: hash) << tagShift }

    @inline(__always)
    private static func isSet(_ bits: UnsafeBufferPointer<UInt64>, _ bit: Int) -> Bool { bits[bit >> 6] & (1 << UInt64(bit & 63)) != 0 }

    // MARK: - Adding

    /// Adds a replaced value of ``minimumBytes`` or more, of column `column`:
    /// whole when shorter than ``runBytes``, else by its windows.
    mutating func add(_ bytes: UnsafeRawBufferPointer, column: Int) {
        precondition(!isBuilt, "PatternIndex.add after build")
        precondition(bytes.count >= Self.minimumBytes, "a value of \(bytes.count) bytes")
        guard bytes.count >= Self.runBytes else {
            addPattern(at: arena.count, bytes, owner: UInt32(column), window: false)
            arena.append(contentsOf: bytes)
            return
        }
        let long = longStarts.count
        let start = arena.count
        longStarts.append(UInt32(start))
        longLengths.append(UInt32(bytes.count))
        longColumns.append(UInt32(column))
        arena.append(contentsOf: bytes)
        var offset = 0
        while offset + Self.windowBytes <= bytes.count {
            addPattern(at: start + offset, UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + Self.windowBytes)]), owner: UInt32(long), window: true)
            offset += Self.windowStep
        }
    }

    private mutating func addPattern(at start: Int, _ bytes: UnsafeRawBufferPointer, owner: UInt32, window: Bool) {
        let length = bytes.count
        let hash = Self.hash(bytes)
        starts.append(UInt32(start))
        shapes.append(Self.tag(hash) | (window ? Self.windowFlag : 0) | UInt32(length))
        owners.append(owner)
        hashes.append(UInt32(truncatingIfNeeded: hash >> 32))
        let prefix = bytes.loadUnaligned(as: UInt32.self)
        let pair = Int(UInt16(truncatingIfNeeded: prefix))
        pairFilter[pair >> 6] |= 1 << UInt64(pair & 63)
        let prefixBit = Self.prefixBit(prefix)
        prefixFilter[prefixBit >> 6] |= 1 << UInt64(prefixBit & 63)
        lengthsPresent |= 1 << UInt64(length)
        maximumLength = max(maximumLength, length)
    }

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
        // One array at a time, each freed once placed, so that only one is doubled at once.
        var sortedStarts = Self.placed(&starts, hashes: hashes, ends: offsets, bucketBits: bucketBits)
        var sortedShapes = Self.placed(&shapes, hashes: hashes, ends: offsets, bucketBits: bucketBits)
        var sortedOwners = Self.placed(&owners, hashes: hashes, ends: offsets, bucketBits: bucketBits)
        // Each bucket's start, at offsets[bucket + 1] until compacted.
        for high in hashes { offsets[bucket(UInt64(high) << 32) + 1] -= 1 }
        hashes = []
        // Bucket by bucket: a short value whose shape and bytes an earlier one of
        // its bucket has is dropped, and every window of a dropped long value;
        // the patterns kept move down in place, and `offsets` is rewritten to
        // their places.
        var kept = 0
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
                            if memcmp(arena.baseAddress! + Int(sortedStarts[earlier]), arena.baseAddress! + Int(sortedStarts[place]), length) == 0 {
                                duplicate = true
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
        longValueCount = longStarts.indices.reduce(0) { $0 + (dropped[$1 >> 6] & (1 << UInt64($1 & 63)) == 0 ? 1 : 0) }
    }

    /// `values` (one per pattern) in bucket order, the patterns of a bucket in
    /// the order added; `values` is emptied. `ends[bucket + 1]` is where a bucket ends.
    private static func placed(_ values: inout [UInt32], hashes: [UInt32], ends: [UInt32], bucketBits: Int) -> [UInt32] {
        var cursors = ends
        var sorted = [UInt32](repeating: 0, count: values.count)
        for pattern in stride(from: values.count - 1, through: 0, by: -1) {
            let bucket = Int(truncatingIfNeeded: (UInt64(hashes[pattern]) << 32) >> UInt64(64 - bucketBits))
            cursors[bucket + 1] -= 1
            sorted[Int(cursors[bucket + 1])] = values[pattern]
        }
        values = []
        return sorted
    }

    /// The long values equal to one added before them, one bit each: their
    /// hashes (read in order, as the values lie in the arena) sorted with their
    /// index, and the values of equal hashes compared.
    private func duplicateLongValues() -> [UInt64] {
        let count = longStarts.count
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
            keys.sort()
            let indexMask = UInt64(1) << UInt64(indexBits) - 1
            var groupStart = 0
            for position in 1...count {
                guard position == count || keys[position] & ~indexMask != keys[groupStart] & ~indexMask else { continue }
                // keys[groupStart..<position] share a hash: each is compared with the kept ones before it.
                if position - groupStart > 1 {
                    var keptInGroup: [Int] = []
                    for key in keys[groupStart..<position] {
                        let long = Int(key & indexMask)
                        let equal = keptInGroup.contains { other in
                            longLengths[other] == longLengths[long]
                                && memcmp(arena.baseAddress! + Int(longStarts[other]), arena.baseAddress! + Int(longStarts[long]), Int(longLengths[long])) == 0
                        }
                        if equal { dropped[long >> 6] |= 1 << UInt64(long & 63) } else { keptInGroup.append(long) }
                    }
                }
                groupStart = position
            }
        }
        return dropped
    }

    // MARK: - Exemptions

    /// The patterns found inside what the rules wrote or the schema, one bit
    /// each, and for a window how far its run reached there, back and forward.
    struct Exemptions {
        private var bits: [UInt64]
        private var reach: [UInt32: UInt16] = [:]

        init(count: Int) { bits = [UInt64](repeating: 0, count: (count + 63) / 64) }

        /// Marks a pattern found in `run` inside something the rules wrote (or
        /// the schema): a run of the same value found elsewhere within as far is no leak.
        mutating func mark(_ pattern: Int, run: Run, window: Bool) {
            bits[pattern >> 6] |= 1 << UInt64(pattern & 63)
            guard window else { return }
            let old = reach[UInt32(pattern)] ?? 0
            reach[UInt32(pattern)] = max(old >> 8, UInt16(run.back)) << 8 | max(old & 0xFF, UInt16(run.forward))
        }

        func contains(_ pattern: Int) -> Bool { bits[pattern >> 6] & (1 << UInt64(pattern & 63)) != 0 }

        /// Whether a pattern found in `run` is no leak: a short value the rules
        /// wrote, or a window whose run they wrote as far (or farther) both ways.
        func covers(_ pattern: Int, run: Run, window: Bool) -> Bool {
            guard contains(pattern) else { return false }
            guard window, let reached = reach[UInt32(pattern)] else { return true }
            return run.back <= Int(reached >> 8) && run.forward <= Int(reached & 0xFF)
        }
    }

    func isExempt(_ pattern: Int, run: Run) -> Bool {
        exemptions.covers(pattern, run: run, window: isWindow(pattern))
    }

    /// Whether a short value is exempt whole: `nil` for a window.
    func isWhollyExempt(_ pattern: Int) -> Bool? {
        isWindow(pattern) ? nil : exemptions.contains(pattern)
    }

    // MARK: - Searching

    /// Where a pattern was found: the run of its value's bytes around it.
    struct Run {
        /// Where the run starts in the buffer searched.
        var start: Int
        var length: Int
        /// Bytes of the run before the window, and after it (0 for a short value).
        var back: Int
        var forward: Int
    }

    /// Calls `found` with each pattern that occurs in `buffer` at a position
    /// from `start` through `end`, and the run it is part of: a short value
    /// whole, a window within a run of at least ``runBytes`` bytes of its value.
    /// The bytes of `buffer` before `start` and after `end` are read to compare
    /// runs and to match patterns that start at `end`.
    func search(_ buffer: UnsafeRawBufferPointer, from start: Int = 0, through end: Int, _ found: (_ pattern: Int, _ run: Run) -> Void) {
        precondition(isBuilt, "PatternIndex.search before build")
        guard !starts.isEmpty, let base = buffer.baseAddress else { return }
        let total = buffer.count
        let last = min(end, total - 4)
        guard last >= start else { return }
        let longest = maximumLength
        arena.withUnsafeBytes { arena in
            pairFilter.withUnsafeBufferPointer { pairFilter in
                prefixFilter.withUnsafeBufferPointer { prefixFilter in
                    keyFilter.withUnsafeBufferPointer { keyFilter in
                        let arenaBase = arena.baseAddress!.assumingMemoryBound(to: UInt8.self)
                        let bytes = base.assumingMemoryBound(to: UInt8.self)
                        var position = max(start, 0)
                        while position <= last {
                            let prefix = (base + position).loadUnaligned(as: UInt32.self)
                            guard Self.isSet(pairFilter, Int(UInt16(truncatingIfNeeded: prefix))),
                                  Self.isSet(prefixFilter, Self.prefixBit(prefix)) else {
                                position += 1
                                continue
                            }
                            // Every key that starts here, in one pass over the bytes.
                            let span = min(total - position, longest)
                            var running = Self.initialHash
                            var tail: UInt64 = 0
                            for offset in 0..<span {
                                let shift = UInt64(8 * (offset & 7))
                                if shift == 0 && offset > 0 {
                                    running = Self.step(running, tail)
                                    tail = 0
                                }
                                tail |= UInt64(bytes[position + offset]) << shift
                                let length = offset + 1
                                guard lengthsPresent & (1 << UInt64(length)) != 0 else { continue }
                                // A key of whole words has no tail: its last word is in the running hash.
                                let hash = length & 7 == 0 ? Self.finish(Self.step(running, tail), 0, length: length) : Self.finish(running, tail, length: length)
                                guard Self.isSet(keyFilter, Self.bit(hash)) else { continue }
                                let wanted = Self.tag(hash) | UInt32(length)
                                let bucket = bucket(hash)
                                for pattern in Int(offsets[bucket])..<Int(offsets[bucket + 1]) {
                                    let shape = shapes[pattern]
                                    guard shape & ~Self.windowFlag == wanted,
                                          memcmp(arenaBase + Int(starts[pattern]), base + position, length) == 0 else { continue }
                                    guard shape & Self.windowFlag != 0 else {
                                        found(pattern, Run(start: position, length: length, back: 0, forward: 0))
                                        continue
                                    }
                                    // A window: the run around it, as far as the value's bytes go.
                                    let long = Int(owners[pattern])
                                    let valueStart = Int(longStarts[long])
                                    let patternStart = Int(starts[pattern])
                                    let before = patternStart - valueStart
                                    let after = valueStart + Int(longLengths[long]) - patternStart - length
                                    var back = 0
                                    let maximumBack = min(before, Self.reach, position)
                                    while back < maximumBack && bytes[position - back - 1] == arenaBase[patternStart - back - 1] { back += 1 }
                                    var forward = 0
                                    let maximumForward = min(after, Self.reach, total - position - length)
                                    while forward < maximumForward && bytes[position + length + forward] == arenaBase[patternStart + length + forward] { forward += 1 }
                                    guard back + length + forward >= Self.runBytes else { continue }
                                    found(pattern, Run(start: position - back, length: back + length + forward, back: back, forward: forward))
                                }
                            }
                            position += 1
                        }
                    }
                }
            }
        }
    }
}
