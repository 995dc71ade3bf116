import Foundation
import Testing
@testable import FixtureKitModels

/// Canonical JSON: the same value gives the same bytes, whatever the order its
/// keys were inserted in; checked byte for byte.
@Suite struct CanonicalJSONTests {
    struct Keys: Encodable {
        var b = 1
        var a = 2
        var B = 3
        var _z = 4
        var a10 = 5
        var a9 = 6
        var é = 7
        var Z = 8
    }

    @Test func sortsKeys() {
        #expect(CanonicalJSON.encode(Keys()) == #"{"B":3,"Z":8,"_z":4,"a":2,"a10":5,"a9":6,"b":1,"é":7}"#)
        // A dictionary's own order does not show.
        let forward = Dictionary(uniqueKeysWithValues: (0..<50).map { ("key\($0)", $0) })
        let backward = Dictionary(uniqueKeysWithValues: (0..<50).reversed().map { ("key\($0)", $0) })
        #expect(CanonicalJSON.encode(forward) == CanonicalJSON.encode(backward))
        #expect(CanonicalJSON.encode(["b": ["y": 1, "x": 2], "a": ["d": 3, "c": 4]]) == #"{"a":{"c":4,"d":3},"b":{"x":2,"y":1}}"#)
    }

    @Test func escapesOnlyWhatJSONRequires() {
        #expect(CanonicalJSON.encode(["s": "a/b"]) == #"{"s":"a/b"}"#)
        #expect(CanonicalJSON.encode(["s": "quote \" backslash \\"]) == #"{"s":"quote \" backslash \\"}"#)
        #expect(CanonicalJSON.encode(["s": "\n\r\t\u{8}\u{c}"]) == #"{"s":"\n\r\t\b\f"}"#)
        #expect(CanonicalJSON.encode(["s": "\u{0}\u{1}\u{1f}\u{7f}"]) == "{\"s\":\"\\u0000\\u0001\\u001f\u{7f}\"}")
        #expect(CanonicalJSON.encode(["s": "é😀\u{2028}"]) == "{\"s\":\"é😀\u{2028}\"}")
        #expect(CanonicalJSON.encode(["a\"b": 1]) == #"{"a\"b":1}"#)
    }

    struct Numbers: Encodable {
        var zero = 0
        var negative = -1
        var large = Int64.max
        var unsigned = UInt64.max
        var half = 0.5
        var tenth = 0.1
        var whole = 2.0
        var huge = 1e300
        var tiny = Double.leastNonzeroMagnitude
        var negativeZero = -0.0
        var flag = true
        var missing: Int? = nil
        var null: Int?? = .some(nil)
    }

    @Test func writesNumbersExactly() {
        #expect(CanonicalJSON.encode(Numbers()) == #"{"flag":true,"half":0.5,"huge":1e+300,"large":9223372036854775807,"negative":-1,"negativeZero":-0,"null":null,"tenth":0.1,"tiny":5e-324,"unsigned":18446744073709551615,"whole":2,"zero":0}"#)
    }

    @Test func writesBytesAsBase64() {
        #expect(CanonicalJSON.encode(["d": Data([0, 1, 2, 0xFF])]) == #"{"d":"AAEC/w=="}"#)
    }

    struct File: Encodable {
        var name = "App"
        var list = [1, 2]
        var empty: [Int] = []
        var nested = ["k": "v"]
        var none: [String: Int] = [:]
    }

    @Test func writesAFileIndentedWithAFinalLineFeed() {
        let expected = """
            {
              "empty" : [

              ],
              "list" : [
                1,
                2
              ],
              "name" : "App",
              "nested" : {
                "k" : "v"
              },
              "none" : {

              }
            }

            """
        #expect(CanonicalJSON.file(File()) == Array(expected.utf8))
    }

    @Test func sameValueSameBytes() {
        let value = ["x": [3, 2, 1], "y": [], "w": [0]]
        let first = CanonicalJSON.file(value)
        for _ in 0..<20 { #expect(CanonicalJSON.file(value) == first) }
    }
}
