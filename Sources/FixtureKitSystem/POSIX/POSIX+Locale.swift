#if canImport(Glibc)
import Glibc
#endif

extension POSIX {
    /// Whether the C library can load `locale` for every category (`newlocale`):
    /// glibc falls back to `C` for a locale the system lacks, silently, in a
    /// program's `setlocale(LC_ALL, "")`.
    package static func hasLocale(_ locale: String) -> Bool {
        // LC_ALL_MASK is a macro Swift does not import: the categories' bits.
        let mask = [LC_CTYPE, LC_NUMERIC, LC_TIME, LC_COLLATE, LC_MONETARY, LC_MESSAGES].reduce(Int32(0)) { $0 | (1 << $1) }
        guard !locale.isEmpty, !locale.contains("\0"), let loaded = newlocale(mask, locale, nil) else { return false }
        freelocale(loaded)
        return true
    }
}
