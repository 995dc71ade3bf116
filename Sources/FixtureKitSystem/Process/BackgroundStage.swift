import Dispatch
import Synchronization

/// The second stage of a two-stage streaming pipeline: while the caller works on
/// one chunk (compressing it, decompressing the next one), the stage runs other
/// work on a second thread (hashing the chunk, writing it to disk).
///
/// Work is handed over one piece at a time: ``start(_:)`` may only be called
/// after ``wait()`` returned for the previous piece. That handover (a
/// `DispatchGroup` wait) orders every memory access of a piece before the caller's
/// next one, which is what makes sharing the non-`Sendable` hasher and buffers sound.
package final class BackgroundStage {
    private let queue = DispatchQueue(label: "fixturekit.background-stage")
    private let group = DispatchGroup()
    private let state = State()
    private var isRunning = false

    package init() {}

    /// The pending piece's failure, written by the stage's thread before the
    /// group is left and read by the caller after waiting on it.
    private final class State: @unchecked Sendable {
        var failure: (any Error)?
    }

    /// Something handed to the stage's thread under the handover rule above.
    private struct Handover<Value>: @unchecked Sendable { let value: Value }

    /// Starts `work` on the stage's thread.
    package func start(_ work: @escaping () throws -> Void) {
        precondition(!isRunning, "BackgroundStage.start called before wait")
        isRunning = true
        let handover = Handover(value: work)
        let state = self.state
        queue.async(group: group) {
            do { try handover.value() } catch { state.failure = error }
        }
    }

    /// Waits for the piece started last, if any, and rethrows its failure.
    package func wait() throws {
        guard isRunning else { return }
        group.wait()
        isRunning = false
        if let failure = state.failure {
            state.failure = nil
            throw failure
        }
    }

    /// Waits without throwing: for clean-up paths that already have an error.
    package func drain() {
        _ = try? wait()
    }

    deinit { group.wait() }
}

/// A value handed from a thread that computes it (a ``BackgroundStage``'s) to
/// the one that waits for it: behind a lock, so that it is `Sendable` by
/// construction rather than by a promise (`@unchecked`).
package final class Handoff<Value: Sendable>: Sendable {
    private let storage = Mutex<Value?>(nil)

    package init() {}

    /// The value, once the computing thread has set it.
    package var value: Value? {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
