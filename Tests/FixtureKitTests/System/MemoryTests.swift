import Testing
import FixtureKitSystem

/// `asciiPrefixCount` reads eight bytes at a time: a byte of 0x80 or more is
/// found at every place of values of every length around a word's, and 0x7F is
/// ASCII; `isASCII` follows it.
@Suite struct MemoryTests {
    @Test func aByteAbove0x7FIsFoundWhereverItIs() {
        for length in 0...33 {
            var bytes = [UInt8](repeating: 0x7F, count: length)
            #expect(bytes.withUnsafeBufferPointer(\.isASCII), "length \(length)")
            #expect(bytes.withUnsafeBufferPointer(\.asciiPrefixCount) == length)
            for place in 0..<length {
                for high: UInt8 in [0x80, 0xC3, 0xFF] {
                    bytes[place] = high
                    #expect(!bytes.withUnsafeBufferPointer(\.isASCII), "length \(length), 0x\(String(high, radix: 16)) at \(place)")
                    #expect(bytes.withUnsafeBufferPointer(\.asciiPrefixCount) == place, "length \(length), 0x\(String(high, radix: 16)) at \(place)")
                    bytes[place] = 0x7F
                }
            }
        }
    }
}
