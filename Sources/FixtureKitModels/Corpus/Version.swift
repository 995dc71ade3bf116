import FixtureKitSystem

/// A shipped version's label: a semantic version, exactly as SemVer 2.0.0 defines
/// it (https://semver.org/spec/v2.0.0.html), ordered by its precedence: `1.10.0`
/// after `1.9.0`, `1.0.0-beta.2` before `1.0.0`.
///
/// `MAJOR.MINOR.PATCH`, each a number without leading zeros; an optional
/// pre-release after `-` and optional build metadata after `+`, each made of
/// identifiers of `[0-9A-Za-z-]` separated by dots (a pre-release identifier of
/// digits alone has no leading zero). Nothing else: no `v`, no fourth number, no
/// empty identifier. A label is therefore always a plain file name (no `/`, no
/// `..`, no control character, no space), which is what lets a fixture folder and
/// an archive be named after it.
///
/// Build metadata does not take part in precedence, as SemVer says; two labels
/// that differ only there still sort, by their bytes, so that the order is total.
package struct Version: Comparable, Hashable, Sendable, CustomStringConvertible {
    package let label: String
    /// MAJOR, MINOR and PATCH as their digits (any length: compared by length, then bytes).
    let numbers: [Substring]
    let prerelease: [Substring]

    package init?(_ label: String) {
        // Only ASCII is ever valid; checking bytes keeps a NUL or a line feed out.
        guard !label.isEmpty, label.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        var rest = Substring(label)
        var build: Substring?
        if let plus = rest.firstIndex(of: "+") {
            build = rest[rest.index(after: plus)...]
            rest = rest[..<plus]
        }
        var pre: Substring?
        if let dash = rest.firstIndex(of: "-") {
            pre = rest[rest.index(after: dash)...]
            rest = rest[..<dash]
        }
        let core = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard core.count == 3, core.allSatisfy(Self.isNumeric) else { return nil }
        var prerelease: [Substring] = []
        if let pre {
            prerelease = pre.split(separator: ".", omittingEmptySubsequences: false)
            guard prerelease.allSatisfy({ Self.isIdentifier($0) && (!$0.allSatisfy(\.isASCIIDigit) || Self.isNumeric($0)) }) else { return nil }
        }
        if let build {
            guard build.split(separator: ".", omittingEmptySubsequences: false).allSatisfy(Self.isIdentifier) else { return nil }
        }
        self.label = label
        numbers = core
        self.prerelease = prerelease
    }

    /// `0`, or digits that do not start with `0`.
    private static func isNumeric(_ text: Substring) -> Bool {
        !text.isEmpty && text.allSatisfy(\.isASCIIDigit) && (text == "0" || text.first != "0")
    }

    /// One or more of `[0-9A-Za-z-]`.
    private static func isIdentifier(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D
        }
    }

    package var description: String { label }

    package static func < (lhs: Version, rhs: Version) -> Bool {
        for (left, right) in zip(lhs.numbers, rhs.numbers) where left != right {
            return numericallyPrecedes(left, right)
        }
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

    /// Two numbers without leading zeros: the shorter is the smaller.
    private static func numericallyPrecedes(_ lhs: Substring, _ rhs: Substring) -> Bool {
        lhs.count != rhs.count ? lhs.count < rhs.count : lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    /// SemVer's order of pre-release identifiers: numbers numerically and before
    /// words, words by their ASCII bytes.
    private static func precedes(_ lhs: Substring, _ rhs: Substring) -> Bool {
        switch (lhs.allSatisfy(\.isASCIIDigit), rhs.allSatisfy(\.isASCIIDigit)) {
        case (true, true): numericallyPrecedes(lhs, rhs)
        case (true, false): true
        case (false, true): false
        case (false, false): lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
        }
    }

    package static func == (lhs: Version, rhs: Version) -> Bool { lhs.label == rhs.label }
    package func hash(into hasher: inout Hasher) { hasher.combine(label) }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

extension Version {
    /// Why `label` is not a version, in words a user can act on.
    package static func whyNot(_ label: String) -> String {
        "'\(label.escapingControlCharacters())' is not a semantic version (MAJOR.MINOR.PATCH, then optionally -PRERELEASE and +BUILD, each of [0-9A-Za-z-] separated by dots)"
    }
}
