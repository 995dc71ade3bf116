import Synchronization
import FixtureKitSystem
import FixtureKitSQLite

/// Keyed outputs computed ahead on a second thread, from a second reading of the store.
///
/// HMAC-SHA-256 is most of what the SQL functions cost on the thread that runs
/// the UPDATE. An UPDATE without `where` visits a table's rows in rowid order,
/// so another thread can read the same values from the store as it was copied,
/// in that order, and compute their pseudonyms and fakes first. The SQL
/// function takes such an output only when it was computed from exactly the
/// bytes it was called with, for the same rule and the same place in the
/// sequence of the rule's text values; anything else (a thread that fell
/// behind, a copy that differs, a value too long) is computed on the spot as
/// before. The outputs are the same whatever the second thread does.
///
/// Per rule, outputs wait in a ring of ``capacity`` slots: the second thread
/// writes a slot, then publishes the count it produced; the SQL function reads
/// it, then publishes the count it consumed (release and acquire orderings).
/// Each count has a cache line of its own, and the SQL function reads the
/// produced count again only once it has taken what it knew of, and publishes
/// its counts every ``publishInterval`` values: a line that moves between the
/// cores costs about as much as the rest of the function.
final class KeyedPrefetch: @unchecked Sendable {
    /// Values and outputs longer than this are computed on the spot.
    static let maximumBytes = 64
    /// Outputs waiting per rule.
    static let capacity = 4096
    /// A slot: the value's sequence number, its length, the output's length, the value, the output.
    private static let slotBytes = 16 + 2 * maximumBytes
    /// The SQL function publishes how far it got every this many values.
    static let publishInterval = 256
    /// Atomics a ring has: `produced` alone in a cache line, `consumed` and `seen` in another.
    private static let stride = 16

    /// One UPDATE statement's rules whose outputs are computed ahead.
    struct Statement {
        var table: String
        var rules: [BoundRule]
    }

    /// For each rule index, its ring's number, or -1.
    private let ringOf: UnsafeMutableBufferPointer<Int>
    private let slots: UnsafeMutableRawPointer
    /// Per ring, ``stride`` atomics: at 0 the outputs produced, at 8 those
    /// consumed, at 9 how many of the rule's text values the SQL function has
    /// seen (published every ``publishInterval``).
    private let counts: UnsafeMutablePointer<Atomic<Int>>
    /// Per ring, what only the SQL function's thread uses: the produced count it
    /// read last, its consumed count, and the consumed and seen counts it published last.
    private let local: UnsafeMutablePointer<(produced: Int, consumed: Int, publishedConsumed: Int, publishedSeen: Int)>
    private let ringCount: Int
    /// Outputs the SQL function took; read on its thread.
    private let takenCount = ownLines(Int.self, count: 1)
    var taken: Int { takenCount.pointee }
    private let stopping = Atomic<Bool>(false)
    private let stage = BackgroundStage()

    /// Starts the second thread: it reads the store set's main file in `source`
    /// where it is when it is the set's whole content, and otherwise copies the
    /// files `names` into `folder` (created, and removed by ``stop()``) and
    /// reads them there.
    init(statements: [Statement], ruleCount: Int, hmac: HMACSHA256, source: String, names: [String], storeName: String, folder: String) {
        ringOf = .allocate(capacity: ruleCount)
        ringOf.initialize(repeating: -1)
        var count = 0
        for statement in statements {
            for rule in statement.rules {
                ringOf[rule.index] = count
                count += 1
            }
        }
        ringCount = count
        takenCount.initialize(to: 0)
        slots = .allocate(byteCount: max(1, count) * Self.capacity * Self.slotBytes, alignment: 64)
        counts = Self.ownLines(Atomic<Int>.self, count: max(1, count) * Self.stride)
        for index in 0..<(max(1, count) * Self.stride) { (counts + index).initialize(to: Atomic(0)) }
        local = Self.ownLines((produced: Int, consumed: Int, publishedConsumed: Int, publishedSeen: Int).self, count: max(1, count))
        local.initialize(repeating: (0, 0, 0, 0), count: max(1, count))
        stage.start { [self] in
            self.run(statements: statements, hmac: hmac, source: source, names: names, storeName: storeName, folder: folder)
        }
    }

    /// Memory for `count` values in cache lines of their own: the rings' atomics,
    /// and what only the SQL function's thread writes, for every value. In a line
    /// that the second thread used too, each of those writes waited for the line
    /// to come back (about 5% of the UPDATE's thread in a profile).
    private static func ownLines<Value: ~Copyable>(_: Value.Type, count: Int) -> UnsafeMutablePointer<Value> {
        let lines = (count * MemoryLayout<Value>.stride + 63) / 64
        return UnsafeMutableRawPointer.allocate(byteCount: lines * 64, alignment: 64).bindMemory(to: Value.self, capacity: count)
    }

    deinit {
        stop()
        ringOf.deallocate()
        slots.deallocate()
        counts.deinitialize(count: max(1, ringCount) * Self.stride)
        counts.deallocate()
        local.deallocate()
        takenCount.deallocate()
    }

    /// Stops the second thread and waits for it; its copy of the store is removed.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        stage.drain()
    }

    // MARK: - The SQL function's side

    private func produced(_ ring: Int) -> UnsafeMutablePointer<Atomic<Int>> { counts + ring * Self.stride }
    private func consumed(_ ring: Int) -> UnsafeMutablePointer<Atomic<Int>> { counts + ring * Self.stride + 8 }
    private func seen(_ ring: Int) -> UnsafeMutablePointer<Atomic<Int>> { counts + ring * Self.stride + 9 }

    /// Takes the output computed ahead for the `sequence`th text value of rule
    /// `rule` (counted from 0), if it was computed from `input`, and appends it
    /// to `output`. Every text value of a rule that is computed ahead must come
    /// here or to ``skip(rule:sequence:)``, in order.
    @inline(__always)
    func take(rule: Int, sequence: Int, input: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) -> Bool {
        let ring = ringOf[rule]
        guard ring >= 0 else { return false }
        publishSeen(ring, sequence)
        var taken = local[ring].consumed
        var found = false
        while true {
            if taken == local[ring].produced {
                local[ring].produced = produced(ring).pointee.load(ordering: .acquiring)
                if taken == local[ring].produced { break }
            }
            let slot = slots + (ring * Self.capacity + taken % Self.capacity) * Self.slotBytes
            let slotSequence = slot.load(as: Int.self)
            if slotSequence > sequence { break }
            taken += 1
            guard slotSequence == sequence else { continue }
            let inputCount = Int(slot.load(fromByteOffset: 8, as: Int32.self))
            if inputCount == input.count, Memory.equal(slot + 16, input.baseAddress!, count: inputCount) {
                let outputCount = Int(slot.load(fromByteOffset: 12, as: Int32.self))
                output.append(contentsOf: UnsafeRawBufferPointer(start: slot + 16 + Self.maximumBytes, count: outputCount))
                takenCount.pointee += 1
                found = true
            }
            break
        }
        local[ring].consumed = taken
        if taken - local[ring].publishedConsumed >= Self.publishInterval {
            consumed(ring).pointee.store(taken, ordering: .releasing)
            local[ring].publishedConsumed = taken
        }
        return found
    }

    /// Counts a text value of `rule` that the SQL function handled without ``take(rule:sequence:input:into:)``.
    @inline(__always)
    func skip(rule: Int, sequence: Int) {
        let ring = ringOf[rule]
        if ring >= 0 { publishSeen(ring, sequence) }
    }

    @inline(__always)
    private func publishSeen(_ ring: Int, _ sequence: Int) {
        if sequence + 1 - local[ring].publishedSeen >= Self.publishInterval {
            seen(ring).pointee.store(sequence + 1, ordering: .relaxed)
            local[ring].publishedSeen = sequence + 1
        }
    }

    /// Tells the second thread that the SQL function is done with `rules`: it
    /// computes nothing more for them.
    func finished(_ rules: [BoundRule]) {
        for rule in rules where ringOf[rule.index] >= 0 {
            let ring = ringOf[rule.index]
            consumed(ring).pointee.store(local[ring].consumed, ordering: .releasing)
            seen(ring).pointee.store(.max, ordering: .relaxed)
        }
    }

    /// Outputs of `rule` computed and not taken yet.
    func waiting(rule: Int) -> Int {
        let ring = ringOf[rule]
        guard ring >= 0 else { return 0 }
        return produced(ring).pointee.load(ordering: .acquiring) - local[ring].consumed
    }

    // MARK: - The second thread

    /// Whether the store set's content is its main file's: no `-wal` with frames,
    /// no `-journal` to roll back (a `-shm` alone holds no content).
    static func isMainFileAlone(source: String, names: [String], storeName: String) -> Bool {
        names.allSatisfy { name in
            if name == storeName || name == storeName + "-shm" { return true }
            guard name == storeName + "-wal", let info = try? POSIX.lstat(source.appendingPath(name)) else { return false }
            return info.size == 0
        }
    }

    private func run(statements: [Statement], hmac: HMACSHA256, source: String, names: [String], storeName: String, folder: String) {
        defer { ScratchFolder.remove(folder) }
        let database: Database
        do {
            if Self.isMainFileAlone(source: source, names: names, storeName: storeName) {
                // Nothing to replay: the main file is read where it is, never written
                // (immutable: no lock, no -shm). Should it change meanwhile, its values
                // differ from the working copy's and are not taken.
                database = try Database(path: Database.fileURI(source.appendingPath(storeName)) + "?immutable=1", options: .init(readOnly: true, uri: true, busyTimeout: 0))
            } else {
                try POSIX.createFolder(folder, mode: 0o700)
                for name in names { _ = try FileCopy.copy(from: source.appendingPath(name), to: folder.appendingPath(name), sync: false) }
                database = try Database(path: folder.appendingPath(storeName), options: .init(busyTimeout: 0))
            }
        } catch {
            return
        }
        defer { try? database.close() }
        var cache = OutputCache()
        defer { cache.release() }
        var output: [UInt8] = []
        output.reserveCapacity(4096)
        var fold: [UInt8] = []
        var message = [UInt8](repeating: 0, count: 4096)
        var digest = [UInt8](repeating: 0, count: HMACSHA256.byteCount)
        for statement in statements {
            let columns = statement.rules.map { quotedIdentifier($0.column) }.joined(separator: ", ")
            guard let select = try? database.prepare("SELECT \(columns) FROM \(quotedIdentifier(statement.table)) ORDER BY rowid") else { continue }
            let rings = statement.rules.map { ringOf[$0.index] }
            // Read in place: a copy of a plan per value (its strategy's payload
            // retained and released) was 1.5% of the run's samples.
            let plans = UnsafeMutableBufferPointer<AnonymizationSession.TextRule>.allocate(capacity: statement.rules.count)
            _ = plans.initialize(from: statement.rules.map(AnonymizationSession.TextRule.init))
            defer {
                for plan in plans { plan.prefix.deallocate() }
                plans.deinitialize()
                plans.deallocate()
            }
            var sequences = [Int](repeating: 0, count: rings.count)
            while (try? select.step()) == true {
                if stopping.load(ordering: .relaxed) { return }
                for (column, ring) in rings.enumerated() {
                    guard select.columnStorageClass(column) == .text else { continue }
                    let sequence = sequences[column]
                    sequences[column] += 1
                    // The SQL function is past it already.
                    guard sequence >= seen(ring).pointee.load(ordering: .relaxed) else { continue }
                    let input = select.columnText(column)
                    guard !input.isEmpty, input.count <= Self.maximumBytes else { continue }
                    let plan = plans.baseAddress! + column
                    // A value met before is in the SQL function's cache too (the two
                    // caches see the same values in the same order): it never comes
                    // to take this slot, which would hold up the ring.
                    if cache.lookup(plan.pointee.outputs, input) != nil { continue }
                    output.removeAll(keepingCapacity: true)
                    switch plan.pointee.strategy {
                    case .pseudonym, .fake: break
                    default: continue
                    }
                    let ok = ValueTransforms.keyedText(plan.pointee.strategy, input: input, attempt: 0, fold: &fold, into: &output) { value, attempt in
                        Self.stream(hmac, prefix: plan.pointee.prefix, attempt: attempt, input: value, message: &message, digest: &digest)
                    }
                    guard ok else { return }
                    output.withUnsafeBufferPointer { cache.store(plan.pointee.outputs, input, output: $0) }
                    guard output.count <= Self.maximumBytes else { continue }
                    // Wait for room, unless the SQL function gets past this value meanwhile.
                    let written = produced(ring).pointee.load(ordering: .relaxed)
                    var passed = false
                    while written - consumed(ring).pointee.load(ordering: .acquiring) >= Self.capacity {
                        if stopping.load(ordering: .relaxed) { return }
                        if sequence < seen(ring).pointee.load(ordering: .relaxed) {
                            passed = true
                            break
                        }
                        POSIX.pause(microseconds: 100)
                    }
                    guard !passed else { continue }
                    let slot = slots + (ring * Self.capacity + written % Self.capacity) * Self.slotBytes
                    slot.storeBytes(of: sequence, as: Int.self)
                    slot.storeBytes(of: Int32(input.count), toByteOffset: 8, as: Int32.self)
                    slot.storeBytes(of: Int32(output.count), toByteOffset: 12, as: Int32.self)
                    (slot + 16).copyMemory(from: input.baseAddress!, byteCount: input.count)
                    output.withUnsafeBytes { if let base = $0.baseAddress { (slot + 16 + Self.maximumBytes).copyMemory(from: base, byteCount: $0.count) } }
                    produced(ring).pointee.store(written + 1, ordering: .releasing)
                }
            }
        }
    }

    /// The keyed stream of a prefix, an attempt and a value, as ``AnonymizationSession`` computes it.
    private static func stream(_ hmac: HMACSHA256, prefix: UnsafeRawBufferPointer, attempt: UInt32, input: UnsafeRawBufferPointer, message: inout [UInt8], digest: inout [UInt8]) -> KeyedStream? {
        let length = prefix.count + 4 + input.count
        if message.count < length { message = [UInt8](repeating: 0, count: length) }
        let ok = message.withUnsafeMutableBytes { message in
            message.baseAddress!.copyMemory(from: prefix.baseAddress!, byteCount: prefix.count)
            (message.baseAddress! + prefix.count).storeBytes(of: attempt.bigEndian, as: UInt32.self)
            if let base = input.baseAddress { (message.baseAddress! + prefix.count + 4).copyMemory(from: base, byteCount: input.count) }
            return digest.withUnsafeMutableBufferPointer { hmac.authenticate(UnsafeRawBufferPointer(start: message.baseAddress, count: length), into: $0.baseAddress!) }
        }
        guard ok else { return nil }
        return digest.withUnsafeBufferPointer { KeyedStream(digest: $0.baseAddress!) }
    }
}
