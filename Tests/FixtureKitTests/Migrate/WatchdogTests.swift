import Foundation
import Testing
@testable import FixtureKitSQLite
@testable import FixtureKitTestSupport

/// The watchdog that interrupts an SQL stage at its timeout or on SIGINT runs
/// on a thread of its own: stages that keep every thread of the global queue
/// busy (tests run them in parallel, each on such a thread) must not keep it
/// from starting, or neither it nor they would ever end.
@Suite struct WatchdogTests {
    @Test func aWatchdogStartsWhileEveryThreadOfTheGlobalQueueIsBusy() throws {
        let database = try Database(path: ":memory:")
        // Every thread of the global queue busy for 3 s, and as many tasks waiting.
        let busy = DispatchGroup()
        let until = ContinuousClock.now + .seconds(3)
        for _ in 0..<(2 * ProcessInfo.processInfo.activeProcessorCount) {
            DispatchQueue.global().async(group: busy) { while ContinuousClock.now < until {} }
        }
        let start = ContinuousClock.now
        let (result, stop) = database.withWatchdog(deadline: start + .milliseconds(200), cancellation: nil) { () throws(SQLiteError) in
            try database.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n")
        }
        let elapsed = ContinuousClock.now - start
        busy.wait()
        #expect(stop == .deadline)
        // Interrupted at its deadline, not once the busy threads were free.
        #expect(elapsed < .seconds(2), "\(elapsed)")
        guard case .failure(let error) = result else {
            Issue.record("the endless statement was not interrupted")
            return
        }
        #expect(error.code == 9, "\(error)")
    }
}
