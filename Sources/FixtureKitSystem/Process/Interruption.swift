#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// SIGINT and SIGTERM sent to fixturekit while `upgrade` or `migrate` runs.
///
/// Once ``install()`` has run, the first of them cancels ``cancellation``
/// instead of ending the process. The tool passes that cancellation to the
/// operation it runs (``MigrationRunner/Options/cancellation``,
/// ``UpgradeOptions/cancellation``), which stops where it can stop cleanly: a
/// running stage's processes get the signal forwarded (``StageProcess``), an
/// SQL stage or a check is interrupted (``Database/withWatchdog(deadline:cancellation:_:)``),
/// `upgrade` restores its backup, `migrate` starts no other path and removes
/// its temporary copies. The tool then ends itself with the same signal
/// (``reraise()``), so that its parent sees what a shell reports as 130 or 143.
/// The library itself never looks at the signals: only at the cancellation it is given.
public enum Interruption {
    /// The signals handled.
    package static let signals: [Int32] = [SIGINT, SIGTERM]

    /// The cancellation that SIGINT and SIGTERM cancel once ``install()`` has
    /// run, the signal as its reason: one for the process, as its signal
    /// handlers are. The handler only stores into its atomic, which is async-signal-safe.
    public static let cancellation = Cancellation()

    /// The first signal received, or `nil`.
    package static var received: Int32? {
        guard case .signal(let signal)? = cancellation.reason else { return nil }
        return signal
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

    /// Handles SIGINT and SIGTERM from now on: the first one cancels
    /// ``cancellation`` and the process goes on. A signal ignored on entry stays
    /// ignored (a shell starts a background command with SIGINT ignored, so that
    /// ^C leaves it be); one blocked on entry is unblocked on this thread (a
    /// parent may start its children with every signal blocked).
    /// - Returns: ``cancellation``, for the options of the operation to stop.
    public static func install() -> Cancellation {
        // Made before a handler can run: the handler only loads it.
        let cancellation = Self.cancellation
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
                Interruption.cancellation.cancel(signal: signal)
            }
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, nil)
        }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        return cancellation
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
