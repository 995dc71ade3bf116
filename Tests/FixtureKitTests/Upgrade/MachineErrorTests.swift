import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitSystem
@testable import FixtureKitTestSupport

/// A check the machine kept from running holds the error that did, so that a
/// caller tells a full disk from a regression by value (``CheckResult/error``);
/// a check that ran holds none, whether it passed or failed.
@Suite struct MachineErrorTests {
    @Test(.enabled(if: InfrastructureFailureTests.canMountTmpfs, "needs root, to mount a small tmpfs that fills up"), arguments: ["stages", "values"])
    func aCheckTheMachineKeptFromRunningHoldsItsError(phase: String) throws {
        let disk = try InfrastructureFailureTests.SmallDisk(size: "16m")
        let notes = try NotesCorpus.forUpgrade()
        let live = disk.path + "/live"
        let store = try NotesCorpus.liveStore(in: live)
        FaultInjection.at(.phase(phase), of: store) { UpgradeFullDiskTests.fill(live) }
        FaultInjection.at(.phase("restore"), of: store) { try? FileManager.default.removeItem(atPath: live + "/fill") }
        defer { for name in [phase, "restore"] { FaultInjection.at(.phase(name), of: store) {} } }
        let result = try Upgrade.upgrade(store: store, configuration: try CorpusConfiguration.load(notes.config), configurationPath: notes.config)
        #expect(result.outcome == .restored && result.couldNotRun == true)
        let failure = try #require(result.failure)
        #expect(failure.couldNotRun)
        if phase == "stages" {
            #expect(failure.kind == .stage(from: "1.0.0", to: "2.0.0"))
            #expect((failure.error as? SQLiteError)?.resultCode == .full, "\(String(describing: failure.error))")
        } else {
            #expect(failure.kind == .dataPreserved)
            #expect(failure.error is FixtureKitError, "\(String(describing: failure.error))")
            #expect(failure.message?.hasPrefix("values could not be compared: ") == true)
        }
        // Only the check that could not run holds an error.
        #expect(result.checks.filter(\.couldNotRun) == [failure])
    }
}
