import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// A failed system call the operations report keeps its ``FileSystemError`` as
/// the cause (operation, path and errno), under the line the tool prints.
@Suite struct ErrorCauseTests {
    /// The line a failed call is told with, without context: `<operation>: <path>: <why>`.
    static func expectToldAsIs(_ error: FixtureKitError, errno code: Int32, path: String) throws {
        let cause = try #require(error.underlying(FileSystemError.self))
        #expect(cause.errno == code)
        #expect(cause.path == path)
        #expect(error.description == "\(cause.operation): \(path): \(cause.reason)")
    }

    /// In a context, the operation is said once: after a context that names a
    /// step, or alone when the context is the operation itself; a context of
    /// another word keeps both (`copy` failing in `copy`, `anonymize: copy`,
    /// `install fixture`).
    @Test(arguments: [
        ("copy", "copy", "copy"), ("anonymize: copy", "copy", "anonymize: copy"), ("init: write", "write", "init: write"),
        ("install fixture", "rename", "install fixture: rename"), ("anonymize: write manifest", "write", "anonymize: write manifest: write"),
        ("recopy", "copy", "recopy: copy"),
    ])
    func aStepIsNamedOnce(context: String, operation: String, told: String) {
        let error = FixtureKitError(what: context, failed: FileSystemError(operation, path: "/f/App.sqlite", errno: ENOSPC))
        #expect(error.description == "\(told): /f/App.sqlite: no space left on device")
    }

    @Test func listingAFolderThatIsNotThere() throws {
        let folder = try TemporaryFolder()
        let missing = folder.url("missing")
        do {
            _ = try Checksums.computeSums(for: missing)
            Issue.record("a missing folder was summed")
        } catch {
            try Self.expectToldAsIs(error, errno: ENOENT, path: missing)
        }
        do {
            _ = try Checksums.verifyFolder(missing)
            Issue.record("a missing folder was verified")
        } catch {
            try Self.expectToldAsIs(error, errno: ENOENT, path: missing)
        }
        // A file where the folder should be.
        _ = try folder.write("file", "x")
        do {
            _ = try Checksums.computeSums(for: folder.url("file"))
            Issue.record("a file was summed as a folder")
        } catch {
            try Self.expectToldAsIs(error, errno: ENOTDIR, path: folder.url("file"))
        }
    }

    /// `init` cannot write its configuration (its temporary file is a folder):
    /// the line names the configuration, the cause the call that failed.
    @Test func initThatCannotWriteItsConfiguration() throws {
        let folder = try TemporaryFolder()
        let corpus = folder.url("corpus")
        try FileManager.default.createDirectory(atPath: corpus + "/fixturekit.json.tmp", withIntermediateDirectories: true)
        do {
            _ = try CorpusInit.initialize(corpus: corpus, store: nil, version: "1.0.0")
            Issue.record("init wrote through a folder")
        } catch {
            let cause = try #require(error.underlying(FileSystemError.self))
            #expect(cause.errno == EISDIR)
            #expect(cause.path == corpus + "/fixturekit.json.tmp")
            #expect(error.description == "init: \(cause.operation): \(corpus)/fixturekit.json: \(cause.reason)")
        }
        #expect(!FileManager.default.fileExists(atPath: corpus + "/fixturekit.json"))
    }

    /// A rules file that cannot be read: the line names the file, the cause the call.
    @Test func rulesThatCannotBeRead() throws {
        let folder = try TemporaryFolder()
        // A folder is refused before any read: no errno, the cause all the same.
        for (name, code) in [("missing.json", ENOENT), ("folder", 0)] {
            if name == "folder" { try FileManager.default.createDirectory(atPath: folder.url(name), withIntermediateDirectories: true) }
            do {
                _ = try AnonymizationRules.load(folder.url(name))
                Issue.record("\(name) was read as rules")
            } catch {
                let cause = try #require(error.underlying(FileSystemError.self))
                #expect(cause.errno == code)
                #expect(error.description == "read rules: \(folder.url(name)): \(cause.reason)")
            }
        }
    }
}
