import Foundation
import FixtureKitSystem

/// JSON with sorted keys and fixed formatting: the same value always gives the
/// same bytes, as manifests and hashes need.
package enum CanonicalJSON {
    /// Compact JSON, for hashing and ordering.
    static func encode<Value: Encodable>(_ value: Value) -> String {
        String(decoding: data(value, pretty: false), as: UTF8.self)
    }

    /// Indented JSON and a final line feed, for files people read (manifest.json).
    package static func file<Value: Encodable>(_ value: Value) -> [UInt8] {
        Array(data(value, pretty: true)) + [UInt8(ascii: "\n")]
    }

    private static func data<Value: Encodable>(_ value: Value, pretty: Bool) -> Data {
        // The library's types hold only strings, numbers, booleans and arrays of them.
        (try? encoder(pretty: pretty).encode(value)) ?? Data("null".utf8)
    }

    /// The one configuration of Foundation's encoder that fixturekit's JSON is written with.
    private static func encoder(pretty: Bool) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.dataEncodingStrategy = .base64
        return encoder
    }

    /// JSON strings as the canonical encoder writes them (`"a/b"`, `"say \"hi\""`,
    /// `"\u0001"`), for a writer that lays out a document itself (`sql --json`):
    /// one encoder for every string of it (Foundation's takes under a microsecond a string).
    package final class Strings {
        private let encoder = CanonicalJSON.encoder(pretty: false)

        package init() {}

        /// `text` as a JSON string, quotes included.
        package func quoted(_ text: String) -> String {
            // A string always encodes.
            String(decoding: (try? encoder.encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
        }
    }
}

/// The decoder every JSON file fixturekit reads goes through.
package enum JSONDecoderFactory {
    package static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dataDecodingStrategy = .base64
        return decoder
    }
}

extension JSONDecoderFactory {
    /// One line saying what is wrong with a JSON file, from a decoding error.
    package static func describe(_ error: any Error) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            guard !keys.isEmpty else { return "the top level" }
            var text = ""
            for key in keys {
                if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
            }
            return text
        }
        switch error {
        case let fault as JSONSyntax.Fault:
            return fault.description
        case DecodingError.keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "\(path(context.codingPath)) has the wrong type"
        case DecodingError.dataCorrupted(let context):
            // A type's own check says what it wants (`anonymize must be a rules file or false`).
            return context.codingPath.isEmpty ? "not valid JSON" : "\(path(context.codingPath)) \(context.debugDescription)"
        default:
            return "not valid JSON"
        }
    }
}
