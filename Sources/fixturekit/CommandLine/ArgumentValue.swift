import FixtureKit

/// How a shell completes a word: nothing, a file, a folder, or one of a list.
enum CompletionKind: Sendable, Equatable {
    case none
    case file
    case folder
    case choices([String])
}

/// A type an option's or argument's word converts to, with what the word must look like.
protocol ArgumentValue: Sendable {
    /// The value a word names, or `nil` when the word is not one.
    static func parse(_ word: String) -> Self?
    /// What a word must be, after the option's name: `needs a positive number`.
    static var expectation: String { get }
    /// How a shell completes the word, unless the declaration says otherwise.
    static var completion: CompletionKind { get }
}

extension ArgumentValue {
    static var completion: CompletionKind { .none }
}

extension String: ArgumentValue {
    static func parse(_ word: String) -> String? { word }
    static var expectation: String { "needs a value" }
}

extension Optional: ArgumentValue where Wrapped: ArgumentValue {
    static func parse(_ word: String) -> Wrapped?? { Wrapped.parse(word).map { .some($0) } }
    static var expectation: String { Wrapped.expectation }
    static var completion: CompletionKind { Wrapped.completion }
}

/// A whole number above 0: `--jobs 4`, `--keep 3`.
struct PositiveNumber: ArgumentValue, Equatable, CustomStringConvertible {
    var value: Int
    var description: String { String(value) }
    static func parse(_ word: String) -> PositiveNumber? {
        guard let value = Int(word), value > 0 else { return nil }
        return PositiveNumber(value: value)
    }
    static var expectation: String { "needs a positive number" }
}

/// A value named by one of a fixed list of words.
protocol ChoiceValue: ArgumentValue, CaseIterable, RawRepresentable where RawValue == String {}

extension ChoiceValue {
    static func parse(_ word: String) -> Self? { Self(rawValue: word) }
    static var expectation: String {
        let names = allCases.map(\.rawValue)
        return "must be " + (names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + names.last! : names.joined())
    }
    static var completion: CompletionKind { .choices(allCases.map(\.rawValue)) }
}

extension CaptureMode: ChoiceValue {}

/// The shells `completions` writes a script for.
enum Shell: String, ChoiceValue {
    case bash, zsh, fish
}

/// A number of bytes: `1048576`, `512K`, `500M`, `16G`, `1T` (also `16GiB`, `16GB`: powers of 1024 all).
struct ByteCount: ArgumentValue, Equatable {
    var bytes: UInt64

    static func parse(_ word: String) -> ByteCount? {
        SizeProbeSettings.bytes(word).map(ByteCount.init(bytes:))
    }

    static var expectation: String { "needs a size such as 16G, 500M or 1048576" }
}

/// A finite number above 0: `--max-ratio 1000`.
struct PositiveRatio: ArgumentValue, Equatable {
    var value: Double
    static func parse(_ word: String) -> PositiveRatio? {
        guard let value = Double(word), value.isFinite, value > 0 else { return nil }
        return PositiveRatio(value: value)
    }
    static var expectation: String { "needs a positive number" }
}

/// `I/N`: the I-th of N shares, 1 <= I <= N.
struct Shard: ArgumentValue, Equatable {
    var index: Int
    var count: Int
    static func parse(_ word: String) -> Shard? {
        let parts = word.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count > 0, (1...count).contains(index) else { return nil }
        return Shard(index: index, count: count)
    }
    static var expectation: String { "needs I/N with 1 <= I <= N" }
}
