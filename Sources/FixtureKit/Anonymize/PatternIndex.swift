import FixtureKitSystem

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
///
/// Its storage is read and written by its own files only (`PatternIndex+Build`,
/// `PatternIndex+Search`): the rest of the module adds, builds and searches.
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
    var arena: [UInt8] = []
    /// Per pattern, in the order added, then, once built, in bucket order: where its bytes start.
    var starts: [UInt32] = []
    /// Per pattern: its length (5 bits), whether it is a window (bit 5), and
    /// 26 bits of its key's hash, so that one load rules out the other patterns of a bucket.
    var shapes: [UInt32] = []
    /// Per pattern: the column of a short value (a rule's index, tagged with its
    /// ``WholeValue/Form``), the long value of a window.
    var owners: [UInt32] = []
    /// Per pattern: the high half of its key's hash (bucket and key bit), until built.
    var hashes: [UInt32] = []
    /// Once built: bucket `b` holds the patterns `offsets[b]..<offsets[b + 1]`.
    var offsets: [UInt32] = []
    var bucketBits = 0
    var isBuilt = false

    /// Per long value: where its bytes start, how many, and its column.
    var longStarts: [UInt32] = []
    var longLengths: [UInt32] = []
    var longColumns: [UInt32] = []

    /// Patterns that the rules themselves wrote, or the schema holds: no leak.
    var exemptions = Exemptions(count: 0)

    /// Columns (rule indexes) whose values are known as theirs even when an
    /// equal value of another column was added first (the columns a rule sets
    /// to `null`, whose cells are never searched for their own values): set before adding.
    var trackedColumns: Set<UInt32> = []
    /// A tracked column's value equal to one kept under another column: the kept
    /// pattern (or, in ``sharedLong``, long value) in the high half, the column in
    /// the low half; sorted once built.
    var sharedShort: [UInt64] = []
    var sharedLong: [UInt64] = []
    /// Once built: one bit per pattern that heads a group of windows many
    /// long values share (``WindowGroup``), and the groups by their head.
    var groupHeads: [UInt64] = []
    var windowGroups: [UInt32: WindowGroup] = [:]
    /// Whether ``build()`` groups the windows many values share (the tests turn it off for a reference).
    var groupsCommonWindows = true

    static let lengthMask: UInt32 = 0x1F
    static let windowFlag: UInt32 = 0x20
    static let tagShift: UInt32 = 6
    static let filterBits = 24
    static let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// One bit per value of the first two bytes.
    var pairFilter = [UInt64](repeating: 0, count: 1 << (16 - 6))
    /// One bit per hash of the first four bytes.
    var prefixFilter = [UInt64](repeating: 0, count: 1 << (filterBits - 6))
    /// One bit per hash of a key.
    var keyFilter = [UInt64](repeating: 0, count: 1 << (filterBits - 6))
    /// Bit K set when a pattern of K bytes exists.
    var lengthsPresent: UInt64 = 0
    var maximumLength = 0

    /// Patterns: once built, the distinct ones.
    var count: Int { starts.count }
    var isEmpty: Bool { starts.isEmpty }
    /// Bytes of the values added (equal short ones counted until built).
    var arenaBytes: Int { arena.count }
    /// Long values, equal ones once (once built).
    var longValueCount = 0

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
        guard shapes[pattern] & Self.windowFlag != 0 else { return Origin(column: owner & Int(WholeValue.columnMask), longValue: nil, offset: 0) }
        return Origin(column: Int(longColumns[owner] & WholeValue.columnMask), longValue: owner, offset: Int(starts[pattern] - longStarts[owner]))
    }

    /// Whether a pattern stands for a value of `column` (a rule's index): its
    /// own, or a tracked column's value equal to it.
    func isValue(_ pattern: Int, of column: Int) -> Bool {
        let origin = origin(of: pattern)
        if origin.column == column { return true }
        let key = UInt64(origin.longValue ?? pattern) << 32 | UInt64(column)
        let shared = origin.longValue == nil ? sharedShort : sharedLong
        var low = 0, high = shared.count
        while low < high {
            let middle = (low + high) / 2
            if shared[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < shared.count && shared[low] == key
    }

    /// How the value a pattern stands for is encoded.
    func form(of pattern: Int) -> WholeValue.Form {
        WholeValue.form(ofTagged: isWindow(pattern) ? longColumns[Int(owners[pattern])] : owners[pattern])
    }

    /// Whether a pattern is a short value of fewer than `wholeBelow` code units
    /// (bytes, or in UTF-16 two-byte units): found only where it stands whole.
    func isJudgedWhole(_ pattern: Int, below wholeBelow: Int) -> Bool {
        guard shapes[pattern] & Self.windowFlag == 0 else { return false }
        return Int(shapes[pattern] & Self.lengthMask) / form(of: pattern).unit < wholeBelow
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
    static let initialHash: UInt64 = 0xCBF2_9CE4_8422_2325

    /// The running hash, one word more.
    @inline(__always)
    static func step(_ running: UInt64, _ word: UInt64) -> UInt64 {
        let hash = (running ^ word) &* 0xFF51_AFD7_ED55_8CCD
        return hash ^ (hash >> 32)
    }

    /// The hash of a key: its whole words' running hash, the word of the bytes after them, its length.
    @inline(__always)
    static func finish(_ running: UInt64, _ tail: UInt64, length: Int) -> UInt64 {
        var hash = (running &* multiplier) ^ tail ^ (UInt64(length) << 56)
        hash = hash &* 0xBF58_476D_1CE4_E5B9
        hash ^= hash >> 31
        hash = hash &* 0x94D0_49BB_1331_11EB
        return hash ^ (hash >> 29)
    }

    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
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
    func bucket(_ hash: UInt64) -> Int { Self.bucket(hash, bits: bucketBits) }

    /// The bucket of `hash` among `1 << bits`: its top bits. Static, for a loop
    /// that holds the index's own arrays while it places patterns.
    @inline(__always)
    static func bucket(_ hash: UInt64, bits: Int) -> Int { Int(truncatingIfNeeded: hash >> UInt64(64 - bits)) }

    @inline(__always)
    static func bit(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash >> UInt64(64 - filterBits)) }

    @inline(__always)
    static func prefixBit(_ prefix: UInt32) -> Int { bit(UInt64(prefix) &* multiplier) }

    /// The tag of a shape: 26 bits of the key's hash (bits the bucket does not use).
    @inline(__always)
    static func tag(_ hash: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: hash) << tagShift }

    @inline(__always)
    static func isSet(_ bits: UnsafeBufferPointer<UInt64>, _ bit: Int) -> Bool { bits[bit >> 6] & (1 << UInt64(bit & 63)) != 0 }

    // MARK: - Adding

    /// Adds a replaced value of ``minimumBytes`` or more, of column `column`:
    /// whole when shorter than ``runBytes``, else by its windows.
    /// - Parameter column: the rule's index, tagged with the value's form
    ///   (``WholeValue/tagged(_:_:)``; an untagged index is UTF-8 text).
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

    mutating func addPattern(at start: Int, _ bytes: UnsafeRawBufferPointer, owner: UInt32, window: Bool) {
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
}
