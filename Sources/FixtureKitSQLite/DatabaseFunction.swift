import CSQLite
import FixtureKitSystem

/// An application-defined SQL function (<https://www.sqlite.org/appfunc.html>):
/// a name, an argument count and a Swift body that SQLite calls once per row.
///
/// The body reads its arguments as ``SQLiteValueRef``s, which point into
/// SQLite's memory (no copy), and sets its result through a
/// ``DatabaseFunction/Result``. An error it throws becomes the statement's
/// error: `sqlite3_step` fails and the caller gets an ``SQLiteError`` whose
/// message is the error's description.
///
/// The function object is retained by the connection it is added to, and
/// released when the connection closes or the function is replaced.
package final class DatabaseFunction {
    /// What the body is called with: the arguments, and where its result goes.
    package typealias Body = (_ arguments: Arguments, _ result: Result) throws -> Void

    package let name: String
    /// The number of arguments, or -1 for any number.
    package let argumentCount: Int32
    /// Whether SQLite may factor calls out (`SQLITE_DETERMINISTIC`): only for
    /// functions without side effects.
    let isPure: Bool
    /// Whether the function may only be called from top-level SQL, never from a
    /// view, trigger or schema (`SQLITE_DIRECTONLY`).
    let isDirectOnly: Bool
    package let body: Body

    package init(_ name: String, argumentCount: Int? = nil, pure: Bool = false, directOnly: Bool = true, body: @escaping Body) {
        self.name = name
        self.argumentCount = argumentCount.map { Int32($0) } ?? -1
        self.isPure = pure
        self.isDirectOnly = directOnly
        self.body = body
    }

    /// The arguments of one call: SQLite's values, valid during the call.
    package struct Arguments {
        package let count: Int
        private let values: UnsafeMutablePointer<OpaquePointer?>?

        init(count: Int32, values: UnsafeMutablePointer<OpaquePointer?>?) {
            self.count = values == nil ? 0 : Int(count)
            self.values = values
        }

        /// The argument at `index` (from 0, below ``count``).
        @inline(__always)
        package subscript(index: Int) -> SQLiteValueRef {
            precondition(index >= 0 && index < count, "argument \(index) of \(count)")
            return SQLiteValueRef(values![index]!)
        }
    }

    /// The result of one call. A function that sets none returns NULL.
    ///
    /// Text and blobs are copied by SQLite (`SQLITE_TRANSIENT`): the bytes
    /// only need to live during the call that sets them.
    package struct Result {
        fileprivate let context: OpaquePointer

        package func setNull() { sqlite3_result_null(context) }
        package func setInteger(_ value: Int64) { sqlite3_result_int64(context, value) }
        package func setReal(_ value: Double) { sqlite3_result_double(context, value) }

        /// Sets UTF-8 text (not checked: SQLite takes the bytes as they are).
        package func setText(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let base = bytes.baseAddress, bytes.count > 0 else {
                // An empty text needs a pointer all the same: SQLite takes NULL for NULL.
                return sqlite3_result_text(context, "", 0, fixturekit_sqlite_transient())
            }
            sqlite3_result_text64(context, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), UInt64(bytes.count), fixturekit_sqlite_transient(), UInt8(SQLITE_UTF8))
        }

        package func setBlob(_ bytes: UnsafeRawBufferPointer) {
            guard let base = bytes.baseAddress, bytes.count > 0 else { return sqlite3_result_zeroblob(context, 0) }
            sqlite3_result_blob64(context, base, UInt64(bytes.count), fixturekit_sqlite_transient())
        }

        /// Sets a copy of `value` (an argument, or a column of a statement of the same connection).
        package func setValue(_ value: SQLiteValueRef) { sqlite3_result_value(context, value.handle) }

        /// Sets an owned value.
        package func set(_ value: SQLiteValue) {
            switch value {
            case .null: setNull()
            case .integer(let number): setInteger(number)
            case .real(let number): setReal(number)
            case .text(var text): text.withUTF8 { setText($0) }
            case .blob(let bytes): bytes.withUnsafeBytes { setBlob($0) }
            }
        }

        /// Makes the call fail with `message`: the statement stops with `SQLITE_ERROR`.
        package func setError(_ message: String) { sqlite3_result_error(context, message, -1) }
    }
}

/// The message of an error thrown from a ``DatabaseFunction``'s body, as the
/// caller's ``SQLiteError`` carries it.
package struct DatabaseFunctionError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}

extension Database {
    /// Adds `function` to the connection, replacing one of the same name and argument count.
    /// - Throws: ``SQLiteError`` when SQLite refuses it (a name too long, a busy connection).
    package func add(function: DatabaseFunction) throws(SQLiteError) {
        var flags = SQLITE_UTF8
        if function.isPure { flags |= SQLITE_DETERMINISTIC }
        if function.isDirectOnly { flags |= SQLITE_DIRECTONLY }
        let definition = Unmanaged.passRetained(function).toOpaque()
        let code = sqlite3_create_function_v2(
            handle, function.name, function.argumentCount, flags, definition,
            { context, count, values in
                // The connection holds the function while SQLite calls it: borrowed,
                // it costs no reference counting on a call made once per row.
                Unmanaged<DatabaseFunction>.fromOpaque(sqlite3_user_data(context)!)._withUnsafeGuaranteedRef { function in
                    let result = DatabaseFunction.Result(context: context!)
                    do {
                        try function.body(DatabaseFunction.Arguments(count: count, values: values), result)
                    } catch {
                        result.setError(String(describing: error))
                    }
                }
            },
            nil, nil,
            // SQLite calls it when the function is replaced or the connection closes,
            // and when sqlite3_create_function_v2 itself fails.
            { definition in Unmanaged<DatabaseFunction>.fromOpaque(definition!).release() })
        guard code == SQLITE_OK else { throw SQLiteError(connection: handle, code: code) }
    }
}
