#if canImport(Glibc)
import Glibc
#endif
import CSQLite
import Synchronization

/// Counts the virtual-machine steps (`SQLITE_STMTSTATUS_VM_STEP`) of the
/// statements that code of this process runs on its own connections to one
/// file: the size probe's cost of a Swift stage, which opens the store itself.
///
/// An auto extension (`sqlite3_auto_extension`, registered once) is run by
/// SQLite at each connection this process opens; on a connection to a file
/// being counted it installs a `SQLITE_TRACE_PROFILE` callback, which SQLite
/// calls as each statement finishes, and which adds the statement's steps (its
/// counter reset, so a statement run again counts again). Connections opened
/// before the count began, or by another copy of the SQLite library (an app's
/// own SQLCipher), are not seen; a trace the code sets itself replaces this one.
package enum StepCount {
    /// The steps so far, by file (its real path).
    private static let counts = Mutex<[String: Int]>([:])

    private static let registered: Bool = {
        // Registering initializes SQLite: its settings go first.
        _ = SQLiteLibrary.configured
        let entry: @convention(c) (OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, OpaquePointer?) -> Int32 = { connection, _, _ in
            guard let connection, let name = sqlite3_db_filename(connection, "main") else { return SQLITE_OK }
            let path = String(cString: name)
            if StepCount.counts.withLock({ $0[path] != nil }) {
                sqlite3_trace_v2(connection, UInt32(SQLITE_TRACE_PROFILE), StepCount.profile, nil)
            }
            return SQLITE_OK
        }
        return sqlite3_auto_extension(unsafeBitCast(entry, to: (@convention(c) () -> Void).self)) == SQLITE_OK
    }()

    private static let profile: @convention(c) (UInt32, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32 = { _, _, statement, _ in
        guard let statement = statement.map(OpaquePointer.init), let connection = sqlite3_db_handle(statement),
            let name = sqlite3_db_filename(connection, "main")
        else { return 0 }
        let steps = Int(sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_VM_STEP, 1))
        let path = String(cString: name)
        StepCount.counts.withLock { counts in if counts[path] != nil { counts[path, default: 0] += steps } }
        return 0
    }

    /// Runs `body`, counting the steps of the statements run meanwhile on
    /// connections it opens to `path`; `nil` when none was seen (no connection,
    /// or one SQLite did not tell of) or the file is already being counted.
    package static func counting<T, E: Error>(_ path: String, _ body: () throws(E) -> T) throws(E) -> (T, Int?) {
        guard registered, let resolved = realpath(path, nil) else { return (try body(), nil) }
        let real = String(cString: resolved)
        free(resolved)
        let claimed = counts.withLock { counts in
            guard counts[real] == nil else { return false }
            counts[real] = 0
            return true
        }
        guard claimed else { return (try body(), nil) }
        defer { _ = counts.withLock { $0.removeValue(forKey: real) } }
        let value = try body()
        let steps = counts.withLock { $0[real] ?? 0 }
        return (value, steps > 0 ? steps : nil)
    }
}
