import FixtureKitSystem

/// SQLite's WAL checksum: two 32-bit sums over pairs of 32-bit words, read in
/// the byte order the WAL header's magic names; see `walChecksumBytes` in wal.c.
package struct WALChecksum: Equatable, Sendable {
    package var first: UInt32
    package var second: UInt32

    package static let zero = WALChecksum(first: 0, second: 0)

    /// Folds `bytes` (a multiple of 8 long) into the running checksum.
    func adding(_ bytes: UnsafeRawBufferPointer, bigEndian: Bool) -> WALChecksum {
        var s1 = first
        var s2 = second
        var offset = 0
        let end = bytes.count & ~7
        if bigEndian {
            while offset < end {
                s1 = s1 &+ UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) &+ s2
                s2 = s2 &+ UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)) &+ s1
                offset += 8
            }
        } else {
            while offset < end {
                s1 = s1 &+ UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) &+ s2
                s2 = s2 &+ UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)) &+ s1
                offset += 8
            }
        }
        return WALChecksum(first: s1, second: s2)
    }

    package func adding(_ bytes: [UInt8], bigEndian: Bool) -> WALChecksum {
        bytes.withUnsafeBytes { adding($0, bigEndian: bigEndian) }
    }
}
