import FixtureKitSQLite
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitArchiveIO

/// The hints a failure to open or read a store gets, written once.
package enum StoreHint {
    /// What helps when SQLite cannot open or read a store: `is it an SQLite store?`
    /// for a file that is not one, the permissions when it cannot be opened; `nil` otherwise.
    package static func opening(_ error: SQLiteError) -> String? {
        switch error.resultCode {
        case .notADatabase: "is it an SQLite store?"
        case .cantOpen, .readOnly: "check the permissions of the store and of its folder"
        default: nil
        }
    }
}
