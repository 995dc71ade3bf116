#if canImport(Glibc)
import Glibc
#endif

/// A moment of the system's real-time clock, broken down in UTC (`clock_gettime`,
/// then `gmtime_r`), to the microsecond.
package struct UTCTime: Sendable, Equatable {
    package var year, month, day, hour, minute, second, microsecond: Int

    /// Now.
    package static var now: UTCTime {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return UTCTime(
            year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday),
            hour: Int(parts.tm_hour), minute: Int(parts.tm_min), second: Int(parts.tm_sec), microsecond: Int(now.tv_nsec) / 1000)
    }
}
