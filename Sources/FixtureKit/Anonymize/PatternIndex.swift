#if canImport(Glibc)
import Glibc
#endif

/// A set of byte patterns searched for at once, in one pass over the bytes.
///
/// Two bitmaps rule out nearly every position: one of the first 2 bytes of
/// every pattern (8 KiB, it stays in the L1 cache), then one of a hash of the
/// first 4. A hash table then finds the candidates by a key of each pattern's
/// first bytes: all of them up to 32 bytes, or its first 32, 48 or 64 (the most
/// it has), so that values sharing a prefix (`person.1…@…`, `+33 6 12 34 56 7…`)
/// do not pile up under one key. The keys of every length a pattern has are
/// computed in one pass over a position's bytes, and a third bitmap of keys
/// rules out most before their bucket is read.
///
/// Patterns are added one after the other (appended: no table is touched),
/// then ``build()`` sorts them by bucket, which reads and writes memory in
/// order instead of one cache miss per pattern, and drops every pattern equal
/// to one added before it: the first one added is kept, with its column.
///
/// Memory per pattern: its bytes, and 16 bytes while added (start, length and
/// tag, column, half its key's hash), 12 once built, plus 4 per bucket (one
/// bucket per two to four patterns).
struct PatternIndex {
    private(set) var arena: [UInt8] = []
    /// Per pattern, in the order added, then, once built, in bucket order.
    private(set) var starts: [UInt32] = []
    /// Per pattern: its length (13 bits) under 19 bits of its key's hash, so
    /// that one load rules out the other patterns of a bucket.
    private var shapes: [UInt32] = []
    /// The column each pattern was replaced in (a rule's index).
    private(set) var columns: [UInt32] = []
    /// Per pattern: the high half of its key's hash (bucket and key bit), until built.
    private var hashes: [UInt32] = []
    /// Once built: bucket `b` holds the patterns `offsets[b]..<offsets[b + 1]`.
    private var offsets: [UInt32] = []
    private var bucketBits = 0
    private(set) var isBuilt = false
    /// Patterns found inside what the rules wrote or in the schema (no leak), one bit each.
    var exemptBits: [UInt64] = []

    /// The longest pattern a shape can hold.
    static let maximumPatternLength = (1 << lengthBits) - 1
    private static let lengthBits = 13
    /// Patterns up to this many bytes are keyed by all their bytes.
    private static let wholeKeyBytes = 32
    private static let filterBits = 24
    private static let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// One bit per value of the first two bytes.
    private var pairFilter = [UInt64](repeating: 0, count: 1 << (16 - 6))
    /// One bit per hash of the first four bytes.
    private var prefixFilter = [UInt64](repeating: 0, count: 1 << (filterBits - 6))
    /// One bit per hash of a key.
    private var keyFilter = [UInt64](repeating: 0, count: 1 << (filterBits - 6))
    /// Bit K set when a pattern of kind K exists (see ``kind(of:)``).
    private var kindMask: UInt64 = 0
    /// The longest key of a kind that exists.
    private var longestKey = 0
    private(set) var maximumLength = 0

    /// Patterns: once built, the distinct ones.
    var count: Int { starts.count }
    var isEmpty: Bool { starts.isEmpty }
    /// Bytes of the patterns added (equal ones counted until built).
    var arenaBytes: Int { arena.count }

    func isExempt(_ pattern: Int) -> Bool { exemptBits[pattern >> 6] & (1 << UInt64(pattern & 63)) != 0 }

    /// Reserves room for patterns of `bytes` bytes in all (a hint: pages not
    /// written to are not in memory).
    mutating func reserve(bytes: Int) {
        arena.reserveCapacity(bytes)
        let patterns = bytes / 16
        starts.reserveCapacity(patterns)
        shapes.reserveCapacity(patterns)
        columns.reserveCapacity(patterns)
        hashes.reserveCapacity(patterns)
    }

    // MARK: - Keys

    /// A pattern's kind: its length up to 32 bytes; 33, 34, 35 for one keyed by its first 32, 48, 64.
    @inline(__always)
    private static func kind(of length: Int) -> Int {
        length <= wholeKeyBytes ? length : length >= 64 ? 35 : length >= 48 ? 34 : 33
    }

    /// How many first bytes the key of a kind covers.
    @inline(__always)
    private static func keyLength(of kind: Int) -> Int {
        kind <= wholeKeyBytes ? kind : kind == 33 ? 32 : kind == 34 ? 48 : 64
    }

    /// A key's hash is built as its bytes are read: a running hash of every
    /// whole 8-byte word, the bytes after the last whole word, and its kind.
    private static let initialHash: UInt64 = 0xCBF2_9CE4_8422_2325

    /// The running hash, one word more.
    @inline(__always)
    private static func step(_ running: UInt64, _ word: UInt64) -> UInt64 {
        let hash = (running ^ word) &* 0xFF51_AFD7_ED55_8CCD
        return hash ^ (hash >> 32)
    }

    /// The hash of a key: its whole words' running hash, the word of the bytes after them, its kind.
    @inline(__always)
    private static func finish(_ running: UInt64, _ tail: UInt64, kind: Int) -> UInt64 {
        var hash = (running &* multiplier) ^ tail ^ (UInt64(kind) << 56)
        hash = hash &* 0xBF58_476D_1CE4_E5B9
        hash ^= hash >> 31
        hash = hash &* 0x94D0_49BB_1331_11EB
        return hash ^ (hash >> 29)
    }

    private static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let kind = kind(of: bytes.count)
        let length = keyLength(of: kind)
        var running = initialHash
        var offset = 0
        while offset + 8 <= length {
            running = step(running, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian)
            offset += 8
        }
        var tail: UInt64 = 0
        for index in offset..<length { tail |= UInt64(bytes[index]) << UInt64(8 * (index - offset)) }
        return finish(running, tail, kind: kind)
    }

    @inline(__always)
    private func bucket(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash >> UInt64(64 - bucketBits)) }

    @inline(__always)
    private static func bit(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash >> UInt64(64 - filterBits)) }

    @inline(__always)
    private static func prefixBit(_ prefix: UInt32) -> Int { bit(UInt64(prefix) &* multiplier) }

    /// The tag of a shape: 19 bits of the key's hash (bits the bucket does not use).
    @inline(__always)
    private static func tag(_ hash: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: hash) << UInt32(lengthBits) }

    @inline(__always)
    private static func isSet(_ bits: UnsafeBufferPointer<UInt64>, _ bit: Int) -> Bool { bits[bit >> 6] & (1 << UInt64(bit & 63)) != 0 }

    // MARK: - Adding

    /// Adds a pattern of 4 to ``maximumPatternLength`` bytes; ``build()`` drops
    /// it if it equals one added before.
    mutating func add(_ bytes: UnsafeRawBufferPointer, column: Int) {
        let length = bytes.count
        precondition(!isBuilt, "PatternIndex.add after build")
        precondition(length >= 4 && length <= Self.maximumPatternLength, "a pattern of \(length) bytes")
        let hash = Self.hash(bytes)
        starts.append(UInt32(arena.count))
        shapes.append(Self.tag(hash) | UInt32(length))
        columns.append(UInt32(column))
        hashes.append(UInt32(truncatingIfNeeded: hash >> 32))
        arena.append(contentsOf: bytes)
        let prefix = bytes.loadUnaligned(as: UInt32.self)
        let pair = Int(UInt16(truncatingIfNeeded: prefix))
        pairFilter[pair >> 6] |= 1 << UInt64(pair & 63)
        let prefixBit = Self.prefixBit(prefix)
        prefixFilter[prefixBit >> 6] |= 1 << UInt64(prefixBit & 63)
        let kind = Self.kind(of: length)
        kindMask |= 1 << UInt64(kind)
        longestKey = max(longestKey, Self.keyLength(of: kind))
        maximumLength = max(maximumLength, length)
    }

    /// Sorts the patterns by bucket (keeping the order they were added in
    /// within one) and drops those equal to one before them; searching needs it.
    /// Every pass reads or writes in order, but for one scattered write or
    /// read per pattern, which do not wait for each other.
    mutating func build() {
        guard !isBuilt else { return }
        isBuilt = true
        let added = starts.count
        // About four patterns a bucket: their shapes share a cache line.
        bucketBits = max(4, Int.bitWidth - added.leadingZeroBitCount - 2)
        let bucketCount = 1 << bucketBits
        // Counting sort: each bucket's end, then, placing from the last pattern
        // back, each bucket's start (at offsets[bucket + 1] until compacted).
        offsets = [UInt32](repeating: 0, count: bucketCount + 1)
        for high in hashes {
            offsets[bucket(UInt64(high) << 32) + 1] += 1
            let keyBit = Self.bit(UInt64(high) << 32)
            keyFilter[keyBit >> 6] |= 1 << UInt64(keyBit & 63)
        }
        for index in 0..<bucketCount { offsets[index + 1] += offsets[index] }
        var order = [UInt32](repeating: 0, count: added)
        var sortedShapes = [UInt32](repeating: 0, count: added)
        for pattern in stride(from: added - 1, through: 0, by: -1) {
            let bucket = bucket(UInt64(hashes[pattern]) << 32)
            offsets[bucket + 1] -= 1
            order[Int(offsets[bucket + 1])] = UInt32(pattern)
            sortedShapes[Int(offsets[bucket + 1])] = shapes[pattern]
        }
        hashes = []
        shapes = []
        // Bucket by bucket: a pattern whose shape and bytes an earlier one of its
        // bucket has is dropped; `order` and `sortedShapes` are compacted to the
        // patterns kept, and `offsets` rewritten to their places.
        var kept = 0
        arena.withUnsafeBytes { arena in
            for bucket in 0..<bucketCount {
                let first = Int(offsets[bucket + 1]), end = bucket + 2 <= bucketCount ? Int(offsets[bucket + 2]) : added
                offsets[bucket] = UInt32(kept)
                let bucketStart = kept
                for place in first..<end {
                    let shape = sortedShapes[place]
                    let pattern = Int(order[place])
                    var duplicate = false
                    for earlier in bucketStart..<kept where sortedShapes[earlier] == shape {
                        let length = Int(shape & ((1 << Self.lengthBits) - 1))
                        if memcmp(arena.baseAddress! + Int(starts[Int(order[earlier])]), arena.baseAddress! + Int(starts[pattern]), length) == 0 {
                            duplicate = true
                            break
                        }
                    }
                    guard !duplicate else { continue }
                    order[kept] = UInt32(pattern)
                    sortedShapes[kept] = shape
                    kept += 1
                }
            }
        }
        offsets[bucketCount] = UInt32(kept)
        sortedShapes.removeSubrange(kept...)
        shapes = sortedShapes
        // The other arrays in bucket order, one at a time, so that only one is doubled at once.
        starts = (0..<kept).map { starts[Int(order[$0])] }
        columns = (0..<kept).map { columns[Int(order[$0])] }
        exemptBits = [UInt64](repeating: 0, count: (kept + 63) / 64)
    }

    // MARK: - Searching

    /// Calls `found` with each pattern that occurs in `buffer` at a position up
    /// to `end`; a pattern must lie wholly inside `buffer`.
    func search(_ buffer: UnsafeRawBufferPointer, end: Int, _ found: (_ pattern: Int, _ position: Int) -> Void) {
        precondition(isBuilt, "PatternIndex.search before build")
        guard !starts.isEmpty, let base = buffer.baseAddress else { return }
        let total = buffer.count
        let last = min(end, total - 4)
        guard last >= 0 else { return }
        arena.withUnsafeBytes { arena in
            pairFilter.withUnsafeBufferPointer { pairFilter in
                prefixFilter.withUnsafeBufferPointer { prefixFilter in
                    keyFilter.withUnsafeBufferPointer { keyFilter in
                        let arenaBase = arena.baseAddress!
                        let bytes = base.assumingMemoryBound(to: UInt8.self)
                        var position = 0
                        while position <= last {
                            let prefix = (base + position).loadUnaligned(as: UInt32.self)
                            guard Self.isSet(pairFilter, Int(UInt16(truncatingIfNeeded: prefix))),
                                  Self.isSet(prefixFilter, Self.prefixBit(prefix)) else {
                                position += 1
                                continue
                            }
                            // Every key that starts here, in one pass over the bytes.
                            let reach = min(total - position, longestKey)
                            var running = Self.initialHash
                            var tail: UInt64 = 0
                            for offset in 0..<reach {
                                let shift = UInt64(8 * (offset & 7))
                                if shift == 0 && offset > 0 {
                                    running = Self.step(running, tail)
                                    tail = 0
                                }
                                tail |= UInt64(bytes[position + offset]) << shift
                                let keyLength = offset + 1
                                var kinds = keyLength <= Self.wholeKeyBytes ? UInt64(1) << UInt64(keyLength) : 0
                                if keyLength & 15 == 0 { kinds |= keyLength == 32 ? 1 << 33 : keyLength == 48 ? 1 << 34 : keyLength == 64 ? 1 << 35 : 0 }
                                kinds &= kindMask
                                while kinds != 0 {
                                    let kind = kinds.trailingZeroBitCount
                                    kinds &= kinds - 1
                                    // A key of whole words has no tail: its last word is in the running hash.
                                    let hash = keyLength & 7 == 0 ? Self.finish(Self.step(running, tail), 0, kind: kind) : Self.finish(running, tail, kind: kind)
                                    guard Self.isSet(keyFilter, Self.bit(hash)) else { continue }
                                    let tag = Self.tag(hash)
                                    let bucket = bucket(hash)
                                    for pattern in Int(offsets[bucket])..<Int(offsets[bucket + 1]) {
                                        let shape = shapes[pattern]
                                        let length = Int(shape & ((1 << Self.lengthBits) - 1))
                                        if shape ^ tag == UInt32(length) && length <= total - position && Self.kind(of: length) == kind
                                            && memcmp(arenaBase + Int(starts[pattern]), base + position, length) == 0 {
                                            found(pattern, position)
                                        }
                                    }
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
