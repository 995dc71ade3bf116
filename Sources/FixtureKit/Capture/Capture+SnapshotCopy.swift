import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitCrypto

/// What lets `capture --mode snapshot` hash its copy from the bytes SQLite writes,
/// without reading the copy again (``HashedWrites``).
///
/// The online backup writes the copy in page order, except page 1, which it keeps
/// until its commit, where it writes the source's page 1 with the header of a new
/// file: file change counter, schema cookie and version-valid-for number 1, the
/// page count, and the writing library's version number. That page is hashed
/// first; if SQLite writes another one (another library, another backup), or the
/// copy's size is not the bytes hashed, the digest is dropped and the copy hashed
/// from the disk as before: the fixture's bytes and `SHA256SUMS` are the same
/// either way.
enum SnapshotCopy {
    /// Page 1 of a new copy of a snapshot whose page 1 is `source` and which has
    /// `pageCount` pages; `nil` when `source` is not a page.
    static func firstPage(of source: [UInt8], pageCount: Int64) -> [UInt8]? {
        guard source.count >= 512, source.count & (source.count - 1) == 0, (1...Int64(UInt32.max)).contains(pageCount) else { return nil }
        var page = source
        func put(_ value: UInt32, at offset: Int) {
            for index in 0..<4 { page[offset + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * index)) }
        }
        put(1, at: 24) // file change counter: a new file's first commit
        put(UInt32(pageCount), at: 28) // the database's size in pages
        put(1, at: 40) // schema cookie: the new file's 0, plus one
        put(1, at: 92) // version-valid-for: the change counter
        put(UInt32(Database.libraryVersionNumber), at: 96)
        return page
    }

    /// `digest` when the file at `path` has its size.
    static func digest(_ digest: FileDigest?, of path: String) -> FileDigest? {
        guard let digest, let status = try? POSIX.lstat(path), UInt64(status.size) == digest.size else { return nil }
        return digest
    }
}
