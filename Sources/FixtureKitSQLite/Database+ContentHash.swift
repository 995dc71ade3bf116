import CSQLite
import FixtureKitSystem
import FixtureKitCrypto

/// What reads the rows of a content hash's scan beside it: given a table's name
/// and its columns (those of `SELECT *`), the function to call on each of its
/// rows, or nil.
package typealias ContentRowObserver = (_ table: String, _ columns: [String]) -> ((ContentRow) -> Void)?

/// One row of a content hash's scan, as a ``ContentRowObserver`` reads it: the
/// values of its columns, in the order of `SELECT *`, valid during the call
/// that shows them.
package struct ContentRow {
    private let values: UnsafeMutablePointer<OpaquePointer?>
    package let count: Int

    fileprivate init(_ values: UnsafeMutablePointer<OpaquePointer?>, count: Int) {
        self.values = values
        self.count = count
    }

    /// The value of `column` (from 0, below ``count``).
    package subscript(column: Int) -> SQLiteValueRef {
        precondition(column >= 0 && column < count, "column \(column) of \(count)")
        return SQLiteValueRef(values[column]!)
    }
}

/// Where a content hash computes the SHA-256 of what its scan reads.
package enum ContentHashing: Sendable {
    /// On the thread that scans, in updates of 64 KiB: for callers whose other
    /// threads keep the cores busy (capture, anonymize), where handing the
    /// bytes to another core costs more than it frees.
    case onTheScanningThread
    /// On a second thread, a buffer of `bufferSize` bytes at a time, while the
    /// scan fills the next one: for callers that leave a core free (`hash`).
    /// The SHA-256 is about a third of a content hash's time on a large store.
    case onASecondThread(bufferSize: Int = 16 << 20)
}

/// The content hash of a store: the SHA-256 of its logical content (schema and
/// every row of every table, in a canonical order), read through SQLite, so that
/// it stays the same whatever the page size, journal mode, free pages, text
/// encoding or a VACUUM, and changes when any value does.
///
/// Modelled on SQLite's own `dbhash` program (tool/dbhash.c), with SHA-256 instead
/// of SHA-1 and an encoding that cannot be read two ways. The hashed stream is, in
/// this order:
///
/// 1. the 20 bytes `fixturekit-content-1` and a NUL (the definition's version);
/// 2. `PRAGMA user_version` and `PRAGMA application_id`, two INTEGER values;
/// 3. per row of `SELECT type, name, tbl_name, sql FROM sqlite_schema`, ordered by
///    `name` then `type` (bytewise), leaving out `sqlite_stat1` to `sqlite_stat4`
///    (ANALYZE's statistics): the byte `S` and the four values. Root pages are not
///    hashed: they move with a VACUUM;
/// 4. per table in `pragma_table_list` of `main` (ordinary and shadow tables, not
///    virtual tables, whose rows live in their shadow tables, nor `sqlite_schema`
///    or the statistics), in bytewise order of their names: the byte `T` and the
///    name as a TEXT value, then per row the byte `R` and the row's columns
///    (`SELECT *`), read by a scan of the table's own b-tree (`NOT INDEXED`):
///    rowid order, or primary-key order for a `WITHOUT ROWID` table. A rowid that
///    no INTEGER PRIMARY KEY names is not a column and is not hashed (VACUUM may
///    renumber it); the order of the rows it gives is.
///
/// The rows of a table are hashed by an SQL function that its scan calls on
/// each row (`WHERE` it, which keeps none): the whole table in one
/// `sqlite3_step`, each value read from the scan's own registers, rather than
/// one step and one `sqlite3_column_value` per column for each row (about a
/// tenth of the hash's time on a large store). A table with more columns than
/// a function may take (`SQLITE_LIMIT_FUNCTION_ARG`) is read by its
/// `SELECT *`; the values, and so the stream, are the same either way.
///
/// A value is a tag byte and its bytes: NULL `0x00`; INTEGER `0x01` and 8 bytes,
/// big-endian two's complement; REAL `0x02` and the 8 bytes of its IEEE 754
/// binary64, big-endian; TEXT `0x03`, its length in bytes (8 bytes, big-endian)
/// and its UTF-8 (SQLite converts a UTF-16 store's text); BLOB `0x04`, its length
/// the same way and its bytes.
extension Database {
    /// The version of the definition, hashed first.
    static let contentHashPrefix: [UInt8] = Array("fixturekit-content-1".utf8) + [0]
    /// ANALYZE's tables: statistics, not content.
    static let statisticsTables = ["sqlite_stat1", "sqlite_stat2", "sqlite_stat3", "sqlite_stat4"]

    /// The content hash of the `main` database, read in one transaction.
    ///
    /// Open it only on a copy (a fixture is never opened in place).
    /// - Throws: ``SQLiteError``; a libcrypto failure as `SQLITE_ERROR` with its message.
    public func contentHash() throws(SQLiteError) -> SHA256Digest {
        try contentHashAndRowCounts().digest
    }

    /// The content hash, its SHA-256 computed where `hashing` says: the
    /// digest is the same either way.
    package func contentHash(hashing: ContentHashing) throws(SQLiteError) -> SHA256Digest {
        try contentHashAndRowCounts(hashing: hashing).digest
    }

    /// The content hash, and the rows of each table it read (every table of
    /// `pragma_table_list` of type `table` or `shadow`, but `sqlite_schema` and
    /// the statistics): what `SELECT count(*)` would answer, counted on the way.
    ///
    /// Read in one transaction: the caller's, when the connection is in one (a
    /// read transaction whose snapshot the caller chose), else its own.
    /// - Parameter observer: shown each table's statement before its rows are
    ///   read; the function it returns, if any, is called on each of its rows
    ///   once the row is hashed: what else a caller needs from every row is
    ///   read in the same scan.
    /// - Parameter hashing: where the SHA-256 is computed.
    package func contentHashAndRowCounts(
        observing observer: ContentRowObserver? = nil, hashing: ContentHashing = .onTheScanningThread
    ) throws(SQLiteError) -> (digest: SHA256Digest, rowCounts: [String: Int]) {
        guard isAutocommit else { return try hashContent(observer, hashing) }
        return try inTransaction { () throws(SQLiteError) in try hashContent(observer, hashing) }
    }

    /// The name of the function that hashes each row of a table's scan.
    static let contentRowFunction = "fixturekit_content_row"

    private func hashContent(_ observer: ContentRowObserver?, _ hashing: ContentHashing) throws(SQLiteError) -> (digest: SHA256Digest, rowCounts: [String: Int]) {
        let hasher: ContentHasher
        do { hasher = try ContentHasher(hashing) } catch { throw SQLiteError(code: SQLITE_ERROR, message: error.description) }
        // Without the function (one an earlier hash could not remove is in the
        // way), every table is read by its `SELECT *`.
        let byFunction = addRowFunction(hashingInto: hasher)
        defer {
            _ = hasher.endTable()
            removeRowFunction()
        }
        hasher.append(Self.contentHashPrefix)
        for pragma in ["PRAGMA user_version", "PRAGMA application_id"] {
            let statement = try prepare(pragma)
            _ = try statement.step()
            hasher.appendValue(statement.columnValue(0).handle)
        }
        let excluded = Self.statisticsTables.map { "'\($0)'" }.joined(separator: ", ")
        try hasher.appendRows(of: prepare("""
            SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name NOT IN (\(excluded))
            ORDER BY name COLLATE BINARY, type COLLATE BINARY
            """), marker: UInt8(ascii: "S"))
        let tables = try rows("""
            SELECT name, wr FROM pragma_table_list WHERE schema = 'main' AND type IN ('table', 'shadow')
            AND name NOT IN ('sqlite_schema', \(excluded)) ORDER BY name COLLATE BINARY
            """)
        var rowCounts: [String: Int] = [:]
        for row in tables {
            guard case .text(let name) = row[0] else { continue }
            hasher.append([UInt8(ascii: "T")])
            hasher.appendText(Array(name.utf8))
            // A scan of the table's b-tree, never of an index that covers it: rowid
            // order (given explicitly, with an alias no column shadows), or the
            // primary key's order for a table without rowid.
            let table = quotedIdentifier(name)
            var order = ""
            if row[1] == .integer(0), let alias = try rowidAlias(of: name) { order = " ORDER BY \(alias)" }
            let statement = try prepare("SELECT * FROM \(table) NOT INDEXED\(order)")
            let columns = (0..<statement.columnCount).map { statement.columnName($0) }
            hasher.startTable(each: observer?(name, columns))
            if byFunction, columns.count <= functionArgumentLimit {
                let arguments = columns.map(quotedIdentifier).joined(separator: ", ")
                let scan = try prepare("SELECT 0 FROM \(table) NOT INDEXED WHERE \(Self.contentRowFunction)(\(arguments))\(order)")
                // A failure names the scan as it is documented: the table's `SELECT *`.
                do { while try scan.step() {} } catch {
                    var named = error
                    named.sql = statement.sql
                    throw named
                }
            } else {
                try hasher.appendTableRows(of: statement)
            }
            rowCounts[name] = hasher.endTable()
        }
        do { return (try hasher.finish(), rowCounts) } catch { throw SQLiteError(code: SQLITE_ERROR, message: error.description) }
    }

    /// Adds the function a table's scan calls on each row, which hashes it into
    /// `hasher`. The connection holds the hasher until the function is removed.
    /// - Returns: false when SQLite refused it: one that an earlier hash could
    ///   not remove is still there, and a statement still runs.
    private func addRowFunction(hashingInto hasher: ContentHasher) -> Bool {
        let code = sqlite3_create_function_v2(
            handle, Self.contentRowFunction, -1, SQLITE_UTF8 | SQLITE_DIRECTONLY, Unmanaged.passRetained(hasher).toOpaque(),
            { context, count, values in
                // Borrowed: the connection holds the hasher while SQLite calls it.
                Unmanaged<ContentHasher>.fromOpaque(sqlite3_user_data(context)!)._withUnsafeGuaranteedRef { hasher in
                    guard hasher.isReadingTable, let values else {
                        return sqlite3_result_error(context, "\(Database.contentRowFunction): only a content hash's scan calls it", -1)
                    }
                    hasher.appendTableRow(values, count: Int(count))
                }
            },
            nil, nil,
            // Called when the function is removed, or when adding it failed.
            { hasher in Unmanaged<ContentHasher>.fromOpaque(hasher!).release() })
        return code == SQLITE_OK
    }

    /// Removes the function: it fails only while a caller's statement is still
    /// running on the connection, and the function then stays, holding its
    /// hasher, refusing every call.
    private func removeRowFunction() {
        sqlite3_create_function_v2(handle, Self.contentRowFunction, -1, SQLITE_UTF8 | SQLITE_DIRECTONLY, nil, nil, nil, nil, nil)
    }

    /// `rowid`, `_rowid_` or `oid`: the first name for the rowid that no column of
    /// `table` takes; `nil` when all three are taken (the scan is in rowid order anyway).
    private func rowidAlias(of table: String) throws(SQLiteError) -> String? {
        let columns = Set(try rows("SELECT lower(name) FROM pragma_table_xinfo(?1)", [.text(table)]).compactMap { $0.first?.text })
        return ["rowid", "_rowid_", "oid"].first { !columns.contains($0) }
    }
}

/// Feeds the canonical encoding of values to SHA-256 through a buffer, so that
/// libcrypto sees large updates rather than one call per value. The buffer is
/// raw memory written in place: an array's appends (their exclusivity checks and
/// capacity checks, per value) cost as much as the hashing on a large store.
///
/// Hashing ``ContentHashing/onASecondThread(bufferSize:)``, there are two
/// buffers: a full one is handed to a ``BackgroundStage`` to hash while the scan
/// fills the other. The stream hashed is the same, in the same order: a buffer
/// is handed over only once the one before it is hashed (the stage takes one
/// piece at a time), and a value larger than a buffer is hashed on the
/// scanning thread only after waiting for the stage.
private final class ContentHasher {
    private let digest: SHA256
    private let bufferSize: Int
    /// A value's tag and length (9 bytes) or a row's marker fit in the slack.
    private static let slack = 16
    /// The buffer being filled.
    private var buffer: UnsafeMutableRawPointer
    /// The one the stage may be hashing; nil when hashing on the scanning thread.
    private var spare: UnsafeMutableRawPointer?
    private var count = 0
    private let stage: BackgroundStage?

    init(_ hashing: ContentHashing) throws(CryptoError) {
        digest = try SHA256()
        switch hashing {
        case .onTheScanningThread:
            bufferSize = 1 << 16
            stage = nil
        case .onASecondThread(let size):
            bufferSize = max(size, 1)
            stage = BackgroundStage()
            spare = .allocate(byteCount: bufferSize + Self.slack, alignment: 64)
        }
        buffer = .allocate(byteCount: bufferSize + Self.slack, alignment: 64)
    }

    deinit {
        stage?.drain()
        buffer.deallocate()
        spare?.deallocate()
    }

    func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { appendRaw($0) }
    }

    private var failure: CryptoError?

    /// Hashes what the buffer holds, or hands it to the stage and fills the other one next.
    private func flush() {
        guard count > 0 else { return }
        let filled = UnsafeRawBufferPointer(start: buffer, count: count)
        count = 0
        guard let stage, let spare else {
            do { try digest.update(filled) } catch { failure = failure ?? error }
            return
        }
        waitForStage()
        let digest = self.digest
        stage.start { try digest.update(filled) }
        (buffer, self.spare) = (spare, buffer)
    }

    /// Waits until the buffer handed over last is hashed.
    private func waitForStage() {
        do { try stage?.wait() } catch { failure = failure ?? (error as? CryptoError) ?? CryptoError("EVP_DigestUpdate") }
    }

    /// Bytes copied into the buffer, or, when they do not fit in one, given to
    /// libcrypto directly once everything before them is hashed.
    private func appendRaw(_ bytes: UnsafeRawBufferPointer) {
        if count + bytes.count > bufferSize {
            flush()
            if bytes.count > bufferSize {
                waitForStage()
                do { try digest.update(bytes) } catch { failure = failure ?? error }
                return
            }
        }
        if let base = bytes.baseAddress, bytes.count > 0 { (buffer + count).copyMemory(from: base, byteCount: bytes.count) }
        count += bytes.count
    }

    // The appends below read `count` and `buffer` once into locals: the
    // compiler cannot tell the buffer's bytes from the hasher's own fields, and
    // would read them again after every byte stored.

    private func appendByte(_ byte: UInt8) {
        let at = count
        buffer.storeBytes(of: byte, toByteOffset: at, as: UInt8.self)
        count = at + 1
        if at + 1 >= bufferSize { flush() }
    }

    private func appendNumber(_ tag: UInt8, _ bits: UInt64) {
        let at = count, base = buffer
        base.storeBytes(of: tag, toByteOffset: at, as: UInt8.self)
        base.storeBytes(of: bits.bigEndian, toByteOffset: at + 1, as: UInt64.self)
        count = at + 9
        if at + 9 >= bufferSize { flush() }
    }

    /// A length-prefixed run of bytes after `tag`: large ones go to libcrypto directly.
    private func appendBytes(_ tag: UInt8, _ bytes: UnsafeRawBufferPointer) {
        let at = count, base = buffer
        guard at + 9 + bytes.count < bufferSize else {
            appendNumber(tag, UInt64(bytes.count))
            return appendRaw(bytes)
        }
        base.storeBytes(of: tag, toByteOffset: at, as: UInt8.self)
        base.storeBytes(of: UInt64(bytes.count).bigEndian, toByteOffset: at + 1, as: UInt64.self)
        if let start = bytes.baseAddress { (base + at + 9).copyMemory(from: start, byteCount: bytes.count) }
        count = at + 9 + bytes.count
    }

    func appendText(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { appendBytes(0x03, $0) }
    }

    /// A value, read through its `sqlite3_value`: a function's argument, or a
    /// statement's column (``Statement/columnValue(_:)``: one call to find the
    /// column, where the `sqlite3_column_*` functions find it, and check for a
    /// failed allocation, on each call). The value is unprotected, which only
    /// matters to a connection shared between threads; this one is read on one.
    func appendValue(_ value: OpaquePointer) {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: appendNumber(0x01, UInt64(bitPattern: sqlite3_value_int64(value)))
        case SQLITE_FLOAT: appendNumber(0x02, sqlite3_value_double(value).bitPattern)
        case SQLITE_TEXT: appendBytes(0x03, UnsafeRawBufferPointer(SQLiteValueRef(value).textBytes))
        case SQLITE_BLOB: appendBytes(0x04, UnsafeRawBufferPointer(SQLiteValueRef(value).blobBytes))
        default: appendByte(0x00)
        }
    }

    /// Every row of `statement`, each after `marker`.
    func appendRows(of statement: Statement, marker: UInt8) throws(SQLiteError) {
        let handle = statement.handle
        let columns = Int32(statement.columnCount)
        while try statement.step() {
            appendByte(marker)
            for column in 0..<columns { appendValue(sqlite3_column_value(handle, column)) }
        }
    }

    // The table being read: the function its rows are shown to, how many were hashed.
    @exclusivity(unchecked) private var each: ((ContentRow) -> Void)?
    @exclusivity(unchecked) private var rows = 0
    /// Whether a table is being read: the row function refuses calls otherwise.
    private(set) var isReadingTable = false

    func startTable(each: ((ContentRow) -> Void)?) {
        self.each = each
        rows = 0
        isReadingTable = true
    }

    /// One row of the table being read: the byte `R` and its values, then the
    /// row shown to the table's observer.
    func appendTableRow(_ values: UnsafeMutablePointer<OpaquePointer?>, count: Int) {
        appendByte(UInt8(ascii: "R"))
        for index in 0..<count { appendValue(values[index]!) }
        each?(ContentRow(values, count: count))
        rows += 1
    }

    /// The rows of the table being read, by its `SELECT *` statement.
    func appendTableRows(of statement: Statement) throws(SQLiteError) {
        let count = statement.columnCount
        let values = UnsafeMutablePointer<OpaquePointer?>.allocate(capacity: count)
        defer { values.deallocate() }
        while try statement.step() {
            for column in 0..<count { values[column] = statement.columnValue(column).handle }
            appendTableRow(values, count: count)
        }
    }

    /// - Returns: how many rows the table had.
    func endTable() -> Int {
        each = nil
        isReadingTable = false
        return rows
    }

    func finish() throws(CryptoError) -> SHA256Digest {
        flush()
        waitForStage()
        if let failure { throw failure }
        return try digest.finalize()
    }
}
