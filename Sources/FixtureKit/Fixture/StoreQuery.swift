#if canImport(Glibc)
import Glibc
#endif
import CSQLite
import Foundation

/// One value of a query's row, as SQLite gives it.
public enum QueryValue: Sendable, Equatable {
    case null
    case integer(Int64)
    /// A number with SQLite's own text for it (`1.0e+20`), which `sqlite3` prints.
    case real(Double, text: String)
    case text(String)
    case blob([UInt8])
}

/// The rows of one statement.
public struct QueryResult: Sendable, Equatable {
    public var columns: [String]
    public var rows: [[QueryValue]]
}

/// Looking at a fixture, an archive or a store without touching it: every query
/// runs on a temporary copy (verified for a fixture or an archive), removed afterwards.
public enum StoreQuery {
    /// Runs every statement of `sql` on a temporary copy of what `path` names.
    ///
    /// Statements that change the store change the copy only.
    /// - Throws: ``FixtureKitError``: `path` does not verify (exit 1), cannot be
    ///   read or copied, or a statement fails (exit 2).
    public static func run(_ sql: String, on path: String, progress: WorkProgress? = nil) throws(FixtureKitError) -> [QueryResult] {
        try withCopy(of: path, progress: progress) { (store: String) throws(FixtureKitError) in
            let database: Database
            do throws(SQLiteError) { database = try Database(path: store, options: .init(busyTimeout: 0)) } catch {
                throw FixtureKitError(what: "sql", path: path, why: error.description)
            }
            do throws(SQLiteError) { return try database.results(of: sql) } catch {
                throw FixtureKitError(what: "sql", path: path, why: error.description)
            }
        }
    }

    /// Runs `sqlite3` on a temporary copy of what `path` names, with this process'
    /// terminal, and waits for it; the copy is removed when it exits.
    /// - Returns: `sqlite3`'s exit status.
    /// - Throws: ``FixtureKitError``: as ``run(_:on:progress:)``, or `sqlite3` cannot be started.
    public static func interactive(on path: String, program: String = "sqlite3") throws(FixtureKitError) -> Int32 {
        try withCopy(of: path) { (store: String) throws(FixtureKitError) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [program, store]
            do { try process.run() } catch {
                throw FixtureKitError(what: "sql", path: path, why: "cannot start \(program): \(error.localizedDescription)", hint: "install sqlite3, or give a query")
            }
            process.waitUntilExit()
            if process.terminationStatus == 127 {
                throw FixtureKitError(what: "sql", path: path, why: "\(program) not found", hint: "install sqlite3, or give a query")
            }
            return process.terminationStatus
        }
    }

    /// A temporary copy of the store `path` names, handed to `body` by its main
    /// file's path and removed afterwards: a fixture folder is copied and the
    /// copy verified; an archive is unpacked (and so verified); a store is copied
    /// through SQLite's backup API, one consistent snapshot, its files untouched.
    static func withCopy<T>(of path: String, progress: WorkProgress? = nil, _ body: (String) throws(FixtureKitError) -> T) throws(FixtureKitError) -> T {
        let scratch: ScratchFolder
        do { scratch = try ScratchFolder() } catch {
            throw FixtureKitError(what: "sql: \(error.operation)", path: error.path, why: error.reason)
        }
        let store: String
        if ArchiveFormat(fileName: path) != nil, !FixtureLocator.isFolder(path) {
            let folder = scratch.path.appendingPath("fixture")
            let result = try FixtureArchive.unpack(path, to: folder, progress: progress)
            if !result.extracted, let problem = result.contents.verification.problems.first {
                throw FixtureKitError(what: "sql", path: path, why: "entry \"\(problem.file)\": \(problem.summary)", category: .checkFailed)
            }
            store = try FixtureLocator.storePath(inFixture: folder)
        } else if FixtureLocator.isFolder(path) {
            store = try VerifiedCopy.verifiedCopy(of: path, into: scratch.path.appendingPath("fixture"))
        } else {
            let set = try StoreSet(storePath: path)
            do { _ = try set.readHeader() } catch {
                throw FixtureKitError(what: "sql", path: path, why: error.why)
            }
            store = scratch.path.appendingPath(set.storeName)
            if set.has(.journal) {
                // A hot journal is rolled back in the copy, where SQLite may write.
                do { try set.copyMembers(to: scratch.path, sync: false) } catch {
                    throw FixtureKitError(what: "sql: copy: \(error.operation)", path: error.path, why: error.reason)
                }
            } else {
                do { try Capture.snapshot(set, to: store) } catch { throw error.within("sql") }
            }
        }
        return try withExtendedLifetime(scratch) { () throws(FixtureKitError) in try body(store) }
    }
}

extension Database {
    /// Runs every statement of `sql` in order, as SQLite's parser splits them,
    /// and gives back the rows of each that returns columns.
    func results(of sql: String) throws(SQLiteError) -> [QueryResult] {
        var utf8 = Array(sql.utf8CString)
        let count = utf8.count
        var results: [QueryResult] = []
        var failure: SQLiteError?
        utf8.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var cursor = UnsafePointer<CChar>(base)
            let end = UnsafePointer<CChar>(base) + count - 1
            while cursor < end {
                var statement: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let code = sqlite3_prepare_v3(handle, cursor, Int32(end - cursor), 0, &statement, &tail)
                guard code == SQLITE_OK else {
                    failure = SQLiteError(connection: handle, code: code, sql: String(cString: cursor))
                    sqlite3_finalize(statement)
                    return
                }
                cursor = tail ?? end
                guard let statement else { continue }
                defer { sqlite3_finalize(statement) }
                let columns = Int(sqlite3_column_count(statement))
                var result = QueryResult(columns: (0..<columns).map { String(cString: sqlite3_column_name(statement, Int32($0))) }, rows: [])
                var step = sqlite3_step(statement)
                while step == SQLITE_ROW {
                    result.rows.append((0..<columns).map { Self.queryValue(statement, Int32($0)) })
                    step = sqlite3_step(statement)
                }
                guard step == SQLITE_DONE else {
                    failure = SQLiteError(connection: handle, code: step, sql: String(cString: sqlite3_sql(statement)))
                    return
                }
                if columns > 0 { results.append(result) }
            }
        }
        if let failure { throw failure }
        return results
    }

    private static func queryValue(_ statement: OpaquePointer, _ column: Int32) -> QueryValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT:
            let value = sqlite3_column_double(statement, column)
            // SQLite's own text for the number (`%!.15g`), as its shell prints it.
            let text = sqlite3_column_text(statement, column).map { String(cString: $0) } ?? String(value)
            return .real(value, text: text)
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard let pointer = sqlite3_column_text(statement, column) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let pointer = sqlite3_column_blob(statement, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: pointer, count: count)))
        default: return .null
        }
    }
}
