#if canImport(Glibc)
import Glibc
#endif

/// The character set libarchive converts names with: UTF-8, on the calling thread
/// only, whatever the process' locale.
///
/// libarchive converts every name between UTF-8 (pax `path=` records) and the
/// current locale's character set, which is ASCII in a Swift program (it never
/// calls `setlocale`). libarchive 3.6.2's pax writer then dereferences a null
/// name for any non-ASCII path (it crashes), and a name that does not convert is
/// a warning when reading. Under `C.UTF-8` both ways are the identity, and the
/// bytes written do not depend on the user's `LANG`.
package enum ArchiveLocale {
    /// `LC_CTYPE_MASK` (`1 << __LC_CTYPE`), a macro Swift does not import.
    private static let characterTypeMask: Int32 = 1 << 0

    /// glibc's built-in `C.UTF-8` (glibc 2.35 and later), made once and kept.
    nonisolated(unsafe) private static let utf8: locale_t? = newlocale(characterTypeMask, "C.UTF-8", nil)

    /// Whether names can be converted: `C.UTF-8` exists, or the locale already is UTF-8.
    package static var isAvailable: Bool { utf8 != nil }

    /// Runs `body` with the calling thread's `LC_CTYPE` set to `C.UTF-8`.
    package static func withUTF8<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        guard let utf8 else { return try body() }
        let previous = uselocale(utf8)
        defer { uselocale(previous) }
        return try body()
    }
}
