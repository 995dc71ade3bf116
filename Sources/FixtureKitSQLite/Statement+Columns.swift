import CSQLite
import FixtureKitSystem

/// Reading the current row's columns and binding parameters without copying
/// values into ``SQLiteValue``s: for the loops that read every row of a store.
extension Statement {
    /// The storage class of column `index` of the current row.
    package func columnStorageClass(_ index: Int) -> SQLiteStorageClass {
        SQLiteStorageClass(sqlite3_column_type(handle, Int32(index)))
    }

    package func columnInt64(_ index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(index)) }

    /// Column `index` as UTF-8 text, in SQLite's memory until the row changes.
    package func columnText(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        let pointer = sqlite3_column_text(handle, Int32(index))
        return UnsafeBufferPointer(start: pointer, count: pointer == nil ? 0 : Int(sqlite3_column_bytes(handle, Int32(index))))
    }

    /// Column `index` as UTF-16 text in the machine's byte order, in SQLite's memory until the row changes.
    package func columnText16(_ index: Int) -> UnsafeRawBufferPointer {
        let pointer = sqlite3_column_text16(handle, Int32(index))
        return UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : Int(sqlite3_column_bytes16(handle, Int32(index))))
    }

    /// Column `index` as a blob, in SQLite's memory until the row changes.
    package func columnBlob(_ index: Int) -> UnsafeRawBufferPointer {
        let pointer = sqlite3_column_blob(handle, Int32(index))
        return UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : Int(sqlite3_column_bytes(handle, Int32(index))))
    }

    /// Column `index` as a value a ``DatabaseFunction`` can return
    /// (``DatabaseFunction/Result/setValue(_:)``) or bind (``bind(_:at:)``).
    package func columnValue(_ index: Int) -> SQLiteValueRef {
        SQLiteValueRef(sqlite3_column_value(handle, Int32(index)))
    }

    /// Binds a copy of `value` to parameter `index` (from 1), keeping the other bindings.
    package func bind(_ value: SQLiteValueRef, at index: Int) throws(SQLiteError) {
        let code = sqlite3_bind_value(handle, Int32(index), value.handle)
        guard code == SQLITE_OK else { throw SQLiteError(connection: database.handle, code: code, sql: sql) }
    }

    /// Binds an integer to parameter `index` (from 1), keeping the other bindings.
    package func bind(_ value: Int64, at index: Int) throws(SQLiteError) {
        let code = sqlite3_bind_int64(handle, Int32(index), value)
        guard code == SQLITE_OK else { throw SQLiteError(connection: database.handle, code: code, sql: sql) }
    }
}
