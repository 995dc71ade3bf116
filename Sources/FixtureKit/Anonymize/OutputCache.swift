import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

/// A direct-mapped cache of keyed outputs: real data repeats (names, cities,
/// the e-mail of every order of one customer), and a repeated value then costs
/// no HMAC. An owner whose values hardly repeat stops using it.
///
/// One flat allocation of fixed-size slots (a key and its output, each up to
/// ``maximumBytes``; longer ones are not cached), made on the first store: a
/// lookup or a store copies bytes and allocates nothing.
struct OutputCache {
    static let slotCount = 1 << 16
    /// The longest key, and the longest output, a slot holds.
    static let maximumBytes = 64
    /// Lookups of one owner before its hit rate is judged.
    static let probation = 4096
    /// An owner needs at least one hit in this many lookups to keep the cache.
    static let minimumHitRatio = 16

    /// Whose outputs a slot holds: rules with the same ``Identity`` share one.
    struct Owner: Hashable {
        /// Dense, from 0: the place of the owner's counters.
        fileprivate let number: Int
    }

    /// What makes two rules' outputs the same for the same input: the
    /// derivation prefix and the parameters of the rendering (a pseudonym's
    /// format and length, a shift-date's window and unit).
    struct Identity: Hashable {
        var derivationPrefix: [UInt8]
        var parameters: String
    }

    /// Gives each distinct ``Identity`` its ``Owner``.
    struct Owners {
        private var numbers: [Identity: Int] = [:]

        mutating func owner(_ identity: Identity) -> Owner {
            if let number = numbers[identity] { return Owner(number: number) }
            let number = numbers.count
            numbers[identity] = number
            return Owner(number: number)
        }
    }

    /// Per slot: owner + 1 (0: empty), key length, output length.
    private static let headerBytes = 16
    private static let slotBytes = headerBytes + 2 * maximumBytes

    private var slots: UnsafeMutableRawPointer?
    /// Lookups and hits by owner during its probation, and whether it gave up on the cache.
    private var lookups: [Int] = []
    private var hits: [Int] = []
    private var disabled: [Bool] = []

    /// Frees the slots; the cache is empty afterwards.
    mutating func release() {
        slots?.deallocate()
        slots = nil
    }

    /// The slot of a value: the top bits of a hash read eight bytes at a time
    /// (``ValueHash``), which every byte of the value reaches.
    @inline(__always)
    private static func slot(_ owner: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let hash = ValueHash.hash(UnsafeRawBufferPointer(bytes), seed: UInt64(truncatingIfNeeded: owner))
        return Int(truncatingIfNeeded: hash >> 48) & (slotCount - 1)
    }

    private func isDisabled(_ owner: Int) -> Bool { owner < disabled.count && disabled[owner] }

    /// The slot holding `bytes`' output for `owner`, if cached.
    mutating func lookup(_ owner: Owner, _ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let owner = owner.number
        if owner >= lookups.count {
            lookups += Array(repeating: 0, count: owner + 1 - lookups.count)
            hits += Array(repeating: 0, count: owner + 1 - hits.count)
            disabled += Array(repeating: false, count: owner + 1 - disabled.count)
        }
        guard !disabled[owner] else { return nil }
        let slot = Self.slot(owner, bytes)
        var hit = false
        if let slots, bytes.count <= Self.maximumBytes {
            let base = slots + slot * Self.slotBytes
            hit = base.load(as: Int32.self) == Int32(truncatingIfNeeded: owner + 1)
                && Int(base.load(fromByteOffset: 4, as: Int32.self)) == bytes.count
                && (bytes.isEmpty || Memory.equal(base + Self.headerBytes, bytes.baseAddress!, count: bytes.count))
        }
        // Counted during the probation only: the arrays are not written afterwards.
        if lookups[owner] < Self.probation {
            lookups[owner] += 1
            if hit { hits[owner] += 1 }
            if lookups[owner] == Self.probation && hits[owner] * Self.minimumHitRatio < lookups[owner] { disabled[owner] = true }
        }
        return hit ? slot : nil
    }

    /// The output a slot that ``lookup(_:_:)`` returned holds.
    func output(_ slot: Int) -> UnsafeBufferPointer<UInt8> {
        let base = slots! + slot * Self.slotBytes
        let count = Int(base.load(fromByteOffset: 8, as: Int32.self))
        return UnsafeBufferPointer(start: (base + Self.headerBytes + Self.maximumBytes).assumingMemoryBound(to: UInt8.self), count: count)
    }

    mutating func store(_ owner: Owner, _ bytes: UnsafeBufferPointer<UInt8>, output: UnsafeBufferPointer<UInt8>) {
        let owner = owner.number
        guard !isDisabled(owner), bytes.count <= Self.maximumBytes, output.count <= Self.maximumBytes else { return }
        if slots == nil {
            slots = .allocate(byteCount: Self.slotCount * Self.slotBytes, alignment: 16)
            for slot in 0..<Self.slotCount { (slots! + slot * Self.slotBytes).storeBytes(of: 0, as: Int32.self) }
        }
        let base = slots! + Self.slot(owner, bytes) * Self.slotBytes
        base.storeBytes(of: Int32(truncatingIfNeeded: owner + 1), as: Int32.self)
        base.storeBytes(of: Int32(bytes.count), toByteOffset: 4, as: Int32.self)
        base.storeBytes(of: Int32(output.count), toByteOffset: 8, as: Int32.self)
        if let key = bytes.baseAddress { (base + Self.headerBytes).copyMemory(from: key, byteCount: bytes.count) }
        if let value = output.baseAddress { (base + Self.headerBytes + Self.maximumBytes).copyMemory(from: value, byteCount: output.count) }
    }
}
