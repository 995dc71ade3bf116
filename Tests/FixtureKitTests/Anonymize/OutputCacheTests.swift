import Foundation
import Testing
@testable import FixtureKit

/// The cache of keyed outputs: what is stored is found again, for its owner
/// only, and values that differ in one byte anywhere keep a slot each.
struct OutputCacheTests {
    /// Stores `values` (each its own output, reversed) for `owner`, then looks
    /// each one up: the values found again.
    func storedAndFound(_ values: [String], owner: OutputCache.Owner, in cache: inout OutputCache) -> [String] {
        for value in values {
            let key = Array(value.utf8), output = Array(value.utf8.reversed())
            key.withUnsafeBufferPointer { key in output.withUnsafeBufferPointer { cache.store(owner, key, output: $0) } }
        }
        return values.filter { value in
            Array(value.utf8).withUnsafeBufferPointer { key in
                guard let slot = cache.lookup(owner, key) else { return false }
                return Array(cache.output(slot)) == Array(value.utf8.reversed())
            }
        }
    }

    /// Real data repeats with a counter at its end, its start or its middle
    /// ("Name 1", "1 Name"): a slot taken from hash bits that hardly depend on
    /// some bytes put all such values in a few slots, and a repeated value was
    /// seldom found. Slots are direct-mapped, so two values may still share one
    /// by chance: nearly all must be found, not every one.
    @Test(arguments: ["Name #", "# Name", "user-#-account", String(repeating: "x", count: 40) + "#", "#"])
    func valuesThatDifferInOneByteKeepASlotEach(_ pattern: String) {
        var cache = OutputCache()
        defer { cache.release() }
        var owners = OutputCache.Owners()
        let owner = owners.owner(OutputCache.Identity(derivationPrefix: [1], parameters: ""))
        let values = (0..<200).map { pattern.replacingOccurrences(of: "#", with: String($0)) }
        let found = storedAndFound(values, owner: owner, in: &cache).count
        #expect(found >= 190, "\(found) of \(values.count) found")
    }

    @Test func anOwnerFindsOnlyItsOwnOutputs() {
        var cache = OutputCache()
        defer { cache.release() }
        var owners = OutputCache.Owners()
        let first = owners.owner(OutputCache.Identity(derivationPrefix: [1], parameters: ""))
        let second = owners.owner(OutputCache.Identity(derivationPrefix: [2], parameters: ""))
        #expect(storedAndFound(["Alice", "Bob"], owner: first, in: &cache) == ["Alice", "Bob"])
        #expect(Array("Alice".utf8).withUnsafeBufferPointer { cache.lookup(second, $0) } == nil)
        // Longer than a slot holds: never cached.
        let long = String(repeating: "y", count: OutputCache.maximumBytes + 1)
        #expect(storedAndFound([long], owner: first, in: &cache).isEmpty)
    }
}
