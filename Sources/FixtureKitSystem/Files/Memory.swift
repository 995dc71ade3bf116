#if canImport(Glibc)
import Glibc
#endif

/// Byte comparisons on raw memory, for the hot loops above the primitives (the
/// leak scan's pattern index, the anonymizer's caches).
package enum Memory {
    /// Whether the `count` bytes at `first` and at `second` are the same (`memcmp`).
    @inlinable
    package static func equal(_ first: UnsafeRawPointer, _ second: UnsafeRawPointer, count: Int) -> Bool {
        memcmp(first, second, count) == 0
    }

    /// How the `count` bytes at `first` order against those at `second`, byte by
    /// byte as unsigned values (`memcmp`): negative, zero or positive.
    @inlinable
    package static func compare(_ first: UnsafeRawPointer, _ second: UnsafeRawPointer, count: Int) -> Int32 {
        memcmp(first, second, count)
    }
}

extension UnsafeRawBufferPointer {
    /// Whether the two hold the same bytes.
    @inlinable
    package func hasSameBytes(as other: UnsafeRawBufferPointer) -> Bool {
        count == other.count && (count == 0 || memcmp(baseAddress!, other.baseAddress!, count) == 0)
    }
}

extension UnsafeBufferPointer where Element == UInt8 {
    /// Whether the two hold the same bytes.
    @inlinable
    package func hasSameBytes(as other: UnsafeBufferPointer<UInt8>) -> Bool {
        UnsafeRawBufferPointer(self).hasSameBytes(as: UnsafeRawBufferPointer(other))
    }
}
