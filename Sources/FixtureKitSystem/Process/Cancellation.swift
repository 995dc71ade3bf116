#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A request to stop, which a caller passes to a long operation in its options
/// (``MigrationRunner/Options/cancellation``, ``UpgradeOptions/cancellation``) and
/// which the operation looks at wherever it can stop cleanly: no other path of the
/// matrix starts, no other stage runs, a running stage's program gets a signal
/// (``StageProcess``), a running statement is interrupted
/// (``Database/withWatchdog(deadline:cancellation:_:)``), `upgrade` restores its backup.
///
/// Any thread may cancel it, once: the first reason counts. The tool hands the
/// operations the cancellation that SIGINT and SIGTERM cancel
/// (``Interruption/install()``); an app cancels its own with ``cancel()``.
public final class Cancellation: Sendable {
    /// Why the work was asked to stop.
    public enum Reason: Equatable, Sendable, CustomStringConvertible {
        /// The process received this signal (SIGINT, SIGTERM), through ``Interruption``.
        case signal(Int32)
        /// The caller called ``Cancellation/cancel()``.
        case requested

        /// SIGTERM: a service manager, `kill` or `timeout` asked the process to end.
        public static let terminated = Reason.signal(SIGTERM)
        /// SIGINT: ^C at a terminal.
        public static let interrupted = Reason.signal(SIGINT)

        /// `fixturekit received SIGTERM`, `cancelled by its caller`: how messages
        /// say why the work stopped (`interrupted: fixturekit received SIGTERM`).
        public var description: String {
            switch self {
            case .signal(let signal): "fixturekit received \(Interruption.name(signal))"
            case .requested: "cancelled by its caller"
            }
        }

        /// `SIGTERM`, `cancelled`: the reason in a word, as reports record it
        /// (``MigrationReport/interrupted``).
        public var name: String {
            switch self {
            case .signal(let signal): Interruption.name(signal)
            case .requested: "cancelled"
            }
        }
    }

    /// 0 while not cancelled; the signal's number; ``requestedState`` for ``cancel()``.
    /// An atomic, so that a signal handler may store into it (async-signal-safe).
    let state = Atomic<Int32>(0)
    private static let requestedState: Int32 = -1

    public init() {}

    /// Asks the work to stop; the first reason given counts.
    public func cancel() {
        cancel(state: Self.requestedState)
    }

    /// Records the signal received as the reason (``Interruption``'s handler).
    func cancel(signal: Int32) {
        cancel(state: signal)
    }

    private func cancel(state value: Int32) {
        _ = state.compareExchange(expected: 0, desired: value, ordering: .acquiringAndReleasing)
    }

    /// Why the work was asked to stop; `nil` while it was not.
    public var reason: Reason? {
        switch state.load(ordering: .acquiring) {
        case 0: nil
        case Self.requestedState: .requested
        case let signal: .signal(signal)
        }
    }

    /// Whether the work was asked to stop.
    public var isCancelled: Bool { reason != nil }
}
