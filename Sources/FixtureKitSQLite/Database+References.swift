import CSQLite
import FixtureKitSystem

extension Database {
    /// The tables each view and trigger reaches while SQLite compiles `sql`, by the
    /// view's or trigger's name, both by `identifierKey`: what the authorizer is asked on
    /// their behalf (its sixth argument names the innermost view or trigger
    /// responsible, <https://www.sqlite.org/c3ref/set_authorizer.html>). The
    /// statement is compiled only, never run.
    /// - Throws: SQLite's error when `sql` does not compile (a view or trigger
    ///   that names a table or column that is not there).
    package func references(compiling sql: String) throws(SQLiteError) -> [String: Set<String>] {
        let collector = ReferenceCollector()
        let context = Unmanaged.passUnretained(collector).toOpaque()
        sqlite3_set_authorizer(handle, collectReferences, context)
        defer { sqlite3_set_authorizer(handle, nil, nil) }
        _ = try prepare(sql)
        return collector.references
    }
}

/// What ``Database/references(compiling:)`` gathers during one prepare.
private final class ReferenceCollector {
    var references: [String: Set<String>] = [:]
}

/// The authorizer of ``Database/references(compiling:)``: notes the tables read
/// or written inside a view or trigger, and allows everything.
private let collectReferences: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32 = {
    context, action, first, _, _, inside in
    guard let context, let inside, let first else { return SQLITE_OK }
    switch action {
    case SQLITE_READ, SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE:
        let table = String(cString: first).identifierKey
        guard !table.hasPrefix("sqlite_") else { return SQLITE_OK }
        let collector = Unmanaged<ReferenceCollector>.fromOpaque(context).takeUnretainedValue()
        collector.references[String(cString: inside).identifierKey, default: []].insert(table)
    default:
        break
    }
    return SQLITE_OK
}
