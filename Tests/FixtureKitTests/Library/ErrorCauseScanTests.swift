import Foundation
import Testing
@testable import FixtureKitTestSupport

/// One rule for wrapping, found by reading the sources: an error built from
/// another's text (`why: error.description`, `why: error.why`) keeps that error as
/// its `cause:`, so that `underlying(SQLiteError.self)` finds it under the line.
@Suite struct ErrorCauseScanTests {
    /// Where a `why:` copies an error's text: `why: error.description`, `why: failure.why`.
    static let copiesText = #"why:\s*[a-z]*(error|Error|failure|Failure)\??\.(why|description|reason|message)\b"#

    /// The calls of `text` (the file `file` of Sources/) that copy an error's text
    /// into `why:` and pass no `cause:`, by the line where their `why:` is.
    static func uncaused(in text: String, file: String) throws -> [String] {
        let why = try NSRegularExpression(pattern: Self.copiesText)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var found: [String] = []
        for (index, line) in lines.enumerated() {
            let code = line.trimmingCharacters(in: .whitespaces)
            if code.hasPrefix("//") { continue }
            let string = String(line)
            for match in why.matches(in: string, range: NSRange(string.startIndex..., in: string)) {
                // The rest of the call: from the `why:` to the parenthesis that closes it,
                // over the lines that follow when the call spans several.
                let start = string.index(string.startIndex, offsetBy: match.range.location)
                var rest = String(string[start...])
                var next = index + 1
                while Self.closingOffset(rest) == nil, next < lines.count, next < index + 8 {
                    rest += "\n" + lines[next]
                    next += 1
                }
                let call = Self.closingOffset(rest).map { String(rest.prefix($0)) } ?? rest
                if !call.contains("cause:") { found.append("\(file):\(index + 1): \(code)") }
            }
        }
        return found
    }

    /// Where the parenthesis that closes the call `text` is in (its first
    /// unmatched `)`), outside string literals; `nil` when it is not there.
    static func closingOffset(_ text: String) -> Int? {
        var depth = 0
        var inString = false
        var previous: Character = " "
        for (offset, character) in text.enumerated() {
            if character == "\"", previous != "\\" { inString.toggle() }
            if !inString {
                if character == "(" { depth += 1 }
                if character == ")" {
                    if depth == 0 { return offset }
                    depth -= 1
                }
            }
            previous = character
        }
        return nil
    }

    @Test func everyErrorBuiltFromAnotherKeepsItAsItsCause() throws {
        let files = try CheckSourceScanTests.sources()
        var copies = 0
        var found: [String] = []
        let why = try NSRegularExpression(pattern: Self.copiesText)
        for (file, text) in files {
            copies += why.numberOfMatches(in: text, range: NSRange(text.startIndex..., in: text))
            found += try Self.uncaused(in: text, file: file)
        }
        // The scan reads the sources: with nothing found to check it would prove nothing.
        #expect(copies > 40)
        #expect(found == [], "\(found.joined(separator: "\n"))")
    }

    /// The scan finds the lines as they were before they kept their cause, and
    /// passes a call that keeps it, on one line or over several.
    @Test func theScanFindsAWrapWithoutItsCause() throws {
        let before = """
            throw FixtureKitError(what: "init", path: store, why: error.why)
            return FixtureKitError(what: "snapshot", path: set.storePath, why: error.description, hint: hint(for: error))
            throw FixtureKitError(what: "upgrade: \\(error.what)", path: error.path, why: error.why, hint: "the backup \\(backup) is kept (as it was)")
            throw FixtureKitError(
                what: "stage", path: path,
                why: error.description)
            throw FixtureKitError(what: "init", path: store, why: error.why, cause: error)
            throw FixtureKitError(
                what: "stage", path: path, why: error.description,
                cause: error)
            // A comment may say why: error.why.
            """
        let found = try Self.uncaused(in: before, file: "FixtureKit/Init/CorpusInit.swift").map { $0.split(separator: ":")[1] }
        #expect(found == ["1", "2", "3", "6"])
    }
}
