import CCrypto
import FixtureKitSystem
import FixtureKitCrypto
import FixtureKitModels

/// HMAC-SHA-256 under one key, through libcrypto's `EVP_MAC` interface.
///
/// The key is set once; each message re-initialises the context with the same
/// key (`EVP_MAC_init` with a NULL key "reuses the key previously set", see
/// EVP_MAC(3)), which spares the key schedule per value. Owns its `EVP_MAC_CTX`;
/// not `Sendable`: use one per thread.
final class HMACSHA256 {
    static let byteCount = 32
    private let mac: OpaquePointer
    private let context: OpaquePointer

    /// - Throws: ``CryptoError`` when libcrypto has no HMAC or refuses the key.
    init(key: [UInt8]) throws(CryptoError) {
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
    func duplicate() throws(CryptoError) -> HMACSHA256 {
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
    func begin() -> Bool { EVP_MAC_init(context, nil, 0, nil) == 1 }

    /// Adds bytes to the message.
    func update(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count > 0 else { return true }
        return EVP_MAC_update(context, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count) == 1
    }

    /// Writes the MAC of the message (32 bytes) to `output`.
    func finish(into output: UnsafeMutablePointer<UInt8>) -> Bool {
        var length = 0
        return EVP_MAC_final(context, output, &length, Self.byteCount) == 1 && length == Self.byteCount
    }

    /// Writes the MAC of `message` (32 bytes) to `output`.
    /// - Returns: `false` when libcrypto failed (it does not, short of memory).
    func authenticate(_ message: UnsafeRawBufferPointer, into output: UnsafeMutablePointer<UInt8>) -> Bool {
        begin() && update(message) && finish(into: output)
    }

    /// The MAC of `message`.
    func authenticate(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Self.byteCount)
        let ok = message.withUnsafeBytes { bytes in
            output.withUnsafeMutableBufferPointer { out in begin() && update(bytes) && finish(into: out.baseAddress!) }
        }
        guard ok else { throw CryptoError("EVP_MAC_final") }
        return output
    }
}

/// The secret key, read from the environment variable the rules name.
struct AnonymizationKey {
    /// Shorter keys are refused: a key that can be guessed gives the originals back.
    static let minimumByteCount = 16
    /// The message whose MAC tells keys apart in manifests (``keyCheck``).
    static let checkLabel = Array("fixturekit key check v1".utf8)
    /// Bytes of that MAC recorded: enough to tell keys apart, no more.
    static let checkByteCount = 8

    let hmac: HMACSHA256
    /// The first bytes of the MAC of ``checkLabel``, in hex: the same key gives the
    /// same check; it is not the key and does not give it back.
    let keyCheck: String

    /// Reads the key from `environment[variable]`.
    /// - Throws: ``FixtureKitError`` (exit 2) when it is missing, empty or too short;
    ///   the message names the variable, never its value.
    init(variable: String, environment: [String: String], what: String, path: String) throws(FixtureKitError) {
        guard let value = environment[variable] else {
            throw FixtureKitError(what: what, path: path, why: "no key: the environment variable \(variable) is not set", hint: "export the secret key in \(variable)")
        }
        let key = Array(value.utf8)
        guard !key.isEmpty else {
            throw FixtureKitError(what: what, path: path, why: "no key: the environment variable \(variable) is empty", hint: "export the secret key in \(variable)")
        }
        guard key.count >= Self.minimumByteCount else {
            throw FixtureKitError(
                what: what, path: path, why: "the key in \(variable) is too short: \(key.count) bytes, at least \(Self.minimumByteCount) needed",
                hint: "use a long random secret, e.g. `openssl rand -hex 32`")
        }
        do {
            hmac = try HMACSHA256(key: key)
            keyCheck = SHA256Digest(checkedBytes: try hmac.authenticate(Self.checkLabel)).hex.prefix(Self.checkByteCount * 2).description
        } catch {
            throw FixtureKitError(what: what, path: path, why: error.description)
        }
    }
}
