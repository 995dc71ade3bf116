import Foundation
import Testing
@testable import FixtureKitModels
@testable import FixtureKitSystem

/// The corpus configuration's format errors as values: the JSON fault's line
/// and column, the key that is missing or unknown, the file that cannot be read.
@Suite struct CorpusConfigurationFormatTests {
    static func error(_ text: String) -> FormatError? { error(Array(text.utf8)) }

    static func error(_ bytes: [UInt8]) -> FormatError? {
        do { _ = try CorpusConfiguration.parse(bytes, path: "c/fixturekit.json"); return nil } catch { return error }
    }

    @Test func aSyntaxFaultHasItsLineAndColumn() throws {
        let error = try #require(Self.error("{\"store\": \"App.sqlite\",\n  \"current\": \"1.0.0\",\n}"))
        #expect(error.format == .configuration)
        #expect(error.file == "c/fixturekit.json")
        #expect(error.line == 3)
        #expect(error.column == 1)
        #expect(error.expected == "a trailing comma before \"}\"")
        #expect(error.why == "line 3, column 1: a trailing comma before \"}\"")
        #expect(error.what == "read configuration")
    }

    /// Values the syntax allows that Foundation's parser refuses: each told at
    /// its place, in a value, in an array and as a key.
    @Test(arguments: [
        ("1e400", "the number 1e400 is too large: a JSON number here must fit a 64-bit floating-point number (at most about 1.8e308)"),
        ("-1.8e308", "the number -1.8e308 is too large: a JSON number here must fit a 64-bit floating-point number (at most about 1.8e308)"),
        (String(repeating: "7", count: 5000), "a number of 5000 characters is too large: a JSON number here must fit a 64-bit floating-point number (at most about 1.8e308)"),
        ("\"\u{FFFD}\"", nil),
        ("\"\\ud800\"", "\"\\ud800\" is the first half of a surrogate pair, without the second"),
        ("\"\\uDBFFx\"", "\"\\udbff\" is the first half of a surrogate pair, without the second"),
        ("\"\\ud800\\u0041\"", "\"\\ud800\" is the first half of a surrogate pair, without the second"),
        ("\"\\udc00\"", "\"\\udc00\" is the second half of a surrogate pair, without the first"),
        ("\"\\ud83d\\ude00\"", nil),
        ("1e-400", nil),
    ] as [(String, String?)])
    func everyValueFoundationRefusesIsToldWithItsPlace(value: String, message: String?) throws {
        let isString = value.first == "\""
        var places = [("{\"store\": \"App.sqlite\",\n  \"current\": \"1.0.0\",\n  \"x\": ", 3), ("{\"store\": \"App.sqlite\", \"checks\": [1, ", 1)]
        if isString { places.append(("{\n", 2)) }
        for (before, line) in places {
            let text = before + value + (before.hasSuffix("[1, ") ? "]}" : before.hasSuffix("\n") ? ": 1}" : "}")
            // Columns count characters; a string's fault is at its escape, inside the quotes.
            let column = (before.split(separator: "\n", omittingEmptySubsequences: false).last?.count ?? 0) + (isString ? 2 : 1)
            let refused = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) == nil
            let error = Self.error(text)
            guard let message else {
                #expect(!refused, "\(text)")
                #expect(error?.line == nil, "\(text)")
                continue
            }
            // The class: what Foundation refuses...
            #expect(refused, "\(text)")
            // ...is told at its place.
            #expect(error?.line == line, "\(text)")
            #expect(error?.column == column, "\(text)")
            #expect(error?.expected == message, "\(text)")
        }
    }

    /// Bytes that are not UTF-8 (a stray byte, an overlong form, a UTF-8
    /// surrogate, past U+10FFFF, a cut sequence) in a string, at their place.
    @Test(arguments: [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x80]] as [[UInt8]])
    func bytesThatAreNotUTF8AreToldWithTheirPlace(bytes: [UInt8]) throws {
        let text = Array("{\"store\": \"App.sqlite\",\n \"current\": \"".utf8) + bytes + Array("\"}".utf8)
        #expect((try? JSONSerialization.jsonObject(with: Data(text))) == nil)
        let error = try #require(Self.error(text))
        #expect(error.line == 2)
        #expect(error.column == 14)
        #expect(error.expected == "bytes that are not UTF-8 in a string (byte 0x\(String(bytes[0], radix: 16)))")
    }

    /// The class at large: a valid configuration cut and spliced at every byte
    /// with tokens near Foundation's limits; whenever Foundation refuses the
    /// result, the error has a line and a column.
    @Test func everyInputFoundationRefusesGetsALineAndColumn() throws {
        let valid = Array(#"{"store": "App.sqlite", "current": "1.0.0", "supported": ["0.9.0"], "checks": [{"name": "aé", "sql": "SELECT 1", "expect": 1.5e3}]}"#.utf8)
        let tokens: [[UInt8]] = ["1e309", "9e999", #"\ud800"#, #"\udfff"#, #"\ud83d\ude00"#, #"\u00"#, "1e-999", "-0", "\"", "[", "}"].map { Array($0.utf8) }
            + [[0xFF], [0xC3], [0xED, 0xB0, 0x80], [0x00]]
        var tried = 0
        for index in 0...valid.count {
            for token in tokens {
                let text = Array(valid[..<index]) + token + Array(valid[index...])
                guard (try? JSONSerialization.jsonObject(with: Data(text))) == nil else { continue }
                tried += 1
                do { _ = try CorpusConfiguration.parse(text, path: "c/fixturekit.json"); Issue.record("accepted \(text)") } catch {
                    #expect(error.line != nil, "\(String(decoding: text, as: UTF8.self)): \(error.why)")
                }
            }
        }
        #expect(tried > 1000)
    }

    @Test func aMissingOrUnknownField() throws {
        let missing = try #require(Self.error(#"{"store": "App.sqlite"}"#))
        #expect(missing.line == nil)
        #expect(missing.expected == "current is missing")
        let unknown = try #require(Self.error(#"{"store": "App.sqlite", "current": "1.0.0", "x": 1}"#))
        #expect(unknown.expected == "unknown key \"x\"")
        #expect(Self.error(#"{"store": "App.sqlite", "current": "1.0.0"}"#) == nil)
    }

    @Test func aMissingFileKeepsItsErrno() throws {
        let store = try TestStore()
        let path = store.folder + "/fixturekit.json"
        do { _ = try CorpusConfiguration.read(path); Issue.record("read a missing file") } catch {
            #expect(error.expected == "no such file")
            #expect(error.remedy == .initCorpus)
            #expect((error.cause as? FileSystemError)?.errno == ENOENT)
        }
    }
}
