import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

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
            throw FixtureKitError(what: what, path: path, why: error.description, cause: error)
        }
    }
}
