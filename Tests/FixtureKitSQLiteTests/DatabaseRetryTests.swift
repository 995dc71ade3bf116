import Foundation
import Testing
@testable import FixtureKitSQLite
@testable import FixtureKitSystem

/// `Database.retrying`: the one retry loop (busy stores, capture's checkpoint,
/// the backup's steps).
@Suite struct DatabaseRetryTests {
    struct Stop: Error, Equatable {}

    @Test func stopsAtTheFirstValue() {
        var calls = 0
        let value = Database.retrying(within: .seconds(10), firstPause: 100, maximumPause: 100) { () throws(Never) -> Int? in
            calls += 1
            return calls == 3 ? 42 : nil
        }
        #expect(value == 42)
        #expect(calls == 3)
    }

    @Test func triesAtMostTheAttemptsGiven() {
        var calls = 0
        let value = Database.retrying(attempts: 10, firstPause: 100, maximumPause: 100) { () throws(Never) -> Int? in
            calls += 1
            return nil
        }
        #expect(value == nil)
        #expect(calls == 10)
    }

    @Test func givesUpOnceTheTimeoutHasPassedWithPausesThatDouble() {
        let clock = ContinuousClock()
        let start = clock.now
        var times: [ContinuousClock.Instant] = []
        let value = Database.retrying(within: .milliseconds(300), firstPause: 10_000, maximumPause: 80_000) { () throws(Never) -> Int? in
            times.append(clock.now)
            return nil
        }
        #expect(value == nil)
        // One attempt after the timeout at most, and not long after it.
        #expect(clock.now - start >= .milliseconds(300))
        #expect(clock.now - start < .seconds(3))
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        // 10, 20, 40, 80, 80... ms: each pause at least the one asked.
        for (gap, pause) in zip(gaps, [10, 20, 40, 80, 80]) { #expect(gap >= .milliseconds(pause)) }
        #expect(times.count >= 4)
    }

    @Test func rethrowsAtOnce() {
        var calls = 0
        #expect(throws: Stop()) {
            _ = try Database.retrying(within: .seconds(10), firstPause: 100, maximumPause: 100) { () throws(Stop) -> Int? in
                calls += 1
                throw Stop()
            }
        }
        #expect(calls == 1)
    }

    @Test func theSQLiteFormRetriesBusyOnlyAndThrowsTheLastError() {
        var calls = 0
        let busy = SQLiteError(code: ResultCode.busy.rawValue)
        #expect(throws: busy) {
            _ = try Database.retrying(for: .milliseconds(50), firstPause: 1_000, maximumPause: 4_000) { () throws(SQLiteError) -> Int in
                calls += 1
                throw busy
            }
        }
        #expect(calls > 1)
        calls = 0
        let corrupt = SQLiteError(code: ResultCode.corrupt.rawValue)
        #expect(throws: corrupt) {
            _ = try Database.retrying(for: .seconds(10), maximumPause: 4_000) { () throws(SQLiteError) -> Int in
                calls += 1
                throw corrupt
            }
        }
        #expect(calls == 1)
        let value = try? Database.retrying(for: .seconds(1), maximumPause: 4_000) { () throws(SQLiteError) -> Int in 7 }
        #expect(value == 7)
    }
}
