import Foundation
import Testing

/// The part of JSON Schema (2020-12) that docs/fixturekit.schema.json uses:
/// type, properties, additionalProperties, required, items, enum, pattern,
/// uniqueItems, minItems, oneOf, $ref to #/$defs. A keyword it does not know
/// fails the check, so the schema cannot outgrow the validator unseen.
struct JSONSchema {
    let root: [String: Any]

    static let known: Set<String> = [
        "$schema", "$id", "title", "description", "$defs", "type", "properties", "additionalProperties",
        "required", "items", "enum", "pattern", "uniqueItems", "minItems", "oneOf", "$ref",
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "const",
    ]

    /// docs/fixturekit.schema.json of this repository.
    static func configuration() throws -> JSONSchema {
        let path = repositoryRoot
            .appendingPathComponent("docs/fixturekit.schema.json").path
        return try JSONSchema(root: JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any])
    }

    /// Every fault of `value` against the schema, each with its place (`stages[0].frm`).
    func faults(of value: Any) -> [String] { faults(value, root, at: "") }

    /// The faults of the JSON file at `path`.
    func faults(ofFile path: String) throws -> [String] {
        faults(of: try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))))
    }

    private func faults(_ value: Any, _ schema: [String: Any], at place: String) -> [String] {
        var found: [String] = []
        let here = place.isEmpty ? "the top level" : place
        for keyword in schema.keys where !Self.known.contains(keyword) { found.append("\(here): the schema uses \(keyword), which this check does not know") }
        if let reference = schema["$ref"] as? String {
            let name = String(reference.dropFirst("#/$defs/".count))
            guard let definitions = root["$defs"] as? [String: Any], let target = definitions[name] as? [String: Any] else {
                return found + ["\(here): unknown $ref \(reference)"]
            }
            found += faults(value, target, at: place)
        }
        if let type = schema["type"] as? String, !Self.isOfType(value, type) { return found + ["\(here): not of type \(type)"] }
        if let constant = schema["const"], !Self.equal(constant, value) || (constant as? NSNumber).map(Self.isBoolean) != (value as? NSNumber).map(Self.isBoolean) { found.append("\(here): not \(constant)") }
        if let choices = schema["enum"] as? [Any], !choices.contains(where: { Self.equal($0, value) }) { found.append("\(here): not one of the enum") }
        if let number = value as? NSNumber, !(value is String), let bounds = Optional(number.doubleValue) {
            if let minimum = schema["minimum"] as? Double, bounds < minimum { found.append("\(here): below \(minimum)") }
            if let maximum = schema["maximum"] as? Double, bounds > maximum { found.append("\(here): above \(maximum)") }
            if let minimum = schema["exclusiveMinimum"] as? Double, bounds <= minimum { found.append("\(here): not above \(minimum)") }
            if let maximum = schema["exclusiveMaximum"] as? Double, bounds >= maximum { found.append("\(here): not below \(maximum)") }
        }
        if let pattern = schema["pattern"] as? String, let text = value as? String {
            let regex = try! NSRegularExpression(pattern: pattern)
            if regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) == nil { found.append("\(here): \"\(text)\" does not match \(pattern)") }
        }
        if let object = value as? [String: Any] {
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for key in (schema["required"] as? [String] ?? []) where object[key] == nil { found.append("\(here): \(key) is required") }
            for (key, member) in object {
                let memberPlace = place.isEmpty ? key : "\(place).\(key)"
                if let property = properties[key] as? [String: Any] {
                    found += faults(member, property, at: memberPlace)
                } else if let additional = schema["additionalProperties"] as? Bool {
                    if !additional { found.append("\(here): unknown key \(key)") }
                } else if let additional = schema["additionalProperties"] as? [String: Any] {
                    found += faults(member, additional, at: memberPlace)
                }
            }
        }
        if let array = value as? [Any], !(value is [String: Any]) {
            if let minimum = schema["minItems"] as? Int, array.count < minimum { found.append("\(here): fewer than \(minimum) items") }
            if schema["uniqueItems"] as? Bool == true {
                for (index, item) in array.enumerated() where array[..<index].contains(where: { Self.equal($0, item) }) { found.append("\(here): item \(index) repeats") }
            }
            if let items = schema["items"] as? [String: Any] {
                for (index, item) in array.enumerated() { found += faults(item, items, at: "\(place)[\(index)]") }
            }
        }
        if let choices = schema["oneOf"] as? [[String: Any]] {
            let passing = choices.filter { faults(value, $0, at: place).isEmpty }.count
            if passing != 1 { found.append("\(here): matches \(passing) of oneOf, not exactly one") }
        }
        return found
    }

    private static func isOfType(_ value: Any, _ type: String) -> Bool {
        switch type {
        case "object": return value is [String: Any]
        case "array": return value is [Any]
        case "string": return value is String
        case "integer": return (value as? NSNumber).map { !isBoolean($0) && $0.doubleValue == $0.doubleValue.rounded() } ?? false
        case "number": return (value as? NSNumber).map { !isBoolean($0) } ?? false
        case "boolean": return (value as? NSNumber).map(isBoolean) ?? false
        case "null": return value is NSNull
        default: return false
        }
    }

    /// JSONSerialization gives `true` and `false` as NSNumbers of the C type `c` (a char).
    private static func isBoolean(_ number: NSNumber) -> Bool { String(cString: number.objCType) == "c" && (number == true as NSNumber || number == false as NSNumber) }

    private static func equal(_ lhs: Any, _ rhs: Any) -> Bool {
        (lhs as? NSObject).map { $0.isEqual(rhs) } ?? false
    }
}

/// Fails the test with each fault of the configuration at `path` against docs/fixturekit.schema.json.
func expectMatchesSchema(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        let faults = try JSONSchema.configuration().faults(ofFile: path)
        #expect(faults.isEmpty, "\(path): \(faults)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("\(path): \(error)", sourceLocation: sourceLocation)
    }
}
