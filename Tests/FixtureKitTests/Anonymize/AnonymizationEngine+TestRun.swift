import Foundation
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// One run of the anonymization engine as the tests that compare its paths make
/// it: `source/App.sqlite` of `folder` copied into `<name>-raw`, anonymized into
/// `<name>.sqlite`, and the output scanned for leaks.
/// - Returns: the output's bytes, the engine's result and the leak scan's hits.
func runEngine(
    _ name: String, in folder: TemporaryFolder, rules: AnonymizationRules, key: AnonymizationKey,
    pristine: String?, acceleration: AnonymizationSession.Acceleration = .all, utf16: Bool = false, enforceProfile: Bool = true
) throws -> (bytes: [UInt8], result: EngineResult, hits: Int) {
    let raw = folder.url("\(name)-raw")
    try FileManager.default.createDirectory(atPath: raw, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: folder.url("source/App.sqlite"), toPath: raw + "/App.sqlite")
    let output = folder.url("\(name).sqlite")
    let result = try AnonymizationEngine.run(
        folder: raw, storeName: "App.sqlite", output: output, rules: rules, key: key, spoolFolder: raw, display: name,
        pristine: pristine.map { (folder: $0, names: ["App.sqlite"]) }, acceleration: acceleration, enforceProfile: enforceProfile)
    let scan = try result.leakScan.finish(LeakScan.Target(files: [(output, name)], store: output, utf16: utf16, columns: result.ruleNames))
    return (try folder.read("\(name).sqlite"), result, scan.hitCount)
}
