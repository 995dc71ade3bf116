import Foundation
import Synchronization
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// `upgrade` holds the process' time zone (``ZoneLease``) from its first stage
/// to its last check: a configured check reading `localtime` reads the corpus'
/// zone, though a matrix probing other zones runs in the same process.
@Suite(.serialized) struct UpgradeZoneTests {
    @Test(arguments: ["checks", "values"])
    func checksRunHoldingTheCorpusZone(phase: String) throws {
        let notes = try NotesCorpus.forUpgrade()
        let folder = try TemporaryFolder()
        let store = try NotesCorpus.liveStore(in: folder.url("live"))
        var configuration = try CorpusConfiguration.load(notes.config)
        configuration.connection = ConnectionSettings(environment: ["TZ": "Asia/Kathmandu"])
        let held = Mutex<String?>(nil)
        FaultInjection.at(.phase(phase), of: store) { held.withLock { $0 = ZoneLease.shared.heldZone ?? "none" } }
        defer { FaultInjection.at(.phase(phase), of: store) {} }
        let result = try Upgrade.upgrade(store: store, configuration: configuration, configurationPath: notes.config)
        #expect(result.outcome == .upgraded, "\(String(describing: result.failure))")
        #expect(held.withLock { $0 } == "Asia/Kathmandu")
    }
}
