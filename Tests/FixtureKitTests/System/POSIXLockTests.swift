import Foundation
import Glibc
import Testing
import FixtureKitSystem
@testable import FixtureKitTestSupport

/// `POSIX.lock`: a lock held for an instant (a child forked by another thread
/// shares the open file until its exec) is waited for; one held on is not.
@Suite struct POSIXLockTests {
    @Test func aLockReleasedWithinTheGraceIsTaken() throws {
        let folder = try TemporaryFolder()
        let path = folder.url("lock")
        let holder = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        let waiter = open(path, O_RDWR | O_CLOEXEC)
        defer { close(holder); close(waiter) }
        try #require(holder >= 0 && waiter >= 0)
        #expect(flock(holder, LOCK_EX | LOCK_NB) == 0)
        let released = Thread {
            usleep(100_000)
            flock(holder, LOCK_UN)
        }
        released.start()
        #expect(POSIX.lock(waiter, LOCK_EX, grace: .seconds(5)))
    }

    @Test func aLockHeldOnIsRefusedAfterTheGrace() throws {
        let folder = try TemporaryFolder()
        let path = folder.url("lock")
        let holder = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        let waiter = open(path, O_RDWR | O_CLOEXEC)
        defer { close(holder); close(waiter) }
        try #require(holder >= 0 && waiter >= 0)
        #expect(flock(holder, LOCK_SH | LOCK_NB) == 0)
        let start = ContinuousClock.now
        #expect(!POSIX.lock(waiter, LOCK_EX, grace: .milliseconds(50)))
        #expect(ContinuousClock.now - start >= .milliseconds(50))
        // A shared lock is no obstacle to another shared lock.
        #expect(POSIX.lock(waiter, LOCK_SH, grace: .zero))
    }
}
