import CCrypto
import FixtureKitSystem

/// A SHA-256 digest: 32 bytes, shown as 64 lowercase hexadecimal digits.
public struct SHA256Digest: Hashable, Sendable, CustomStringConvertible {
    package static let byteCount = 32
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }

    /// For bytes already known to be 32 long.
    package init(checkedBytes: [UInt8]) { self.bytes = checkedBytes }

    /// Parses 64 hexadecimal digits, either case.
    package init?<Digits: Collection>(hex: Digits) where Digits.Element == UInt8 {
        guard hex.count == Self.byteCount * 2 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.byteCount)
        var high: UInt8?
        for character in hex {
            guard let nibble = Self.nibble(character) else { return nil }
            if let value = high {
                bytes.append(value << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        self.bytes = bytes
    }

    public init?(hex: String) { self.init(hex: Array(hex.utf8)) }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The 64 lowercase hexadecimal digits.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    public var description: String { hex }
}

/// Incremental SHA-256 through libcrypto's EVP interface (SHA-NI where the CPU has it).
///
/// Owns one `EVP_MD_CTX`; not `Sendable`: use one per thread.
public final class SHA256 {
    private let context: OpaquePointer

    /// The algorithm, fetched once: an implicit fetch on every `EVP_DigestInit_ex`
    /// costs a provider look-up per file.
    nonisolated(unsafe) private static let algorithm: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil)

    public init() throws(CryptoError) {
        guard let algorithm = Self.algorithm else { throw CryptoError("EVP_MD_fetch") }
        guard let context = EVP_MD_CTX_new() else { throw CryptoError("EVP_MD_CTX_new") }
        self.context = context
        guard EVP_DigestInit_ex(context, algorithm, nil) == 1 else { throw CryptoError("EVP_DigestInit_ex") }
    }

    deinit { EVP_MD_CTX_free(context) }

    public func update(_ bytes: UnsafeRawBufferPointer) throws(CryptoError) {
        guard bytes.count > 0 else { return }
        guard EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1 else { throw CryptoError("EVP_DigestUpdate") }
    }

    public func update(_ bytes: [UInt8]) throws(CryptoError) {
        guard !bytes.isEmpty else { return }
        let ok = bytes.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, $0.count) == 1 }
        guard ok else { throw CryptoError("EVP_DigestUpdate") }
    }

    /// The digest of everything given so far; the hasher starts over afterwards.
    public func finalize() throws(CryptoError) -> SHA256Digest {
        var output = [UInt8](repeating: 0, count: SHA256Digest.byteCount)
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &output, &length) == 1, length == 32 else { throw CryptoError("EVP_DigestFinal_ex") }
        guard EVP_DigestInit_ex(context, Self.algorithm, nil) == 1 else { throw CryptoError("EVP_DigestInit_ex") }
        // 32 bytes, checked above.
        return SHA256Digest(checkedBytes: output)
    }

    /// The digest of `bytes`.
    public static func hash(_ bytes: [UInt8]) throws(CryptoError) -> SHA256Digest {
        let hasher = try SHA256()
        try hasher.update(bytes)
        return try hasher.finalize()
    }
}
