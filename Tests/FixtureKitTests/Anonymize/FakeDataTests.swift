import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// `fake` on values: the same key and value give the same fake, another key
/// another one; each kind has its shape, drawn from the built-in lists.
struct FakeDataTests {
    static let key = Array("a-test-key-that-is-long-enough-0123456789".utf8)
    static let otherKey = Array("another-test-key-long-enough-9876543210".utf8)

    /// The fake of `input` under `key`, derived as the session derives it:
    /// HMAC of the tag, the kind as the domain, attempt 0, and the value.
    func fake(_ kind: FakeKind, _ input: String, key: [UInt8] = Self.key) throws -> String {
        let hmac = try HMACSHA256(key: key)
        let message = AnonymizationSession.derivationPrefix(.fake, domain: kind.rawValue) + [0, 0, 0, 0] + Array(input.utf8)
        let digest = try hmac.authenticate(message)
        var stream = digest.withUnsafeBufferPointer { KeyedStream(digest: $0.baseAddress!) }
        var output: [UInt8] = []
        Array(input.utf8).withUnsafeBufferPointer { ValueTransforms.fake(kind, input: $0, stream: &stream, into: &output) }
        return String(decoding: output, as: UTF8.self)
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

    @Test func eachKindHasItsShape() throws {
        for input in Self.inputs + (0..<30).map({ "Person \($0)" }) {
            let name = try fake(.name, input).split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            #expect(name.count == 2 && Self.firstNames.contains(name[0]) && Self.lastNames.contains(name[1]), "\(name)")
            #expect(Self.firstNames.contains(try fake(.firstName, input)))
            #expect(Self.lastNames.contains(try fake(.lastName, input)))
            // A word keeps a capital first letter.
            let word = try fake(.word, input)
            let capital = input.first.map { $0.isASCII && $0.isUppercase } ?? false
            #expect(Self.words.contains(capital ? word.prefix(1).lowercased() + word.dropFirst() : word), "\(word)")
            #expect(word.first!.isUppercase == capital, "\(input) -> \(word)")
            // Text: words as long as the original in characters (Unicode scalars), the last one cut.
            let text = try fake(.text, input)
            #expect(text.utf8.count == max(1, input.unicodeScalars.count), "\(input) -> \(text)")
            #expect(text.first!.isUppercase == capital)
            #expect(text.last != " ")
            let pieces = text.lowercased().split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            #expect(pieces.dropLast().allSatisfy { Self.words.contains($0) }, "\(text)")
            #expect(Self.words.contains { $0.hasPrefix(pieces.last!) } || pieces.last!.hasSuffix("a"), "\(text)")
        }
    }
}
