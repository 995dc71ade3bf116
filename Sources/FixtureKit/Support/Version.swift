/// A shipped version's label, ordered as a semantic version: `1.10.0` after `1.9.0`.
///
/// Accepts one to four numeric components (`3`, `1.2`, `1.2.3`, `1.2.3.4`,
/// missing ones count as 0), an optional pre-release (`-beta.2`, before the
/// release) and optional build metadata (`+42`, ignored in the order, as
/// semver says; two labels that differ only there still sort by their text).
public struct Version: Comparable, Hashable, Sendable, CustomStringConvertible {
    public let label: String
    let numbers: [Int]
    let prerelease: [String]

    public init?(_ label: String) {
        let withoutBuild = label.split(separator: "+", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let parts = withoutBuild.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        let numberParts = parts[0].split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(numberParts.count) else { return nil }
        var numbers: [Int] = []
        for part in numberParts {
            guard !part.isEmpty, part.count <= 9, part.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(part) else { return nil }
            numbers.append(value)
        }
        var prerelease: [String] = []
        if parts.count == 2 {
            prerelease = parts[1].split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard prerelease.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") } }) else { return nil }
        }
        self.label = label
        self.numbers = numbers + Array(repeating: 0, count: 4 - numbers.count)
        self.prerelease = prerelease
    }

    public var description: String { label }

    public static func < (lhs: Version, rhs: Version) -> Bool {
        if lhs.numbers != rhs.numbers { return lhs.numbers.lexicographicallyPrecedes(rhs.numbers) }
        switch (lhs.prerelease.isEmpty, rhs.prerelease.isEmpty) {
        case (true, false): return false
        case (false, true): return true
        default: break
        }
        if lhs.prerelease != rhs.prerelease {
            return lhs.prerelease.lexicographicallyPrecedes(rhs.prerelease, by: precedes)
        }
        return lhs.label.utf8.lexicographicallyPrecedes(rhs.label.utf8)
    }

    /// Semver's order of pre-release identifiers: numbers numerically and before words.
    private static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        switch (Int(lhs), Int(rhs)) {
        case let (left?, right?): left < right
        case (.some, nil): true
        case (nil, .some): false
        case (nil, nil): lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
        }
    }

    public static func == (lhs: Version, rhs: Version) -> Bool { lhs.label == rhs.label }
    public func hash(into hasher: inout Hasher) { hasher.combine(label) }
}
