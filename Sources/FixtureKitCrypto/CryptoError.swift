import CCrypto
import FixtureKitSystem

/// A failure inside libcrypto, with OpenSSL's own reason when it gave one.
public struct CryptoError: Error, CustomStringConvertible, Sendable {
    /// The libcrypto function that failed.
    public package(set) var function: String
    /// OpenSSL's error queue, as text; empty when the queue was empty.
    public package(set) var reason: String

    package init(_ function: String) {
        self.function = function
        var text = ""
        var buffer = [CChar](repeating: 0, count: 256)
        while case let code = ERR_get_error(), code != 0 {
            ERR_error_string_n(code, &buffer, buffer.count)
            if !text.isEmpty { text += "; " }
            text += String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        self.reason = text
    }

    public var description: String {
        reason.isEmpty ? "libcrypto error in \(function)" : "libcrypto error in \(function): \(reason)"
    }
}
