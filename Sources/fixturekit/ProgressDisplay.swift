import Foundation
import FixtureKit
import Synchronization

/// Shows a command's ``WorkProgress``: a progress line on stderr when stderr is
/// a terminal and the work has lasted about a second, redrawn ten times a
/// second and erased at the end; each finished step as a line with `--verbose`.
final class ProgressDisplay: Sendable {
    /// How long work runs before the progress line appears, in milliseconds;
    /// `FIXTUREKIT_PROGRESS_DELAY_MS` changes it (the tests show it at once).
    static let defaultDelay = 1000

    private let console: Console
    private let stopped = Atomic<Bool>(false)

    init(console: Console) {
        self.console = console
        let verbose = console.verbosity == .verbose
        guard console.isTerminal || verbose else { return }
        let work = WorkProgress(finished: { [console] step in
            guard verbose else { return }
            console.detail("\(step.step): \(Self.amount(step.done, unit: step.unit)) in \(String(format: "%.2f", step.seconds)) s")
        })
        console.work = work
        guard console.isTerminal, console.verbosity != .quiet else { return }
        let delay = console.environment["FIXTUREKIT_PROGRESS_DELAY_MS"].flatMap { Int($0) } ?? Self.defaultDelay
        let started = ContinuousClock.now
        let worker = Thread { [self] in
            // The line appears as soon as the delay is over and a step has begun (looked
            // for every 10 ms), then is redrawn ten times a second.
            var drawn = false
            while !stopped.load(ordering: .acquiring) {
                if ContinuousClock.now - started >= .milliseconds(delay) {
                    let line = work.snapshot.map(Self.line)
                    console.drawProgress(line)
                    drawn = drawn || line != nil
                }
                Thread.sleep(forTimeInterval: drawn ? 0.1 : 0.01)
            }
        }
        worker.start()
    }

    /// Stops drawing and erases the progress line; the last step is ended.
    func finish() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        console.work?.end()
        console.closeProgress()
    }

    /// `verify MigrationFixtures/1.0.0: 1.8 of 4.0 MiB (45%)`.
    static func line(_ snapshot: WorkProgress.Snapshot) -> String {
        var text = "\(snapshot.step): "
        if let total = snapshot.total, total > 0 {
            let done = min(snapshot.done, total)
            text += snapshot.unit == .bytes
                ? "\(Formatting.bytes(done)) of \(Formatting.bytes(total))"
                : "\(done) of \(total)"
            text += " (\(done * 100 / total)%)"
        } else if snapshot.done > 0 {
            text += amount(snapshot.done, unit: snapshot.unit)
        } else {
            // A step that counts nothing shows how long it has run.
            text += "\(Int(snapshot.seconds)) s"
        }
        return text
    }

    static func amount(_ count: UInt64, unit: WorkProgress.Unit) -> String {
        unit == .bytes ? Formatting.bytes(count) : String(count)
    }
}
