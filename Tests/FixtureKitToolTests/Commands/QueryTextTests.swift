import Foundation
import Testing
@testable import FixtureKitTool

/// `sql --json`'s strings: the bytes it has always written, for hostile text,
/// and how they compare with Foundation's JSONEncoder.
@Suite struct QueryTextTests {
    /// Foundation's JSON for `text`, as the library's canonical JSON writes it.
    func encoded(_ text: String) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(text), as: UTF8.self)
    }

    static let hostile: [(String, String)] = [
        ("", #""""#),
        ("plain", #""plain""#),
        (#"say "hi""#, #""say \"hi\"""#),
        (#"C:\path\n"#, #""C:\\path\\n""#),
        ("a/b", #""a/b""#),
        ("line\nfeed\rreturn\ttab", #""line\nfeed\rreturn\ttab""#),
        ("\u{0}nul\u{1}\u{1F}", #""\u0000nul\u0001\u001f""#),
        ("\u{2028}\u{2029}", "\"\u{2028}\u{2029}\""),
        ("é日本😀", "\"é日本😀\""),
        ("\"\\\u{0}\"", #""\"\\\u0000\"""#),
        // Where JSONEncoder differs: it writes \b and \f, and DEL as it is.
        ("\u{8}\u{C}\u{7F}", #""\u0008\u000c\u007f""#),
    ]

    @Test func hostileStringsKeepTheirBytes() {
        for (text, json) in Self.hostile {
            #expect(QueryText.quoted(text) == json, "\(Array(text.unicodeScalars))")
        }
    }

    @Test func theSameAsJSONEncoderButForBackspaceFormFeedAndDelete() throws {
        let different: Set<Unicode.Scalar> = ["\u{8}", "\u{C}", "\u{7F}"]
        // Every scalar below U+0100, and a few beyond, alone and in text.
        let scalars = (0..<0x100).compactMap(Unicode.Scalar.init) + ["\u{2028}", "\u{2029}", "\u{FEFF}", "\u{FFFD}", "\u{1F600}"]
        for scalar in scalars {
            let text = "a" + String(Character(scalar)) + "\"z\\"
            if different.contains(scalar) {
                #expect(try QueryText.quoted(text) != encoded(text), "\(scalar.value)")
            } else {
                #expect(try QueryText.quoted(text) == encoded(text), "\(scalar.value)")
            }
        }
        // Both decode to the text again.
        for (text, _) in Self.hostile {
            #expect(try JSONDecoder().decode(String.self, from: Data(QueryText.quoted(text).utf8)) == text)
        }
    }

    /// The three characters are rewritten escape by escape: a backslash the text
    /// holds before a `b` or an `f` stays a backslash, whatever comes after it.
    @Test func onlyTheEncodersOwnEscapesAreRewritten() throws {
        let cases: [(String, String)] = [
            ("\\b\u{8}", #""\\b\u0008""#),
            ("\\f\u{C}\\", #""\\f\u000c\\""#),
            ("\\\u{7F}\\\u{8}b", #""\\\u007f\\\u0008b""#),
            ("\\b\\f", #""\\b\\f""#),
        ]
        for (text, json) in cases {
            #expect(QueryText.quoted(text) == json, "\(Array(text.unicodeScalars))")
            #expect(try JSONDecoder().decode(String.self, from: Data(QueryText.quoted(text).utf8)) == text)
        }
    }
}
