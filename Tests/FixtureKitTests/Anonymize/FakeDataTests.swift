import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// `fake` on values: the same key and value give the same fake, another key
/// another one; each kind has its shape, drawn from the built-in lists.
struct FakeDataTests {
    static let key = Array("a-test-key-that-is-long-enough-0123456789".utf8)
    static let otherKey = Array("another-test-key-long-enough-9876543210".utf8)

    /// The fake of `input` under `key`, derived as the session derives it:
    /// HMAC of the tag, the kind as the domain, the attempt, and the value's fold.
    func fake(_ kind: FakeKind, _ input: String, key: [UInt8] = Self.key) throws -> String {
        let hmac = try HMACSHA256(key: key)
        let prefix = AnonymizationSession.derivationPrefix(.fake, domain: kind.rawValue)
        var output: [UInt8] = []
        var fold: [UInt8] = []
        let ok = Array(input.utf8).withUnsafeBufferPointer { bytes in
            ValueTransforms.keyedText(.fake(kind: kind), input: bytes, attempt: 0, fold: &fold, into: &output) { value, attempt in
                let message = prefix + withUnsafeBytes(of: attempt.bigEndian) { Array($0) } + Array(value)
                guard let digest = try? hmac.authenticate(message) else { return nil }
                return digest.withUnsafeBufferPointer { KeyedStream(digest: $0.baseAddress!) }
            }
        }
        #expect(ok)
        return String(decoding: output, as: UTF8.self)
    }

    /// The case form of a text, as ``TextShape`` reads it.
    func form(_ text: String) -> TextShape.CaseForm {
        var fold: [UInt8] = []
        return Array(text.utf8).withUnsafeBufferPointer { TextShape($0, fold: &fold).form }
    }

    static let inputs = ["Alice Martin", "bob", "Zoë Ångström", "日本語のテキスト", "x", String(repeating: "long text ", count: 30)]
    static let firstNames = Set(FakeData.firstNames.map { String(decoding: $0, as: UTF8.self) })
    static let lastNames = Set(FakeData.lastNames.map { String(decoding: $0, as: UTF8.self) })
    static let words = Set(FakeData.words.map { String(decoding: $0, as: UTF8.self) })

    @Test func theListsAreAsciiWordsWithoutRepeats() {
        for list in [FakeData.firstNames, FakeData.lastNames, FakeData.words] {
            #expect(Set(list).count == list.count)
            #expect(list.allSatisfy { !$0.isEmpty && $0.allSatisfy { (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) } })
        }
        #expect(FakeData.firstNames.count == 70 && FakeData.lastNames.count == 50 && FakeData.words.count == 80)
    }

    @Test(arguments: FakeKind.allCases)
    func theSameKeyGivesTheSameFakeAndAnotherKeyAnother(kind: FakeKind) throws {
        var differences = 0
        for input in Self.inputs + (0..<40).map({ "Person \($0)" }) {
            let first = try fake(kind, input)
            #expect(try fake(kind, input) == first)
            if try fake(kind, input, key: Self.otherKey) != first { differences += 1 }
        }
        // 46 values: a list of 50 names gives the same one for the other key now and then, never for most.
        #expect(differences >= 30, "\(kind): \(differences)")
        // Different values do not all get one fake.
        let fakes = try Set((0..<40).map { try fake(kind, "Person \($0)") })
        #expect(fakes.count >= 10, "\(kind)")
    }

    @Test func eachKindHasItsShapeInTheCaseFormOfTheOriginal() throws {
        for input in Self.inputs + (0..<30).map({ "Person \($0)" }) {
            let inputForm = form(input)
            let spaces = CharacterSet(charactersIn: " ")
            let name = try fake(.name, input).trimmingCharacters(in: spaces)
            let parts = name.lowercased().split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            #expect(parts.count == 2 && Self.firstNames.map { $0.lowercased() }.contains(parts[0]) && Self.lastNames.map { $0.lowercased() }.contains(parts[1]), "\(name)")
            #expect(form(name) == inputForm, "\(input) -> \(name)")
            #expect(Self.firstNames.map { $0.lowercased() }.contains(try fake(.firstName, input).trimmingCharacters(in: spaces).lowercased()))
            #expect(Self.lastNames.map { $0.lowercased() }.contains(try fake(.lastName, input).trimmingCharacters(in: spaces).lowercased()))
            let word = try fake(.word, input).trimmingCharacters(in: spaces)
            #expect(Self.words.contains(word.lowercased()), "\(word)")
            // Text: words as long as the original's core in characters (Unicode scalars), the last one cut.
            let core = input.trimmingCharacters(in: CharacterSet(charactersIn: " "))
            let text = try fake(.text, input)
            #expect(text.utf8.count == input.utf8.count - core.utf8.count + max(1, core.unicodeScalars.count), "\(input) -> \(text)")
            #expect(text.hasSuffix(" ") == input.hasSuffix(" "))
            let pieces = text.trimmingCharacters(in: CharacterSet(charactersIn: " ")).lowercased().split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            #expect(pieces.dropLast().allSatisfy { Self.words.contains($0) }, "\(text)")
            #expect(Self.words.contains { $0.hasPrefix(pieces.last!) } || pieces.last!.hasSuffix("a"), "\(text)")
        }
    }
}
