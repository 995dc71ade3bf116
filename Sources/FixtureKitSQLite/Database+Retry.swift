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
        var last: SQLiteError?
        let value = try retrying(within: timeout, firstPause: firstPause, maximumPause: maximumPause) { () throws(SQLiteError) -> T? in
            do throws(SQLiteError) {
                return try attempt()
            } catch {
                guard retryable(error) else { throw error }
                last = error
                return nil
            }
        }
        // `nil` only after an attempt that failed with a retryable error.
        guard let value else { throw last ?? SQLiteError(code: ResultCode.busy.rawValue) }
        return value
    }

    /// The retry loop itself: runs `attempt` until it gives a value, at most
    /// `attempts` times when given, and not again once `timeout` (when given)
    /// has passed since the first; `nil` when it never did. Between attempts the thread
    /// sleeps `firstPause` microseconds, doubled after each attempt up to
    /// `maximumPause` (equal to `firstPause` for a fixed pause).
    /// - Throws: what `attempt` throws, at once.
    package static func retrying<T, E: Error>(
        within timeout: Duration? = nil, attempts: Int? = nil, firstPause: UInt32, maximumPause: UInt32, _ attempt: () throws(E) -> T?
    ) throws(E) -> T? {
        let clock = ContinuousClock()
        let deadline = timeout.map { clock.now + $0 }
        var pause = firstPause
        var made = 0
        while true {
            if let value = try attempt() { return value }
            made += 1
            guard deadline.map({ clock.now < $0 }) ?? true, made < attempts ?? Int.max else { return nil }
            usleep(pause)
            pause = min(pause * 2, maximumPause)
        }
    }
}
