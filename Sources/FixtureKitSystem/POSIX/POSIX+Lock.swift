import Glibc

extension POSIX {
    /// Takes an advisory `flock` lock (`LOCK_EX` or `LOCK_SH`) without waiting on
    /// its holder, but tries again for up to `grace` before giving up: a child that
    /// another thread of this process is forking shares the lock's open file for
    /// the instant before its `exec` closes it, and holds the lock that long.
    /// - Returns: whether the lock is now held.
    package static func lock(_ fd: Int32, _ operation: Int32, grace: Duration = .milliseconds(500)) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + grace
        while true {
            if retrying({ flock(fd, operation | LOCK_NB) }) == 0 { return true }
            guard errno == EWOULDBLOCK, clock.now < deadline else { return false }
            usleep(10_000)
        }
    }
}
