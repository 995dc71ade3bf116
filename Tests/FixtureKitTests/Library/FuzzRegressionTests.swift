import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// Replays the inputs the fuzzer kept (Fuzz/regressions/<target>/) and the
/// example corpus' files through every parser of outside bytes: none may crash.
@Suite struct FuzzRegressionTests {
    static let repository = ExampleCorpusTests.repository

    static func inputs(_ target: String) -> [String] {
        let folder = repository + "/Fuzz/regressions/" + target
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder + "/" + $0 }
    }

    @Test(arguments: FuzzTargets.names)
    func keptInputsNoLongerCrash(target: String) throws {
        var files = Self.inputs(target)
        // The example corpus' own files, too: every parser sees its real inputs.
        let corpus = ExampleCorpusTests.corpus
        switch target {
        case "wal": files += [corpus + "/2.0.0/App.sqlite-wal", corpus + "/2.0.0/App.sqlite-shm", corpus + "/1.0.0/App.sqlite"]
        case "sums": files += [corpus + "/2.0.0/SHA256SUMS", corpus + "/App-2.0.0.tar.zst.sha256", corpus + "/fixturekit.lock"]
        case "config": files += [corpus + "/fixturekit.json", corpus + "/anonymize.json", corpus + "/2.0.0/manifest.json"]
        default: files += [corpus + "/App-2.0.0.tar.zst"]
        }
        for file in files {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
            #expect(FuzzTargets.run(target, bytes))
            // Every prefix and a flipped byte of the small ones, as a fuzzer would try.
            if bytes.count <= 1 << 16 {
                for cut in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 64)) {
                    FuzzTargets.run(target, Array(bytes.prefix(cut)))
                    var flipped = bytes
                    flipped[cut] ^= 0x5A
                    FuzzTargets.run(target, flipped)
                }
            }
        }
    }

    @Test func anUnknownTargetIsRefused() {
        #expect(!FuzzTargets.run("nope", []))
    }
}
