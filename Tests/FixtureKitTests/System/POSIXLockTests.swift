import Foundation
import Glibc
import Testing
import FixtureKitSystem
@testable import FixtureKitTestSupport

/// `POSIX.lock`: a lock held for an instant (a child forked by another thread
/// shares the open file until its exec) is waited for; one held on is not.
@Suite struct POSIXLockTests {
    /// Two open files of one lock file in a fresh folder: the holder's and the
    /// waiter's, closed with this value.
    final class Descriptors {
        let folder: TemporaryFolder
        let holder: Int32
        let waiter: Int32

        init() throws {
            folder = try TemporaryFolder()
            let path = folder.url("lock")
            holder = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            waiter = open(path, O_RDWR | O_CLOEXEC)
            try #require(holder >= 0 && waiter >= 0)
        }

        deinit {
            if holder >= 0 { close(holder) }
            if waiter >= 0 { close(waiter) }
        }
    }

    @Test func aLockReleasedWithinTheGraceIsTaken() throws {
        let files = try Descriptors()
        let holder = files.holder
        #expect(flock(holder, LOCK_EX | LOCK_NB) == 0)
        let released = Thread {
            usleep(100_000)
            flock(holder, LOCK_UN)
        }
        released.start()
        #expect(POSIX.lock(files.waiter, LOCK_EX, grace: .seconds(5)))
    }

    @Test func aLockHeldOnIsRefusedAfterTheGrace() throws {
        let files = try Descriptors()
        #expect(flock(files.holder, LOCK_SH | LOCK_NB) == 0)
        let start = ContinuousClock.now
        #expect(!POSIX.lock(files.waiter, LOCK_EX, grace: .milliseconds(50)))
        #expect(ContinuousClock.now - start >= .milliseconds(50))
        // A shared lock is no obstacle to another shared lock.
        #expect(POSIX.lock(files.waiter, LOCK_SH, grace: .zero))
    }
}
