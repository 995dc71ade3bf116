import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// ``Verifier/requireVerified(_:_:)``: the one check of "a verified fixture",
/// worded as each of its callers words it.
@Suite struct RequireVerifiedTests {
    /// Two fixture folders, `1.0.0` and `2.0.0`, each with two files and its SHA256SUMS.
    func makeFixtures() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        for version in ["1.0.0", "2.0.0"] {
            try folder.write("corpus/\(version)/App.sqlite", "SQLite format 3\0 pretend \(version)")
            try folder.write("corpus/\(version)/notes.txt", "{}\n")
            #expect(fixturekit("sums", folder.url("corpus/\(version)")).status == 0)
        }
        return folder
    }

    /// Flips one bit of every byte position in turn (a few of them): each is a
    /// changed file.
    func flip(_ folder: TemporaryFolder, _ name: String, at offset: Int) throws {
        var bytes = try folder.read(name)
        bytes[offset] ^= 0x01
        try folder.write(name, bytes)
    }

    @Test func aFixtureThatVerifiesPasses() throws {
        let folder = try makeFixtures()
        try Verifier.requireVerified(folder.url("corpus/1.0.0"), .problemCount(what: "checkpoint"))
        try Verifier.requireVerified(folder.url("corpus/1.0.0"), .firstProblem(namedBelow: "elsewhere"))
    }

    @Test(arguments: [0, 7, 15, 20]) func aFlippedByteFailsAsCheckpointAndAnonymizeSayIt(offset: Int) throws {
        let folder = try makeFixtures()
        let fixture = folder.url("corpus/1.0.0")
        try flip(folder, "corpus/1.0.0/App.sqlite", at: offset)
        for what in ["checkpoint", "anonymize"] {
            do {
                try Verifier.requireVerified(fixture, .problemCount(what: what))
                Issue.record("a changed fixture verified")
            } catch {
                #expect(error.what == what)
                #expect(error.path == fixture)
                #expect(error.why == "the fixture does not verify (1 problems)")
                #expect(error.category == .checkFailed)
            }
        }
        // The tool's line, as it has always been.
        let result = fixturekit("checkpoint", fixture)
        #expect(result.status == 1)
        #expect(result.standardError == "fixturekit: checkpoint: \(fixture): the fixture does not verify (1 problems) (hint: run `fixturekit verify \(fixture)`)\n")
    }

    @Test func aFlippedByteInACopyIsNamedBelowTheFolderThatWasCopied() throws {
        let folder = try makeFixtures()
        try flip(folder, "corpus/2.0.0/notes.txt", at: 1)
        do {
            try Verifier.requireVerified(folder.url("corpus/2.0.0"), .firstProblem(namedBelow: "/the/original"))
            Issue.record("a changed fixture verified")
        } catch {
            #expect(error.description == "verify: /the/original/notes.txt: changed")
            #expect(error.category == .checkFailed)
        }
        // What a test suite's verified copy says of it.
        #expect(throws: FixtureKitError(what: "verify", path: folder.url("corpus/2.0.0/notes.txt"), why: "changed", category: .checkFailed)) {
            try VerifiedCopy.withCopy(of: folder.url("corpus/2.0.0")) { _ in 0 }
        }
    }

    @Test func aFolderOfSeveralFixturesIsNotAFixtureFolder() throws {
        let folder = try makeFixtures()
        do {
            try Verifier.requireVerified(folder.url("corpus"), .problemCount(what: "checkpoint"))
            Issue.record("a corpus counted as one fixture")
        } catch {
            #expect(error.description == "checkpoint: \(folder.url("corpus")): not a fixture folder")
            #expect(error.category == .couldNotWork)
        }
    }
}
