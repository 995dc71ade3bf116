#if canImport(Glibc)
import Glibc
#endif
import FixtureKitSystem

extension Database {
    /// Runs `attempt` again while it fails with an error `retryable` accepts (another
    /// connection holds a lock), until `timeout` has passed: the one retry loop of
    /// the library's work on stores that an app may be using.
    ///
    /// Between attempts the caller's thread sleeps, `firstPause` microseconds at
    /// first, doubled after each attempt up to `maximumPause`, so that the
    /// connection is idle (a RESTART checkpoint of another process may be waiting
    /// for its readers to finish).
    /// - Throws: the last ``SQLiteError`` of `attempt`: the first one that is not
    ///   retryable, or the one of the attempt past `timeout`.
    package static func retrying<T>(
        for timeout: Duration, firstPause: UInt32 = 5_000, maximumPause: UInt32,
        while retryable: (SQLiteError) -> Bool = \.isBusy, _ attempt: () throws(SQLiteError) -> T
    ) throws(SQLiteError) -> T {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var pause = firstPause
        while true {
            do throws(SQLiteError) {
                return try attempt()
            } catch {
                guard retryable(error), clock.now < deadline else { throw error }
            }
            usleep(pause)
            pause = min(pause * 2, maximumPause)
        }
    }
}
