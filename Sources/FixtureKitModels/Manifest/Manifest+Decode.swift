import Foundation
import FixtureKitSystem

extension Manifest {
    /// Reads a manifest.json: strict JSON first (``JSONSyntax``: a fault is told
    /// with its line and column), then the manifest's keys.
    package static func decode(_ bytes: [UInt8]) throws -> Manifest {
        try JSONSyntax.check(bytes)
        return try JSONDecoderFactory.decoder().decode(Manifest.self, from: Data(bytes))
    }

    /// Reads a manifest.json, or `nil` when it is a JSON object without fixturekit's
    /// `format` key: another tool's file of the same name.
    package static func decodeIfWrittenByFixtureKit(_ bytes: [UInt8]) throws -> Manifest? {
        if let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any], object["format"] == nil {
            return nil
        }
        return try decode(bytes)
    }
}
