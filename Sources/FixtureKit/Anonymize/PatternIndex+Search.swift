import FixtureKitSystem

extension PatternIndex {
    // MARK: - Exemptions

    /// The patterns found inside what the rules wrote or the schema, one bit
    /// each (and one more for a short value that stands whole there, see
    /// ``WholeValue``), and for a window how far its run reached there, back and forward.
    struct Exemptions {
        private var bits: [UInt64]
        private var wholeBits: [UInt64]
        private var reach: [UInt32: UInt16] = [:]

        init(count: Int) {
            bits = [UInt64](repeating: 0, count: (count + 63) / 64)
            wholeBits = bits
        }

        /// Marks a pattern found in `run` inside something the rules wrote (or
        /// the schema): a run of the same value found elsewhere within as far is no leak.
        /// - Parameter whole: the value stands whole there.
        mutating func mark(_ pattern: Int, run: Run, window: Bool, whole: Bool = false) {
            bits[pattern >> 6] |= 1 << UInt64(pattern & 63)
            if whole { wholeBits[pattern >> 6] |= 1 << UInt64(pattern & 63) }
            guard window else { return }
            let old = reach[UInt32(pattern)] ?? 0
            reach[UInt32(pattern)] = max(old >> 8, UInt16(run.back)) << 8 | max(old & 0xFF, UInt16(run.forward))
        }

        func contains(_ pattern: Int) -> Bool { bits[pattern >> 6] & (1 << UInt64(pattern & 63)) != 0 }

        /// Whether the rules (or the schema) hold the short value whole.
        func containsWhole(_ pattern: Int) -> Bool { wholeBits[pattern >> 6] & (1 << UInt64(pattern & 63)) != 0 }

        /// Whether a pattern found in `run` is no leak: a short value the rules
        /// wrote, or a window whose run they wrote as far (or farther) both ways.
        func covers(_ pattern: Int, run: Run, window: Bool) -> Bool {
            guard contains(pattern) else { return false }
            guard window, let reached = reach[UInt32(pattern)] else { return true }
            return run.back <= Int(reached >> 8) && run.forward <= Int(reached & 0xFF)
        }
    }

    /// Whether a pattern found in `run` is no leak because the rules wrote it
    /// (or the schema holds it); a value shorter than `wholeBelow` only when
    /// they hold it whole.
    func isExempt(_ pattern: Int, run: Run, wholeBelow: Int) -> Bool {
        isJudgedWhole(pattern, below: wholeBelow) ? exemptions.containsWhole(pattern) : exemptions.covers(pattern, run: run, window: isWindow(pattern))
    }

    /// Whether a short value is exempt whole: `nil` for a window.
    func isWhollyExempt(_ pattern: Int, wholeBelow: Int) -> Bool? {
        isWindow(pattern) ? nil : isJudgedWhole(pattern, below: wholeBelow) ? exemptions.containsWhole(pattern) : exemptions.contains(pattern)
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
                                var next = Int(offsets[bucket])
                                let bucketEnd = Int(offsets[bucket + 1])
                                while next < bucketEnd {
                                    let pattern = next
                                    next += 1
                                    let shape = shapes[pattern]
                                    guard shape & ~Self.windowFlag == wanted else { continue }
                                    // The windows of a group have the same bytes: compared once, their runs looked up.
                                    let group = isGroupHead(pattern) ? windowGroups[UInt32(pattern)]?.count ?? 1 : 1
                                    guard Memory.equal(arenaBase + Int(starts[pattern]), base + position, count: length) else {
                                        next = pattern + group
                                        continue
                                    }
                                    guard group == 1 else {
                                        next = pattern + group
                                        for member in groupMembers(pattern, at: position, in: base, total: total, arena: arenaBase) {
                                            found(member, windowRun(member, at: position, in: bytes, total: total, arena: arenaBase))
                                        }
                                        continue
                                    }
                                    guard shape & Self.windowFlag != 0 else {
                                        found(pattern, Run(start: position, length: length, back: 0, forward: 0))
                                        continue
                                    }
                                    // A window: the run around it, as far as the value's bytes go.
                                    let run = windowRun(pattern, at: position, in: bytes, total: total, arena: arenaBase)
                                    guard run.length >= Self.runBytes else { continue }
                                    found(pattern, run)
                                }
                            }
                            position += 1
                        }
                    }
                }
            }
        }
    }

    /// The run of a window's value around `position`, where the window's bytes
    /// are: as far as the value's bytes go, up to ``reach`` bytes each way.
    @inline(__always)
    func windowRun(_ pattern: Int, at position: Int, in bytes: UnsafePointer<UInt8>, total: Int, arena: UnsafePointer<UInt8>) -> Run {
        let long = Int(owners[pattern])
        let valueStart = Int(longStarts[long])
        let patternStart = Int(starts[pattern])
        let before = patternStart - valueStart
        let after = valueStart + Int(longLengths[long]) - patternStart - Self.windowBytes
        var back = 0
        let maximumBack = min(before, Self.reach, position)
        while back < maximumBack && bytes[position - back - 1] == arena[patternStart - back - 1] { back += 1 }
        var forward = 0
        let maximumForward = min(after, Self.reach, total - position - Self.windowBytes)
        while forward < maximumForward && bytes[position + Self.windowBytes + forward] == arena[patternStart + Self.windowBytes + forward] { forward += 1 }
        return Run(start: position - back, length: back + Self.windowBytes + forward, back: back, forward: forward)
    }
}
