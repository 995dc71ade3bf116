import Foundation

/// `"probes"."size"` of `fixturekit.json`: the size users' stores have, the
/// time a migration may take at that size, and the disk the grown copies may use
/// (see docs/commands/probe.md).
public struct SizeProbeSettings: Codable, Hashable, Sendable {
    /// Rows users have, by table: `{"notes": 200000}`; the prediction is for the
    /// largest factor they make over the fixture's rows. Not with ``factor``.
    public var rows: [String: Int]?
    /// The size users have as a multiple of the fixture's. Not with ``rows``.
    public var factor: Double?
    /// The time the stages of a path may take at that size: `"20s"`, `"500ms"`,
    /// `"2min"`. About 20 s is what an iOS app's launch is given before the
    /// watchdog ends it; an Android app is "not responding" after 5 s.
    public var budget: String?
    /// The most disk the grown copies may take: `"1G"`, `"500M"`; ``defaultDisk`` when `nil`.
    public var disk: String?

    public init(rows: [String: Int]? = nil, factor: Double? = nil, budget: String? = nil, disk: String? = nil) {
        (self.rows, self.factor, self.budget, self.disk) = (rows, factor, budget, disk)
    }

    /// The factors the tables are grown by (×1 is the fixture as it is).
    public static let factors = [1, 2, 4, 8]
    /// The growth exponent above which a stage fails: a stage whose time grows
    /// as the square of the rows fits about 2, a linear one about 1.
    public static let exponentLimit = 1.3
    /// 1 GiB.
    public static let defaultDisk: UInt64 = 1 << 30

    static let keys: Set<String> = ["rows", "factor", "budget", "disk"]

    /// ``budget`` in seconds; `nil` when none is declared.
    package var budgetSeconds: Double? { budget.flatMap(Self.seconds) }

    /// ``disk`` in bytes.
    package var diskBytes: UInt64 { disk.flatMap(Self.bytes) ?? Self.defaultDisk }

    /// `"20s"`, `"1.5s"`, `"500ms"`, `"2min"` in seconds; `nil` when it is none of these or not positive.
    package static func seconds(_ text: String) -> Double? {
        for (unit, scale) in [("ms", 0.001), ("min", 60.0), ("s", 1.0)] where text.hasSuffix(unit) {
            let number = text.dropLast(unit.count)
            guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(number), value > 0 else { return nil }
            return value * scale
        }
        return nil
    }

    /// A number of bytes: `1048576`, `512K`, `500M`, `16G`, `1T` (also `16GiB`,
    /// `16GB`: powers of 1024 all); `nil` when it is none of these or zero.
    package static func bytes(_ word: String) -> UInt64? {
        var digits = Substring(word)
        for suffix in ["ib", "b"] where digits.lowercased().hasSuffix(suffix) {
            digits = digits.dropLast(suffix.count)
            break
        }
        let units: [Character: Int] = ["K": 10, "M": 20, "G": 30, "T": 40]
        var shift = 0
        if let last = digits.last?.uppercased().first, let unit = units[last] {
            shift = unit
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let value = UInt64(digits) else { return nil }
        let (result, overflow) = value.multipliedReportingOverflow(by: 1 << UInt64(shift))
        guard !overflow, result > 0 else { return nil }
        return result
    }

    /// Checks the values the keys' types do not: one size, positive numbers, readable budget and disk.
    func validate(_ fail: (String) -> FormatError) throws(FormatError) {
        if rows != nil && factor != nil { throw fail("probes.size: \"rows\" and \"factor\" both say the size users have: keep one") }
        if let factor, !(factor >= 1) || !factor.isFinite { throw fail("probes.size.factor is \(factor): it must be at least 1") }
        if let rows {
            if rows.isEmpty { throw fail("probes.size.rows is empty: name a table and its rows, or leave it out") }
            if let (table, count) = rows.sorted(by: { $0.key < $1.key }).first(where: { $0.value < 1 }) {
                throw fail("probes.size.rows.\(table) is \(count): it must be at least 1")
            }
        }
        if let budget, Self.seconds(budget) == nil { throw fail("probes.size.budget: \"\(budget)\" is not a time such as \"20s\", \"500ms\" or \"2min\"") }
        if budget != nil, rows == nil, factor == nil { throw fail("probes.size.budget needs the size to predict at: \"rows\" or \"factor\"") }
        if let disk, Self.bytes(disk) == nil { throw fail("probes.size.disk: \"\(disk)\" is not a size such as \"1G\", \"500M\" or \"1048576\"") }
    }
}
