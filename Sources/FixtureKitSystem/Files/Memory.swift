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

    /// How many bytes from the start are below 0x80 (ASCII), read eight at a time.
    @inlinable
    package var asciiPrefixCount: Int {
        let bytes = UnsafeRawBufferPointer(self)
        var offset = 0
        while offset + 8 <= bytes.count, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
            offset += 8
        }
        while offset < bytes.count, bytes[offset] < 0x80 { offset += 1 }
        return offset
    }

    /// Whether every byte is below 0x80.
    @inlinable
    package var isASCII: Bool { asciiPrefixCount == count }
}
