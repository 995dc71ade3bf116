#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The time zone of this process, as the C library's `localtime` reads it:
/// SQLite's `localtime` and `utc` date modifiers use it, so the SQL stages that
/// fixturekit runs itself see it.
package enum ProcessTimeZone {
    private static let changing = Mutex<Void>(())

    /// Makes `zone` (a `TZ` value: `UTC`, `Europe/Berlin`) the process' time
    /// zone, unless it is already: sets `TZ` and calls `tzset()`, which
    /// `localtime_r` does not call again by itself.
    ///
    /// The environment is the process'; call it before the threads that read it start.
    package static func use(_ zone: String) {
        changing.withLock { _ in
            if let current = getenv("TZ"), String(cString: current) == zone { return }
            setenv("TZ", zone, 1)
            tzset()
        }
    }
}
