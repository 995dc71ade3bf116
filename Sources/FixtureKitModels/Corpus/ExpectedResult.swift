import FixtureKitSystem
import FixtureKitSQLite

/// Compares a check's result rows with its configured `expect`.
package enum ExpectedResult {
    /// `nil` when `rows` match `expect`, else what differs.
    ///
    /// A scalar is compared with the first column of the first row; an array of
    /// arrays with all rows; an array of scalars with a one-column result.
    /// Numbers compare by value (`3` equals `3.0`), `true`/`false` as 1/0.
    /// - Parameter more: the query returned more rows than `rows` holds.
    package static func mismatch(_ rows: [[SQLiteValue]], expect: JSONValue, more: Bool = false) -> String? {
        switch expect {
        case .array(let expectedRows):
            let expected: [[JSONValue]] = expectedRows.map { row in
                if case .array(let columns) = row { return columns }
                return [row]
            }
            let same = !more && rows.count == expected.count && zip(rows, expected).allSatisfy { row, expectedRow in
                row.count == expectedRow.count && zip(row, expectedRow).allSatisfy { matches($0, $1) }
            }
            return same ? nil : "expected \(expect), got \(render(rows, more: more))"
        default:
            let actual = rows.first?.first
            guard let actual else { return "expected \(expect), got no row" }
            return matches(actual, expect) ? nil : "expected \(expect), got \(render(actual))"
        }
    }

    static func matches(_ value: SQLiteValue, _ expected: JSONValue) -> Bool {
        switch (value, expected) {
        case (.null, .null): true
        case (.integer(let number), .number(let wanted)): Double(number) == wanted
        case (.real(let number), .number(let wanted)): number == wanted
        case (.integer(let number), .bool(let wanted)): number == (wanted ? 1 : 0)
        case (.text(let text), .string(let wanted)): text == wanted
        default: false
        }
    }

    package static func render(_ value: SQLiteValue) -> String {
        switch value {
        case .text(let text): "\"\(text)\""
        case .null: "null"
        default: value.description
        }
    }

    /// `[[1, "a"], [2, "b"]]`; `more` adds `, ...` for rows not read.
    static func render(_ rows: [[SQLiteValue]], more: Bool = false) -> String {
        "[" + (rows.map { "[" + $0.map(render).joined(separator: ", ") + "]" } + (more ? ["..."] : [])).joined(separator: ", ") + "]"
    }
}
