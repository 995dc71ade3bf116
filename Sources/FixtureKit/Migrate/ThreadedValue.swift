import Foundation
import Synchronization

/// A value computed on a thread of its own, started at once, for a caller that
/// needs it later: what a fixture's first path prepares while it copies the
/// fixture and runs its stages (``SpareCopy``, ``SourceKeys``, ``SourcePages``,
/// ``SourceValues``). A thread of its own, not one of Dispatch's, which the
/// paths themselves occupy.
final class ThreadedValue<Value: Sendable>: Sendable {
    private let done = DispatchGroup()
    /// Written by the thread before it leaves `done`; nil again once taken.
    private let slot = Mutex<Value?>(nil)

    /// Starts computing the value.
    init(_ compute: @escaping @Sendable () -> Value) {
        done.enter()
        Thread { [self] in
            // Straight into the slot: the thread keeps no reference to the value
            // once it leaves `done`, so a value that cleans up when released (a
            // scratch copy) is gone when the last caller drops it, not whenever
            // this thread ends (perhaps after the process has).
            slot.withLock { $0 = compute() }
            done.leave()
        }.start()
    }

    /// Waits for the value; nil once ``take()`` has taken it.
    func wait() -> Value? {
        done.wait()
        return slot.withLock { $0 }
    }

    /// Waits for the value and hands it to the first caller only (nil to the others).
    func take() -> Value? {
        done.wait()
        return slot.withLock { value in
            defer { value = nil }
            return value
        }
    }
}
