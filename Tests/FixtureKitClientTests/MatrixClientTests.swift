// A client of the library that runs the migration matrix step by step as the
// `fixturekit migrate` command does, on the public API alone (no @testable, no
// package access): the configuration read and checked, the machine checked,
// the matrix run with a cancellation, the reports written, the checks told
// apart by kind.
import Foundation
import FixtureKit
import Testing

/// The repository's example corpus, found from this file's path.
private let exampleConfig = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("MigrationFixtures/fixturekit.json").path

@Suite struct MatrixClientTests {
    @Test func theMatrixRunsAsTheToolRunsIt() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fixturekit-client-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        // Before the matrix: what would fail only after it, and read as a regression.
        let cancellation = Cancellation()
        let options = MigrationRunner.Options(jobs: 2, cancellation: cancellation)
        let runner = try MigrationRunner.prepareMatrix(config: exampleConfig, options: options)
        try MigrationRunner.checkTemporaryFolder()
        let files: [(MigrationReport.Format, String)] = [(.json, folder + "/migrate.json"), (.junit, folder + "/migrate.xml"), (.html, folder + "/migrate.html")]
        for (format, path) in files { try MigrationRunner.checkReportFile(path, format: format) }
        do throws(FixtureKitError) {
            try MigrationRunner.checkReportFile(folder + "/missing/migrate.xml", format: .junit)
            Issue.record("a report in a missing folder passed its check")
        } catch {
            #expect(error.description == "write JUnit report: open: \(folder)/missing/migrate.xml.tmp: no such file or directory (hint: nothing was run)")
            #expect(error.underlying(FileSystemError.self)?.errno == ENOENT)
        }

        // The matrix, and its reports.
        let report = runner.run(options)
        #expect(report.passed, "\(report.paths.flatMap(\.checks).filter { !$0.passed })")
        #expect(report.interrupted == nil)
        for (format, path) in files {
            try report.write(format, to: path, configuration: exampleConfig)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == report.rendered(format, configuration: exampleConfig))
        }
        let json = try Data(contentsOf: URL(fileURLWithPath: folder + "/migrate.json"))
        #expect(try JSONDecoder().decode(MigrationReport.self, from: json) == report)

        // The checks, told apart by kind: each path verified its fixture first, ran its stages, then checked.
        for path in report.paths {
            let kinds = path.checks.map(\.kind)
            #expect(kinds.first == .fixtureVerifies(version: path.source))
            let stages = kinds.filter { if case .stage = $0 { true } else { false } }
            #expect(stages.count == (path.kind == .hop ? 1 : path.id.components(separatedBy: " -> ").count - 1))
            #expect(kinds.contains(.integrity) && kinds.contains(.dataPreserved) && kinds.contains(.schema(target: path.target)))
            #expect(path.checks.allSatisfy { !$0.couldNotRun && $0.error == nil })
        }

        // Cancelled: no path starts, and the report says why.
        cancellation.cancel()
        let stopped = runner.run(options)
        #expect(stopped.paths.isEmpty)
        #expect(stopped.interrupted == "cancelled")
        #expect(cancellation.reason == .requested)
    }
}
