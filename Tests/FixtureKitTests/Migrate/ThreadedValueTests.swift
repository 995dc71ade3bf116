import Foundation
import Testing
@testable import FixtureKit

/// ``ThreadedValue``: computed on a thread of its own while the caller goes on,
/// waited for by every reader, handed to one taker only.
struct ThreadedValueTests {
    @Test func theValueIsComputedMeanwhileAndHandedToOneTakerOnly() {
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let value = ThreadedValue { () -> [Int] in
            started.signal()
            release.wait()
            return [1, 2, 3]
        }
        // The computation runs before anyone waits for it, and the caller goes on meanwhile.
        #expect(started.wait(timeout: .now() + 10) == .success)
        release.signal()
        #expect(value.wait() == [1, 2, 3])
        #expect(value.wait() == [1, 2, 3])
        #expect(value.take() == [1, 2, 3])
        #expect(value.take() == nil)
        #expect(value.wait() == nil)
    }
}
