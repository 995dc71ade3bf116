import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// Writing where the disk or the permissions say no.
@Suite struct WriteFailureTests {
    @Test func aFileSizeLimitFailsCleanly() throws {
        let folder = try TemporaryFolder()
        let store = try TortureTests.liveStore(folder)
        // 1 MiB at most per file: the 4 MiB store cannot be copied.
        let result = try run(["sh", "-c", "ulimit -f 2048; exec \"$0\" \"$@\"", toolExecutable, "capture", "--no-anonymize", store, "--version", "1.0.0", "--corpus", folder.url("corpus")])
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError.hasPrefix("fixturekit: capture: "))
        #expect(result.standardError.contains("(disk full, or a file-size limit)"), "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1)
        // Nothing under the fixture's name, no staging folder left.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url("corpus")) == [])
        let pack = try run(["sh", "-c", "ulimit -f 16; exec \"$0\" \"$@\"", toolExecutable, "sums", folder.path])
        #expect(pack.status == 2 || pack.status == 0)
    }

    @Test func aReadOnlyCorpusFailsCleanly() throws {
        let folder = try TemporaryFolder()
        let store = try TortureTests.liveStore(folder)
        try FileManager.default.createDirectory(atPath: folder.url("corpus"), withIntermediateDirectories: true)
        chmod(folder.url("corpus"), 0o555)
        chmod(folder.path, 0o755)
        chmod(store, 0o644)
        // Root writes anywhere: as root, the tool runs as `nobody`.
        var command = [toolExecutable, "capture", "--no-anonymize", store, "--version", "1.0.0", "--corpus", folder.url("corpus")]
        if getuid() == 0 { command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + command }
        let result = try run(command)
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError.hasPrefix("fixturekit: capture: "), "\(result.standardError)")
        #expect(result.standardError.contains("permission denied"), "\(result.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url("corpus")) == [])
    }
}
