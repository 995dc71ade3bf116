import Foundation
import Testing
@testable import FixtureKitSQLite
@testable import FixtureKitSystem
@testable import FixtureKitTestSupport

/// The SQL-function bridge: values of every storage class in and out, without
/// loss; NULL; errors thrown by a body reach the caller as ``SQLiteError``.
struct DatabaseFunctionTests {
    /// A connection to a fresh store in its own folder.
    func database(_ folder: TemporaryFolder) throws -> Database {
        try Database(path: folder.url("test.sqlite"), options: .init(create: true))
    }

    /// Values of every storage class and size, NULL included.
    static let values: [SQLiteValue] = [
        .null, .integer(0), .integer(-1), .integer(.max), .integer(.min), .real(2.5), .real(-0.0), .real(1e300),
        .text(""), .text("a"), .text("héllo wörld ✓ 日本 🙂"), .text(String(repeating: "δ€🙂x", count: 20_000)),
        .blob([]), .blob([0]), .blob([0, 255, 1, 254]), .blob((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }),
    ]

    /// `copy(x)`: reads the argument by its storage class and sets the same value back.
    func addCopy(_ database: Database) throws {
        try database.add(function: DatabaseFunction("copy", argumentCount: 1) { arguments, result in
            let value = arguments[0]
            switch value.storageClass {
            case .null: result.setNull()
            case .integer: result.setInteger(value.int64)
            case .real: result.setReal(value.double)
            case .text: result.setText(value.textBytes)
            case .blob: result.setBlob(UnsafeRawBufferPointer(value.blobBytes))
            }
        })
    }

    @Test func everyStorageClassGoesInAndComesOutUnchanged() throws {
        let folder = try TemporaryFolder()
        let database = try database(folder)
        try addCopy(database)
        try database.add(function: DatabaseFunction("kind", argumentCount: 1, pure: true) { arguments, result in
            let name = "\(arguments[0].storageClass)"
            result.set(.text(name))
        })
        try database.add(function: DatabaseFunction("same", argumentCount: 1) { arguments, result in
            result.setValue(arguments[0])
        })
        try database.add(function: DatabaseFunction("owned", argumentCount: 1) { arguments, result in
            result.set(arguments[0].value)
        })
        for value in Self.values {
            let expectedType = switch value {
            case .null: "null"
            case .integer: "integer"
            case .real: "real"
            case .text: "text"
            case .blob: "blob"
            }
            let row = try database.rows("SELECT copy(?1), typeof(copy(?1)), kind(?1), same(?1), typeof(same(?1)), owned(?1), typeof(owned(?1))", [value])[0]
            #expect(row[0] == value, "\(value)")
            #expect(row[1] == .text(expectedType))
            #expect(row[2] == .text(expectedType))
            #expect(row[3] == value)
            #expect(row[4] == .text(expectedType))
            #expect(row[5] == value)
            #expect(row[6] == .text(expectedType))
        }
    }

    @Test func argumentsAreReadWithoutConversionAndInAnyNumber() throws {
        let folder = try TemporaryFolder()
        let database = try database(folder)
        // Variadic: the count, then each argument's class, as the body sees them.
        try database.add(function: DatabaseFunction("classes") { arguments, result in
            let names = (0..<arguments.count).map { "\(arguments[$0].storageClass)" }
            result.set(.text("\(arguments.count):" + names.joined(separator: ",")))
        })
        #expect(try database.scalar("SELECT classes()") == .text("0:"))
        #expect(try database.scalar("SELECT classes(NULL, 1, 1.5, 'x', x'00')") == .text("5:null,integer,real,text,blob"))
        // A number read as text is SQLite's text of it.
        try database.add(function: DatabaseFunction("astext", argumentCount: 1) { arguments, result in
            result.setText(arguments[0].textBytes)
        })
        #expect(try database.scalar("SELECT astext(42)") == .text("42"))
        #expect(try database.scalar("SELECT astext(0.5)") == .text("0.5"))
    }

    @Test func aThrownErrorReachesTheCallerAsSQLiteError() throws {
        let folder = try TemporaryFolder()
        let database = try database(folder)
        struct Other: Error, CustomStringConvertible { var description: String { "another error type" } }
        try database.add(function: DatabaseFunction("fail", argumentCount: 1) { arguments, _ in
            if arguments[0].int64 == 1 { throw DatabaseFunctionError("t.c: no such thing") }
            throw Other()
        })
        try database.add(function: DatabaseFunction("explicit", argumentCount: 0) { _, result in
            result.setError("set by the body")
        })
        try database.execute("CREATE TABLE t (a)")
        try database.execute("INSERT INTO t VALUES (1), (2)")
        for (sql, message) in [("SELECT fail(1)", "t.c: no such thing"), ("SELECT fail(2)", "another error type"), ("SELECT explicit()", "set by the body")] {
            #expect(throws: SQLiteError(code: 1, message: message, sql: sql)) { try database.scalar(sql) }
        }
        // An UPDATE stops at the failing row, and its changes are rolled back.
        #expect(throws: SQLiteError(code: 1, message: "another error type", sql: "UPDATE t SET a = fail(a + 1)")) { try database.execute("UPDATE t SET a = fail(a + 1)") }
        #expect(try database.rows("SELECT a FROM t ORDER BY a") == [[.integer(1)], [.integer(2)]])
        // A call with the wrong number of arguments is SQLite's own error.
        do {
            _ = try database.scalar("SELECT fail()")
            Issue.record("no error")
        } catch {
            #expect(error.code == 1)
            #expect(error.message == "wrong number of arguments to function fail()")
        }
    }

    @Test func aDirectOnlyFunctionIsRefusedInsideTheSchema() throws {
        let folder = try TemporaryFolder()
        let database = try database(folder)
        try addCopy(database)
        try database.execute("CREATE TABLE t (a); INSERT INTO t VALUES (1); CREATE VIEW v AS SELECT copy(a) FROM t")
        #expect(try database.scalar("SELECT copy(7)") == .integer(7))
        do {
            _ = try database.rows("SELECT * FROM v")
            Issue.record("no error")
        } catch {
            #expect(error.message == "unsafe use of copy()")
        }
    }

    @Test func theConnectionReleasesItsFunctions() throws {
        final class Witness {}
        let folder = try TemporaryFolder()
        weak var first: Witness?
        weak var second: Witness?
        let database = try database(folder)
        do {
            let witness = Witness()
            first = witness
            try database.add(function: DatabaseFunction("f", argumentCount: 0) { _, result in _ = witness; result.setInteger(1) })
        }
        do {
            let witness = Witness()
            second = witness
            // Replacing a function releases the one it replaces.
            try database.add(function: DatabaseFunction("f", argumentCount: 0) { _, result in _ = witness; result.setInteger(2) })
        }
        #expect(try database.scalar("SELECT f()") == .integer(2))
        #expect(first == nil)
        #expect(second != nil)
        try database.close()
        #expect(second == nil)
    }

    @Test func columnsAreReadWithoutCopies() throws {
        let folder = try TemporaryFolder()
        let database = try database(folder)
        try database.execute("CREATE TABLE t (a, b, c, d)")
        _ = try database.rows("INSERT INTO t VALUES (?1, ?2, ?3, ?4)", [.integer(-5), .text("héllo"), .blob([1, 2, 3]), .null])
        let statement = try database.prepare("SELECT a, b, c, d FROM t")
        #expect(try statement.step())
        #expect((0..<4).map(statement.columnStorageClass) == [.integer, .text, .blob, .null])
        #expect(statement.columnInt64(0) == -5)
        #expect(Array(statement.columnText(1)) == Array("héllo".utf8))
        #expect(Array(statement.columnBlob(2)) == [1, 2, 3])
        #expect(Array(statement.columnText16(1)) == "héllo".utf16.flatMap { withUnsafeBytes(of: $0) { Array($0) } })
        #expect(statement.columnBlob(3).count == 0)
        #expect(statement.columnValue(1).value == .text("héllo"))
        let lookup = try database.prepare("SELECT ?1, ?2")
        try lookup.bind(statement.columnValue(2), at: 1)
        try lookup.bind(42, at: 2)
        #expect(try lookup.step())
        #expect(lookup.row() == [.blob([1, 2, 3]), .integer(42)])
    }
}
