import Foundation
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

/// The configuration's own checks: each query against the result it must
/// give (`expect`), against another query's rows (`expectSQL`), or against no
/// row at all (`"expect": "empty"`). While they run, the store the migration
/// started from is attached read-only as schema `source`: a check compares the
/// two (`SELECT count(*) FROM source.contacts WHERE phone IS NOT NULL`).
enum ConfiguredChecks {
    /// The schema name the source store is attached under.
    static let sourceSchema = "source"
    /// Rows an `"empty"` check shows at most, and row differences `expectSQL` reads past.
    static let shownRows = 5
    /// What stands for a value the report may not show.
    static let hidden = "(personal)"

    /// Runs the checks that apply to a path from `version`, in order.
    /// - Parameters:
    ///   - source: the source store's path (a private copy, never a fixture's
    ///     store), attached read-only as `source` when a check names it.
    ///   - personal: columns (`table.column`, by `identifierKey`) whose values are never
    ///     shown; `nil`: none is shown that does not come straight from a column.
    static func run(_ checks: [CorpusConfiguration.Check], from version: String, on database: Database, source: String?, personal: Set<String>?) -> [CheckResult] {
        let applicable = checks.filter { $0.from?.contains(version) ?? true }
        var attachProblem: String?
        var attached = false
        if let source, applicable.contains(where: needsSource) {
            do throws(SQLiteError) {
                _ = try database.rows("ATTACH DATABASE ?1 AS \(sourceSchema)", [.text(readOnlyURI(source))])
                attached = true
                if database.isReadOnly(sourceSchema) != true { attachProblem = "the source store could not be attached read-only" }
            } catch {
                attachProblem = "the source store could not be attached: \(error.description)"
            }
        } else if source == nil {
            attachProblem = "no source store to attach"
        }
        defer { if attached { try? database.execute("DETACH DATABASE \(sourceSchema)") } }
        return applicable.map { check in
            let start = ContinuousClock.now
            var result: CheckResult
            if needsSource(check), let attachProblem {
                result = CheckResult(.configured(name: check.name), passed: false, message: attachProblem, statement: check.sql)
            } else {
                result = run(check, on: database, personal: personal)
            }
            result.seconds = start.secondsSince
            return result
        }
    }

    /// Whether a check's SQL may read `source` (it names it).
    static func needsSource(_ check: CorpusConfiguration.Check) -> Bool {
        ([check.sql] + [check.expectSQL].compactMap { $0 }).contains { $0.identifierKey.contains(sourceSchema.identifierKey) }
    }

    /// `file:/path?mode=ro`: the path as a URI, so that ATTACH opens it read-only.
    static func readOnlyURI(_ path: String) -> String {
        Database.fileURI(path) + "?mode=ro"
    }

    private static func run(_ check: CorpusConfiguration.Check, on database: Database, personal: Set<String>?) -> CheckResult {
        var statementText = check.sql
        do throws(SQLiteError) {
            let statement = try database.prepare(check.sql)
            if let expectSQL = check.expectSQL {
                statementText = expectSQL
                let expected = try database.prepare(expectSQL)
                statementText = check.sql
                let mismatch = try compare(statement, expected, personal: personal)
                return CheckResult(.configured(name: check.name), passed: mismatch == nil, message: mismatch, statement: mismatch == nil ? nil : check.sql)
            }
            guard let expect = check.expect else { return CheckResult(.configured(name: check.name), passed: false, message: "nothing to expect") }
            if expect == .string("empty") {
                let found = try rowsThatMustNotExist(statement, personal: personal)
                return CheckResult(.configured(name: check.name), passed: found == nil, message: found, statement: found == nil ? nil : check.sql)
            }
            var wanted = 1
            if case .array(let rows) = expect { wanted = rows.count + 1 }
            var rows: [[SQLiteValue]] = []
            while rows.count < wanted, try statement.step() { rows.append(statement.row()) }
            var more = false
            if rows.count == wanted, wanted > 1 { more = try statement.step() }
            if let mismatch = ExpectedResult.mismatch(rows, expect: expect, more: more) {
                return CheckResult(.configured(name: check.name), passed: false, message: mismatch, statement: check.sql)
            }
            return CheckResult(.configured(name: check.name), passed: true)
        } catch {
            return CheckResult(.configured(name: check.name), passed: false, message: error.description, statement: statementText)
        }
    }

    /// `nil` when the query returns no row; else how many, and the first
    /// ``shownRows`` with their column names.
    private static func rowsThatMustNotExist(_ statement: Statement, personal: Set<String>?) throws(SQLiteError) -> String? {
        var shown: [String] = []
        var count = 0
        while try statement.step() {
            count += 1
            if shown.count < shownRows { shown.append(render(statement, personal: personal)) }
        }
        guard count > 0 else { return nil }
        let columns = (0..<statement.columnCount).map(statement.columnName).joined(separator: ", ")
        let first = count > shownRows ? ", the first \(shownRows)" : ""
        return "\(count) \(count == 1 ? "row" : "rows") that must not exist (\(columns)\(first)): " + shown.joined(separator: "; ")
    }

    /// `nil` when both queries return the same rows in the same order; else the
    /// first row where they differ.
    private static func compare(_ statement: Statement, _ expected: Statement, personal: Set<String>?) throws(SQLiteError) -> String? {
        var row = 0
        while true {
            row += 1
            let here = try statement.step(), there = try expected.step()
            switch (here, there) {
            case (false, false):
                return nil
            case (true, false):
                return "row \(row): \(render(statement, personal: personal)) here, expectSQL gives no more rows (\(row - 1) in all)"
            case (false, true):
                return "row \(row): no more rows here (\(row - 1) in all), expectSQL gives \(render(expected, personal: personal))"
            case (true, true):
                let a = statement.row(), b = expected.row()
                if a.count != b.count || !zip(a, b).allSatisfy(same) {
                    return "row \(row): \(render(statement, personal: personal)) here, \(render(expected, personal: personal)) by expectSQL"
                }
            }
        }
    }

    /// Equal as a result compares: numbers by value (`3` equals `3.0`), text and blobs byte for byte.
    static func same(_ a: SQLiteValue, _ b: SQLiteValue) -> Bool {
        switch (a, b) {
        case (.integer(let x), .real(let y)), (.real(let y), .integer(let x)): Double(x) == y
        default: a == b
        }
    }

    /// `[1, "x"]`, a value that comes from a personal column, or text or bytes
    /// that come from no column when the corpus has personal columns, shown as
    /// ``hidden``; every value when the rules cannot be read (`personal` nil).
    static func render(_ statement: Statement, personal: Set<String>?) -> String {
        let values = (0..<statement.columnCount).map { index -> String in
            let origin = statement.origin(index)
            let isPersonal: Bool = switch (origin, personal) {
            case (_, nil): true
            // An expression's number (a count) is shown; its text or bytes may be a personal value.
            case (nil, let personal?): !personal.isEmpty && [.text, .blob].contains(statement.column(index).kind)
            case (let origin?, let personal?): personal.contains("\(origin.table).\(origin.column)".identifierKey)
            }
            return isPersonal ? hidden : ExpectedResult.render(statement.column(index))
        }
        return "[" + values.joined(separator: ", ") + "]"
    }
}

extension SQLiteValue {
    enum Kind { case null, number, text, blob }

    var kind: Kind {
        switch self {
        case .null: .null
        case .integer, .real: .number
        case .text: .text
        case .blob: .blob
        }
    }
}
