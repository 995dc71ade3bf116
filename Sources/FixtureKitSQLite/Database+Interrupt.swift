#if canImport(Glibc)
import Glibc
#endif
import CSQLite
import Dispatch
import Synchronization
import FixtureKitSystem

extension Database {
    /// Why ``withWatchdog(deadline:_:)`` interrupted the connection.
    package enum WatchdogStop: Equatable {
        /// The deadline passed.
        case deadline
        /// The run was cancelled (``Cancellation``: fixturekit received SIGINT or
        /// SIGTERM, or the caller cancelled it).
        case cancelled(Cancellation.Reason)
    }

    /// How often the watchdog looks at the clock and at the cancellation, in microseconds.
    static let watchdogInterval: UInt32 = 50_000

    /// Runs `body` on this connection while a second thread watches the clock and
    /// `cancellation`: past `deadline`, or once the run is cancelled (fixturekit
    /// received SIGINT or SIGTERM), it calls `sqlite3_interrupt`, which "is safe to call from a
    /// different thread" and makes the statement running fail with
    /// `SQLITE_INTERRUPT` (<https://www.sqlite.org/c3ref/interrupt.html>).
    /// SQLite forgets an interrupt that comes while no statement runs (the next
    /// statement to start clears it), so from then on the watchdog interrupts
    /// again at each interval until `body` returns: a statement that starts
    /// after it, or between two others, is interrupted too.
    /// The watchdog is stopped before this returns.
    /// - Returns: what `body` gave or threw, and why the connection was interrupted, if it was.
    package func withWatchdog<T, E: Error>(deadline: ContinuousClock.Instant?, cancellation: Cancellation?, _ body: () throws(E) -> T) -> (Result<T, E>, WatchdogStop?) {
        let watch = Watch(handle: handle, cancellation: cancellation)
        let group = DispatchGroup()
        // A queue of its own, not the global one: the global queue gets no new
        // thread while its threads are busy, and bodies that never end (stages
        // running on them, whose statements only their own watchdogs would
        // interrupt) would keep their watchdogs from ever starting.
        DispatchQueue(label: "fixturekit.watchdog").async(group: group) { watch.run(deadline: deadline) }
        let result: Result<T, E>
        do { result = .success(try body()) } catch { result = .failure(error) }
        watch.done.store(true, ordering: .releasing)
        group.wait()
        return (result, watch.stopped.withLock { $0 })
    }

    /// The watchdog's state, shared with its thread. The handle is only used for
    /// `sqlite3_interrupt`, before the thread is joined.
    private final class Watch: @unchecked Sendable {
        let handle: OpaquePointer
        let cancellation: Cancellation?
        let done = Atomic<Bool>(false)
        let stopped = Mutex<WatchdogStop?>(nil)

        init(handle: OpaquePointer, cancellation: Cancellation?) {
            self.handle = handle
            self.cancellation = cancellation
        }

        func run(deadline: ContinuousClock.Instant?) {
            var interrupting = false
            while !done.load(ordering: .acquiring) {
                if !interrupting {
                    let reason: WatchdogStop?
                    if let cancelled = cancellation?.reason {
                        reason = .cancelled(cancelled)
                    } else if let deadline, ContinuousClock.now >= deadline {
                        reason = .deadline
                    } else {
                        reason = nil
                    }
                    if let reason {
                        stopped.withLock { $0 = reason }
                        interrupting = true
                    }
                }
                if interrupting { sqlite3_interrupt(handle) }
                usleep(Database.watchdogInterval)
            }
        }
    }
}
