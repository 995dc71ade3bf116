import Foundation
import Synchronization

/// What a long operation has done so far, for a caller that shows progress.
///
/// An operation names its steps (`hash MigrationFixtures/1.0.0`) and counts
/// what each has done (bytes, or items such as a matrix' paths); any thread may
/// count. The caller reads ``snapshot`` whenever it likes (a terminal's
/// progress line) and hears of each finished step (a verbose log). Counting is
/// one atomic addition: cheap enough for every block read.
public final class WorkProgress: Sendable {
    /// What the counts of a step are.
    public enum Unit: Sendable { case bytes, items }

    /// The step under way.
    public struct Snapshot: Sendable, Equatable {
        public package(set) var step: String
        public package(set) var done: UInt64
        /// `nil` when the step's size is not known in advance.
        public package(set) var total: UInt64?
        public package(set) var unit: Unit
        /// How long the step has run.
        public package(set) var seconds: Double = 0
    }

    /// A step that ended: its name, its count, how long it took.
    public struct FinishedStep: Sendable, Equatable {
        public package(set) var step: String
        public package(set) var done: UInt64
        public package(set) var unit: Unit
        public package(set) var seconds: Double
    }

    private struct Current {
        var step: String
        var total: UInt64?
        var unit: Unit
        var started: ContinuousClock.Instant
    }

    private let current = Mutex<Current?>(nil)
    private let done = Atomic<UInt64>(0)
    private let finished: @Sendable (FinishedStep) -> Void

    /// - Parameter finished: called, on the thread that ends it, for each step that ends.
    public init(finished: @escaping @Sendable (FinishedStep) -> Void = { _ in }) {
        self.finished = finished
    }

    /// Starts a step (ending the one under way).
    package func begin(_ step: String, total: UInt64? = nil, unit: Unit = .bytes) {
        end()
        done.store(0, ordering: .relaxed)
        current.withLock { $0 = Current(step: step, total: total, unit: unit, started: .now) }
    }

    /// Counts `amount` more done in the step under way.
    package func advance(_ amount: UInt64) {
        done.add(amount, ordering: .relaxed)
    }

    /// Sets what the step under way has done: `amount` in all.
    package func set(_ amount: UInt64) {
        done.store(amount, ordering: .relaxed)
    }

    /// Ends the step under way, if any.
    package func end() {
        guard let step = current.withLock({ state -> Current? in defer { state = nil }; return state }) else { return }
        finished(FinishedStep(step: step.step, done: done.load(ordering: .relaxed), unit: step.unit, seconds: Self.seconds(since: step.started)))
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// The step under way and its counts, or `nil` between steps.
    public var snapshot: Snapshot? {
        current.withLock { state in
            state.map { Snapshot(step: $0.step, done: done.load(ordering: .relaxed), total: $0.total, unit: $0.unit, seconds: Self.seconds(since: $0.started)) }
        }
    }

    /// Runs `body` as the step `name`, ended however `body` ends.
    package func step<T, E: Error>(_ name: String, total: UInt64? = nil, unit: Unit = .bytes, _ body: () throws(E) -> T) throws(E) -> T {
        begin(name, total: total, unit: unit)
        defer { end() }
        return try body()
    }
}

extension Optional where Wrapped == WorkProgress {
    /// Runs `body` as a step when there is a progress to tell, else just runs it.
    package func step<T, E: Error>(_ name: String, total: UInt64? = nil, unit: WorkProgress.Unit = .bytes, _ body: () throws(E) -> T) throws(E) -> T {
        guard let progress = self else { return try body() }
        return try progress.step(name, total: total, unit: unit, body)
    }
}
