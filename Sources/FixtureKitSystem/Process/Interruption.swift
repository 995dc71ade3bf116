#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// SIGINT and SIGTERM sent to fixturekit while `upgrade` or `migrate` runs.
///
/// Once ``install()`` has run, the first of them is recorded instead of ending
/// the process; the work looks at ``received`` where it can stop cleanly: a
/// running stage's processes get the signal forwarded (``StageProcess``), an
/// SQL stage or a check is interrupted (``Database/withWatchdog(deadline:_:)``),
/// `upgrade` restores its backup, `migrate` starts no other path and removes
/// its temporary copies. The tool then ends itself with the same signal
/// (``reraise()``), so that its parent sees what a shell reports as 130 or 143.
public enum Interruption {
    /// The signals handled.
    package static let signals: [Int32] = [SIGINT, SIGTERM]

    /// The first signal received since ``install()``, 0 for none. A global that the
    /// handler only stores into: an atomic store is async-signal-safe.
    private static let slot = Atomic<Int32>(0)

    /// The first signal received, or `nil`.
    package static var received: Int32? {
        let signal = slot.load(ordering: .acquiring)
        return signal == 0 ? nil : signal
    }

    /// `SIGTERM` for 15: how messages name a signal.
    package static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGKILL: "SIGKILL"
        case SIGHUP: "SIGHUP"
        case SIGQUIT: "SIGQUIT"
        default: "signal \(signal)"
        }
    }

    /// Handles SIGINT and SIGTERM from now on: each is recorded (the first one
    /// counts) and the process goes on. A signal ignored on entry stays ignored
    /// (a shell starts a background command with SIGINT ignored, so that ^C
    /// leaves it be); one blocked on entry is unblocked on this thread (a parent
    /// may start its children with every signal blocked).
    public static func install() {
        _ = slot.load(ordering: .relaxed)
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for signal in signals {
            var current = sigaction()
            sigaction(signal, nil, &current)
            // SIG_IGN is the handler 1.
            if unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { continue }
            sigaddset(&unblock, signal)
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in
                _ = Interruption.slot.compareExchange(expected: 0, desired: signal, ordering: .acquiringAndReleasing)
            }
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, nil)
        }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }

    /// Ends the process with the signal received, its default action restored,
    /// so that its parent sees it ended by that signal. Returns only when none was.
    public static func reraise() {
        guard let signal = received else { return }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = SIG_DFL
        sigemptyset(&action.sa_mask)
        sigaction(signal, &action, nil)
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, signal)
        sigprocmask(SIG_UNBLOCK, &unblock, nil)
        raise(signal)
    }
}
