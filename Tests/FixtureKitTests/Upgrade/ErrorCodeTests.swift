import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// The codes of the failures a caller handles apart, set where they are thrown.
@Suite struct ErrorCodeTests {
    /// Another fixturekit run holds the store: `.storeBusy`, whatever the text.
    @Test func anotherRunHoldingTheStoreIsBusy() throws {
        let folder = try TemporaryFolder()
        let store = folder.url("App.sqlite")
        let held = try #require(try StoreLock.acquire(store: store, command: "upgrade", what: "upgrade"))
        defer { held.release() }
        do {
            _ = try StoreLock.acquire(store: store, command: "backup", what: "backup")
            Issue.record("the lock was taken twice")
        } catch {
            #expect(error.code == .storeBusy)
            #expect(error.category == .couldNotWork)
            #expect(error.within("context").code == .storeBusy)
        }
    }

    /// A code is kept through the context the operations add, and compared
    /// by nothing the user reads.
    @Test func theCodeSurvivesWrapping() {
        let error = FixtureKitError(what: "pack", path: "F", why: "the folder fails its SHA256SUMS", category: .checkFailed, code: .checksumMismatch)
        #expect(FixtureKitError.wrapping(error, what: "freeze").code == .checksumMismatch)
        #expect(FixtureKitError(error).code == .checksumMismatch)
        #expect(FixtureKitError(what: "pack", path: "F", why: "x").code == nil)
    }
}
