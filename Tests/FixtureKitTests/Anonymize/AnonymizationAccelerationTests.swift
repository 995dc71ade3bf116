import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// The text fast path and the keyed prefetch against the plain path
/// (``AnonymizationSession/Acceleration/none``), on random stores and random
/// rules: the same output bytes, the same counts, the same leak scan.
struct AnonymizationAccelerationTests {
    static let environment = ["FIXTUREKIT_ANON_KEY": "a-test-key-that-is-long-enough-0123456789"]
    /// Rows of each random store: every kind of value many times over; `make torture` six times as many.
    static let rows = tortureSize(250, torture: 1500)

    /// A deterministic generator, so that a failing seed can be run again.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// A value of any storage class and size: NULL, empty, numbers, ASCII,
    /// multibyte UTF-8, text and blobs longer than a page, values repeated.
    static func randomValue(_ random: inout Generator, pool: [SQLiteValue]) -> SQLiteValue {
        let alphabet = Array("abcXYZ019 .-@_") + ["é", "ß", "日", "本", "🙂", "Ω"]
        func text(_ count: Int) -> String { String((0..<count).map { _ in alphabet.randomElement(using: &random)! }) }
        switch Int.random(in: 0..<12, using: &random) {
        case 0: return .null
        case 1: return .text("")
        case 2: return .integer(Int64.random(in: -1_000_000...1_000_000, using: &random))
        case 3: return .real(Double.random(in: -1e6...1e6, using: &random))
        case 4: return .blob((0..<Int.random(in: 0...80, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        case 5: return .text(text(Int.random(in: 5_000...12_000, using: &random)))
        case 6: return .blob((0..<Int.random(in: 5_000...9_000, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        case 7, 8: return pool.randomElement(using: &random)!
        default: return .text(text(Int.random(in: 1...70, using: &random)))
        }
    }

    /// A rule for a column of any values.
    static func randomRule(_ random: inout Generator) -> String {
        let characters = ["*", "#", "•", "é"]
        return [
            #"{"strategy": "pseudonym", "format": "FORMAT"}"#.replacingOccurrences(of: "FORMAT", with: PseudonymFormat.allCases.randomElement(using: &random)!.rawValue),
            #"{"strategy": "pseudonym", "format": "hex", "length": 8, "domain": "shared"}"#,
            #"{"strategy": "fake", "kind": "KIND"}"#.replacingOccurrences(of: "KIND", with: FakeKind.allCases.randomElement(using: &random)!.rawValue),
            #"{"strategy": "mask", "keepFirst": \#(Int.random(in: 0...3, using: &random)), "keepLast": \#(Int.random(in: 0...3, using: &random)), "char": "\#(characters.randomElement(using: &random)!)"}"#,
            #"{"strategy": "null"}"#,
            #"{"strategy": "value", "value": "constant"}"#,
            #""keep""#,
        ].randomElement(using: &random)!
    }

    func makeStore(_ path: String, seed: UInt64, pageSize: Int, encoding: String) throws -> String {
        var random = Generator(state: seed)
        let database = try Database(path: path, options: .init(create: true))
        try database.execute("PRAGMA page_size = \(pageSize); PRAGMA encoding = '\(encoding)'")
        let columns = ["a", "b", "c", "d"]
        try database.execute("CREATE TABLE things (id INTEGER PRIMARY KEY, \(columns.map { "\($0) ANY" }.joined(separator: ", ")), amount, day TEXT)")
        try database.execute("CREATE TABLE others (x TEXT, y BLOB)")
        var pool: [SQLiteValue] = [.text("repeated"), .text("Ünïcode repeated"), .integer(7)]
        try database.execute("BEGIN")
        for id in 1...Self.rows {
            var row: [SQLiteValue] = [.integer(Int64(id))]
            for _ in columns {
                let value = Self.randomValue(&random, pool: pool)
                if case .text(let text) = value, text.utf8.count < 40, pool.count < 60 { pool.append(value) }
                row.append(value)
            }
            row.append(Bool.random(using: &random) ? .integer(Int64.random(in: -500...500, using: &random)) : .real(Double.random(in: 0...99, using: &random)))
            row.append(.text("2020-0\(Int.random(in: 1...9, using: &random))-1\(Int.random(in: 0...9, using: &random))T10:00:00Z"))
            _ = try database.rows("INSERT INTO things VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", row)
            if id % 3 == 0 { _ = try database.rows("INSERT INTO others VALUES (?1, ?2)", [Self.randomValue(&random, pool: pool), Self.randomValue(&random, pool: pool)]) }
        }
        try database.execute("COMMIT")
        try database.close()
        // The rules: random ones for the columns of any values, noise and shift-date for the others.
        var things = columns.map { "\"\($0)\": \(Self.randomRule(&random))" }
        // A `where` on one of them: its statement is not computed ahead.
        if things[3].hasSuffix("}"), Bool.random(using: &random) { things[3] = things[3].dropLast() + #", "where": "id % 2 = 0"}"# }
        things += [
            #""amount": {"strategy": "noise", "ratio": 0.5}"#, #""day": {"strategy": "shift-date", "maxDays": 40}"#,
            #""id": "keep""#]
        let others = [#""x": \#(Self.randomRule(&random))"#, #""y": \#(Self.randomRule(&random))"#]
        return #"{"tables": {"things": {\#(things.joined(separator: ", "))}, "others": {\#(others.joined(separator: ", "))}}}"#
    }

    @Test(arguments: [(1 as UInt64, 1024, "UTF-8"), (2, 4096, "UTF-8"), (3, 512, "UTF-8"), (4, 4096, "UTF-16le")])
    func theAccelerationsGiveThePlainPathsBytes(seed: UInt64, pageSize: Int, encoding: String) throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.url("source"), withIntermediateDirectories: true)
        let rulesText = try makeStore(folder.url("source/App.sqlite"), seed: seed, pageSize: pageSize, encoding: encoding)
        let rules = try AnonymizationRules.parse(Array(rulesText.utf8), path: "rules.json")
        let key = try AnonymizationKey(variable: "FIXTUREKIT_ANON_KEY", environment: Self.environment, what: "anonymize", path: "rules.json")
        func run(_ name: String, _ acceleration: AnonymizationSession.Acceleration) throws -> (bytes: [UInt8], result: EngineResult, hits: Int) {
            // Random rules on values of every class do not keep storage classes: the
            // profile is measured (and compared below) but not enforced.
            try runEngine(name, in: folder, rules: rules, key: key, pristine: folder.url("source"), acceleration: acceleration, utf16: encoding != "UTF-8", enforceProfile: false)
        }
        let plain = try run("plain", .none)
        let fast = try run("fast", AnonymizationSession.Acceleration(textFastPath: true, prefetch: false))
        let all = try run("all", .all)
        #expect(fast.bytes == plain.bytes, "seed \(seed): \(rulesText)")
        #expect(all.bytes == plain.bytes, "seed \(seed): \(rulesText)")
        #expect(fast.result.columns == plain.result.columns)
        #expect(all.result.columns == plain.result.columns)
        #expect(fast.result.profile == plain.result.profile && all.result.profile == plain.result.profile)
        #expect(!plain.result.profile.columns.isEmpty)
        #expect(fast.hits == plain.hits && all.hits == plain.hits)
        #expect(plain.result.prefetched == 0 && fast.result.prefetched == 0)
        // The rules changed something: the comparison is not of two copies of the input.
        #expect(plain.result.columns.contains { $0.rowsChanged > 0 })
    }
}
