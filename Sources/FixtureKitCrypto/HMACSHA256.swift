import CCrypto
import FixtureKitSystem

/// HMAC-SHA-256 under one key, through libcrypto's `EVP_MAC` interface.
///
/// The key is set once; each message re-initialises the context with the same
/// key (`EVP_MAC_init` with a NULL key "reuses the key previously set", see
/// EVP_MAC(3)), which spares the key schedule per value. Owns its `EVP_MAC_CTX`;
/// not `Sendable`: use one per thread.
package final class HMACSHA256 {
    package static let byteCount = 32
    private let mac: OpaquePointer
    private let context: OpaquePointer

    /// - Throws: ``CryptoError`` when libcrypto has no HMAC or refuses the key.
    package init(key: [UInt8]) throws(CryptoError) {
        guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else { throw CryptoError("EVP_MAC_fetch") }
        guard let context = EVP_MAC_CTX_new(mac) else {
            EVP_MAC_free(mac)
            throw CryptoError("EVP_MAC_CTX_new")
        }
        self.mac = mac
        self.context = context
        let initialised = "digest".withCString { name in
            "SHA256".withCString { digest in
                var parameters = [
                    OSSL_PARAM_construct_utf8_string(name, UnsafeMutablePointer(mutating: digest), 0),
                    OSSL_PARAM_construct_end(),
                ]
                return key.withUnsafeBufferPointer { bytes in
                    EVP_MAC_init(context, bytes.baseAddress, bytes.count, &parameters) == 1
                }
            }
        }
        guard initialised else { throw CryptoError("EVP_MAC_init") }
    }

    private init(mac: OpaquePointer, context: OpaquePointer) {
        self.mac = mac
        self.context = context
    }

    /// Another context under the same key, for another thread (`EVP_MAC_CTX_dup`).
    /// - Throws: ``CryptoError`` when libcrypto cannot copy it.
    package func duplicate() throws(CryptoError) -> HMACSHA256 {
        guard EVP_MAC_up_ref(mac) == 1 else { throw CryptoError("EVP_MAC_up_ref") }
        guard let copy = EVP_MAC_CTX_dup(context) else {
            EVP_MAC_free(mac)
            throw CryptoError("EVP_MAC_CTX_dup")
        }
        return HMACSHA256(mac: mac, context: copy)
    }

    deinit {
        EVP_MAC_CTX_free(context)
        EVP_MAC_free(mac)
    }

    /// Starts a message; the key stays.
    /// - Returns: `false` when libcrypto failed (it does not, short of memory).
    package func begin() -> Bool { EVP_MAC_init(context, nil, 0, nil) == 1 }

    /// Adds bytes to the message.
    package func update(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count > 0 else { return true }
        return EVP_MAC_update(context, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count) == 1
    }

    /// Writes the MAC of the message (32 bytes) to `output`.
    package func finish(into output: UnsafeMutablePointer<UInt8>) -> Bool {
        var length = 0
        return EVP_MAC_final(context, output, &length, Self.byteCount) == 1 && length == Self.byteCount
    }

    /// Writes the MAC of `message` (32 bytes) to `output`.
    /// - Returns: `false` when libcrypto failed (it does not, short of memory).
    package func authenticate(_ message: UnsafeRawBufferPointer, into output: UnsafeMutablePointer<UInt8>) -> Bool {
        begin() && update(message) && finish(into: output)
    }

    /// The MAC of `message`.
    package func authenticate(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Self.byteCount)
        let ok = message.withUnsafeBytes { bytes in
            output.withUnsafeMutableBufferPointer { out in begin() && update(bytes) && finish(into: out.baseAddress!) }
        }
        guard ok else { throw CryptoError("EVP_MAC_final") }
        return output
    }
}
