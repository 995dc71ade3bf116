import CSQLite
import FixtureKitSystem

/// The storage class of an SQLite value (<https://www.sqlite.org/datatype3.html>).
package enum SQLiteStorageClass: Equatable {
    case null, integer, real, text, blob

    package init(_ type: Int32) {
        switch type {
        case SQLITE_INTEGER: self = .integer
        case SQLITE_FLOAT: self = .real
        case SQLITE_TEXT: self = .text
        case SQLITE_BLOB: self = .blob
        default: self = .null
        }
    }
}

/// A value SQLite owns (`sqlite3_value`): an argument of a ``DatabaseFunction``,
/// read without copying.
///
/// The buffers it gives point into SQLite's memory: valid until the value is
/// read in another encoding or the call (or row) ends. Not `Sendable`.
package struct SQLiteValueRef {
    package let handle: OpaquePointer

    package init(_ handle: OpaquePointer) { self.handle = handle }

    package var storageClass: SQLiteStorageClass { SQLiteStorageClass(sqlite3_value_type(handle)) }
    var isNull: Bool { sqlite3_value_type(handle) == SQLITE_NULL }

    package var int64: Int64 { sqlite3_value_int64(handle) }
    package var double: Double { sqlite3_value_double(handle) }

    /// The value as UTF-8 text (a number converted as SQLite writes it); its
    /// length is read after the text, whose conversion (from UTF-16) it measures.
    package var textBytes: UnsafeBufferPointer<UInt8> {
        let pointer = sqlite3_value_text(handle)
        return UnsafeBufferPointer(start: pointer, count: pointer == nil ? 0 : Int(sqlite3_value_bytes(handle)))
    }

    /// The value's bytes as a blob.
    package var blobBytes: UnsafeBufferPointer<UInt8> {
        let pointer = sqlite3_value_blob(handle)?.assumingMemoryBound(to: UInt8.self)
        return UnsafeBufferPointer(start: pointer, count: pointer == nil ? 0 : Int(sqlite3_value_bytes(handle)))
    }

    /// A copy of the value.
    package var value: SQLiteValue {
        switch storageClass {
        case .null: .null
        case .integer: .integer(int64)
        case .real: .real(double)
        case .text: .text(String(decoding: textBytes, as: UTF8.self))
        case .blob: .blob(Array(blobBytes))
        }
    }
}
