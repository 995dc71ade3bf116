#if canImport(Glibc)
import Glibc
#endif
import CSQLite
import Synchronization
import FixtureKitSystem

/// fixturekit's own SQLite VFS, `fixturekit`: the default (unix) VFS, with what
/// a capture asks for through parameters of a connection's URI
/// (<https://www.sqlite.org/vfs.html>, <https://www.sqlite.org/uri.html>):
///
/// - `fixturekit_source=ID`: a store read and never written: every file of its
///   set is opened read-only, and when ID is not 0, the first whole page SQLite
///   reads (page 1, which a read transaction reads first, from the main file or
///   from the `-wal`) is kept in the ``SourceFirstPage`` registered as ID;
/// - `fixturekit_at_rest=1`, with `fixturekit_source`: a WAL store that no
///   connection holds, read in place without its `-shm`. The connection must set
///   `PRAGMA locking_mode = EXCLUSIVE` before its first read: SQLite then keeps
///   the wal-index in its own memory, rebuilt from the `-wal`, and never maps
///   the `-shm` (``ShimFile`` refuses to, so a connection that forgot fails
///   rather than creating one). Every lock SQLite asks for on the main file is
///   SQLite's shared lock (a read-only descriptor cannot hold more): a reader
///   like any other to an app that opens the store meanwhile;
/// - `fixturekit_sink=ID`: the main file's writes go through the
///   ``HashedWrites`` registered as ID (hashed in file order, written in large
///   pieces).
/// - `fixturekit_gather=1`: a database file that this connection alone reads
///   and writes, with no journal: its writes that follow one another are
///   gathered into larger ones, and its reads read ahead (``GatheredFile``).
///
/// Every other call goes to the default VFS unchanged.
package enum CaptureVFS {
    /// The VFS's name, for a URI's `vfs=` parameter.
    package static let name = "fixturekit"

    /// SQLite's extended result codes `SQLITE_IOERR_WRITE` and `SQLITE_IOERR_SHMMAP`
    /// (macros of shifted values, which Swift does not import).
    static let ioErrorWrite = SQLITE_IOERR | (3 << 8)
    static let ioErrorMapping = SQLITE_IOERR | (21 << 8)

    /// Registers the VFS once; later calls return at once.
    /// - Throws: ``SQLiteError`` when SQLite has no default VFS or refuses it.
    package static func register() throws(SQLiteError) {
        if let failure = registration { throw SQLiteError(code: failure, message: "cannot register the \(name) VFS") }
    }

    /// The result of registering, done once: `nil` when registered.
    private static let registration: Int32? = {
        _ = SQLiteLibrary.configured
        guard let base = sqlite3_vfs_find(nil) else { return SQLITE_ERROR }
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        vfs.initialize(to: base.pointee)
        vfs.pointee.pNext = nil
        vfs.pointee.zName = UnsafePointer(strdup(name))
        vfs.pointee.pAppData = UnsafeMutableRawPointer(base)
        vfs.pointee.szOsFile = Int32(ShimFile.innerOffset) + base.pointee.szOsFile
        vfs.pointee.xOpen = shimOpen
        let code = sqlite3_vfs_register(vfs, 0)
        return code == SQLITE_OK ? nil : code
    }()

    /// A `file:` URI for `path` with these query parameters (`vfs=fixturekit`
    /// added): `file:/a%20b/App.sqlite?immutable=1&vfs=fixturekit`.
    package static func uri(_ path: String, _ parameters: [(String, String)]) -> String {
        let query = (parameters + [("vfs", name)]).map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        return Database.fileURI(path) + "?" + query
    }

    // MARK: - Registered objects

    /// An object a URI names by number, while its connections are open. Only
    /// the connection's thread uses it (SQLite calls the VFS on that thread).
    private struct Registered: @unchecked Sendable { let object: AnyObject }
    private static let objects = Mutex<[Int64: Registered]>([:])
    private static let nextID = Atomic<Int64>(1)

    /// Registers `object` under a new number, for a URI parameter.
    package static func register(_ object: AnyObject) -> Int64 {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        let registered = Registered(object: object)
        objects.withLock { $0[id] = registered }
        return id
    }

    /// Forgets the object registered as `id` (once its connections are closed).
    package static func unregister(_ id: Int64) {
        _ = objects.withLock { $0.removeValue(forKey: id) }
    }

    fileprivate static func object<T: AnyObject>(_ id: Int64, as type: T.Type) -> T? {
        objects.withLock { $0[id]?.object } as? T
    }

    // MARK: - Opening

    fileprivate static let shimOpen: @convention(c) (UnsafeMutablePointer<sqlite3_vfs>?, sqlite3_filename?, UnsafeMutablePointer<sqlite3_file>?, Int32, UnsafeMutablePointer<Int32>?) -> Int32 = { vfs, name, file, flags, outFlags in
        guard let vfs, let file, let base = vfs.pointee.pAppData?.assumingMemoryBound(to: sqlite3_vfs.self), let open = base.pointee.xOpen else { return SQLITE_CANTOPEN }
        file.pointee.pMethods = nil
        let inner = ShimFile.inner(of: file)
        inner.pointee.pMethods = nil
        var role = ShimFile.Role()
        var innerFlags = flags
        if let name {
            let kind = flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL | SQLITE_OPEN_MAIN_JOURNAL)
            if sqlite3_uri_parameter(name, "fixturekit_source") != nil, kind != 0 {
                role.isSource = true
                role.isMain = kind == SQLITE_OPEN_MAIN_DB
                role.isWAL = kind == SQLITE_OPEN_WAL
                role.isAtRest = sqlite3_uri_boolean(name, "fixturekit_at_rest", 0) != 0
                let id = sqlite3_uri_int64(name, "fixturekit_source", 0)
                if id != 0 { role.pages = object(id, as: SourceFirstPage.self) }
                innerFlags = (flags & ~(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_READONLY
            }
            if kind == SQLITE_OPEN_MAIN_DB, case let id = sqlite3_uri_int64(name, "fixturekit_sink", 0), id != 0 {
                guard let sink = object(id, as: HashedWrites.self) else { return SQLITE_CANTOPEN }
                role.sink = sink
            }
            if kind == SQLITE_OPEN_MAIN_DB, sqlite3_uri_boolean(name, "fixturekit_gather", 0) != 0 { role.gather = GatheredFile() }
        }
        let code = open(base, name, inner, innerFlags, outFlags)
        guard code == SQLITE_OK else {
            if let close = inner.pointee.pMethods?.pointee.xClose { _ = close(inner) }
            inner.pointee.pMethods = nil
            return code
        }
        let shim = ShimFile(inner: inner, role: role)
        role.sink?.attach(inner)
        (UnsafeMutableRawPointer(file) + ShimFile.contextOffset).storeBytes(of: Unmanaged.passRetained(shim).toOpaque(), as: UnsafeMutableRawPointer.self)
        file.pointee.pMethods = UnsafePointer(ShimFile.methods)
        return SQLITE_OK
    }
}

extension Database {
    /// A `file:` URI for `path`: every byte outside the unreserved set percent-encoded.
    package static func fileURI(_ path: String) -> String {
        var uri = "file:"
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                uri.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                uri.unicodeScalars.append("%")
                uri.unicodeScalars.append(digits[Int(byte >> 4)])
                uri.unicodeScalars.append(digits[Int(byte & 0x0F)])
            }
        }
        return uri
    }
}

/// The first page SQLite read from a store opened with `fixturekit_source=ID`:
/// page 1 as the read transaction sees it (see ``CaptureVFS``).
package final class SourceFirstPage: Sendable {
    private let first = Mutex<[UInt8]?>(nil)

    package init() {}

    /// Page 1, once a read transaction has begun; `nil` before.
    package var firstPage: [UInt8]? { first.withLock { $0 } }

    /// Forgets the page: before the store is opened again.
    package func reset() { first.withLock { $0 = nil } }

    fileprivate func record(_ bytes: UnsafeRawPointer, count: Int) {
        first.withLock { page in
            if page == nil { page = Array(UnsafeRawBufferPointer(start: bytes, count: count)) }
        }
    }

    fileprivate var hasRecorded: Bool { first.withLock { $0 != nil } }
}

/// One file opened through ``CaptureVFS``: the default VFS's file, stored right
/// after this object's pointer in SQLite's `sqlite3_file` allocation.
final class ShimFile {
    /// Where the pointer to this object is kept in the `sqlite3_file`, and where the
    /// default VFS's file starts (SQLite aligns the allocation to 8 bytes).
    static let contextOffset = MemoryLayout<sqlite3_file>.stride
    static let innerOffset = contextOffset + MemoryLayout<UnsafeMutableRawPointer>.stride

    struct Role {
        var isSource = false
        var isMain = false
        var isWAL = false
        /// A WAL store read without its `-shm` (`fixturekit_at_rest=1`).
        var isAtRest = false
        var pages: SourceFirstPage?
        var sink: HashedWrites?
        var gather: GatheredFile?
    }

    let inner: UnsafeMutablePointer<sqlite3_file>
    let role: Role
    /// Reads made ahead: for a store's main file, read where a transaction
    /// began (not its `-wal`, whose frames an app may rewrite from the start
    /// between two of this connection's transactions, with no lock of this
    /// file changing), and a gathered file, whose reads write what is gathered
    /// through it (it is never `nil` for one).
    let readAhead: ReadAhead?
    /// Whether the main file of an at-rest read holds SQLite's shared lock
    /// (only SQLite's thread of this connection uses it).
    var holdsSharedLock = false

    init(inner: UnsafeMutablePointer<sqlite3_file>, role: Role) {
        self.inner = inner
        self.role = role
        readAhead = role.isSource && role.isMain || role.gather != nil ? ReadAhead() : nil
    }

    static func inner(of file: UnsafeMutablePointer<sqlite3_file>) -> UnsafeMutablePointer<sqlite3_file> {
        (UnsafeMutableRawPointer(file) + innerOffset).assumingMemoryBound(to: sqlite3_file.self)
    }

    static func of(_ file: UnsafeMutablePointer<sqlite3_file>?) -> ShimFile {
        let context = (UnsafeMutableRawPointer(file!) + contextOffset).load(as: UnsafeMutableRawPointer.self)
        return Unmanaged<ShimFile>.fromOpaque(context).takeUnretainedValue()
    }

    var methods: sqlite3_io_methods { inner.pointee.pMethods!.pointee }

    /// Writes what ``Role/gather`` holds, when there is one and, given a range,
    /// when what it holds lies in it.
    func writeGathered(overlapping range: (offset: Int64, count: Int)? = nil) -> Int32 {
        guard let gather = role.gather else { return SQLITE_OK }
        if let range, !gather.overlaps(range.offset, count: range.count) { return SQLITE_OK }
        return gather.flush(inner)
    }

    /// Records the first whole page read: a page of the main file at offset 0, or
    /// a frame's page in the `-wal` (32-byte header, then frames of a 24-byte
    /// header and a page).
    func observe(_ buffer: UnsafeRawPointer, count: Int, offset: Int64) {
        // A page is 512 to 65536 bytes, a power of two: WAL recovery's reads of a
        // frame and its header (24 bytes more) are never taken for one.
        guard let pages = role.pages, count >= 512, count & (count - 1) == 0, !pages.hasRecorded else { return }
        let isPage = role.isMain ? offset == 0 : role.isWAL && offset >= 56 && (offset - 32) % Int64(count + 24) == 24
        if isPage { pages.record(buffer, count: count) }
    }
}
