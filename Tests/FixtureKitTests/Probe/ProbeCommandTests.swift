import Foundation
import Synchronization
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport
@testable import FixtureKitTool

/// `fixturekit probe` and `migrate --probes`: the probes in every report, with
/// their time, the exit statuses, the configuration's `"probes"`, and no
/// temporary copy left behind.
@Suite struct ProbeCommandTests {
    /// A corpus whose stage passes migrate's checks but numbers rows from an unordered select.
    func orderDependentCorpus() throws -> FoldersCorpus {
        let positions = "\nCREATE TABLE positions (position INTEGER PRIMARY KEY, note_id INTEGER NOT NULL);"
        let corpus = try FoldersCorpus(schema2: FoldersCorpus.schema1 + positions)
        try corpus.write("stage.sql", OrderProbeTests.unordered)
        try corpus.writeConfig(stage: ["sql": "stage.sql"]) { $0["counts"] = ["positions": "changes"] }
        return corpus
    }

    @Test func probeReportsEachProbeInText() throws {
        let corpus = try orderDependentCorpus()
        let result = fixturekit("probe", "--config", corpus.config, "--jobs", "1")
        #expect(result.status == 1)
        #expect(result.standardOutput == "")
        // The human report is on stderr, as migrate's.
        let lines = result.standardError.split(separator: "\n").map(String.init)
        #expect(lines.first == "probe: \(corpus.config): 1 path to 2.0.0 and 0 hops")
        #expect(lines.last == "probe: 0 of 1 passed, 1 failed")
        #expect(lines.contains { $0.hasPrefix("FAIL  1.0.0 -> 2.0.0  1 stage, ") })
        #expect(lines.contains("      probe order: the stages' result depends on the order of unordered SELECTs: it differs under reverse_unordered_selects"))
        #expect(lines.contains("        positions.note_id: 6 of 6 rows differ (rowid 1: 2 -> 12; rowid 2: 4 -> 10; rowid 3: 6 -> 8; rowid 4: 8 -> 6; rowid 5: 10 -> 4) (fixtures: 1.0.0 6 rows)"))
        // The size probe passed, and says its exponents all the same, a line each.
        #expect(lines.contains("      probe size: the stages' time grows with their rows within exponent 1.3"))
        #expect(lines.contains { $0.hasPrefix("        stage 1.0.0 -> 2.0.0: exponent ") })
        // Each probe's time, in the order they ran.
        let time = try #require(lines.first { $0.hasPrefix("      time: ") })
        #expect(time.contains(", probe order ") && time.contains(", probe zones ") && time.contains(", probe interrupted ") && time.contains(", probe size "))
    }

    @Test func onlyRunsOneProbe() throws {
        let corpus = try orderDependentCorpus()
        let zones = fixturekit("probe", "--config", corpus.config, "--only", "zones", "--json")
        #expect(zones.status == 0)
        let report = try JSONDecoder().decode(MigrationReport.self, from: Data(zones.standardOutput.utf8))
        #expect(report.paths.first?.checks.map(\.kind) == [.fixtureVerifies(version: "1.0.0"), .stage(from: "1.0.0", to: "2.0.0"), .probe(kind: "zones")])
        #expect(report.paths.first?.checks.last?.seconds != nil)
        let bad = fixturekit("probe", "--config", corpus.config, "--only", "sizes")
        #expect(bad.status == 64)
        #expect(bad.standardError.hasPrefix("Error: '--only' must be order, zones, interrupted or size, not 'sizes'\n"))
    }

    /// The configuration's `"run"` chooses the probes; `migrate --probes` checks and probes.
    @Test func migrateProbesChecksThenProbes() throws {
        let corpus = try orderDependentCorpus()
        let plain = fixturekit("migrate", "--config", corpus.config)
        #expect(plain.status == 0)
        try corpus.writeConfig(stage: ["sql": "stage.sql"]) { object in
            object["counts"] = ["positions": "changes"]
            object["probes"] = ["run": ["order"]]
        }
        let folder = try TemporaryFolder()
        let probed = fixturekit(
            "migrate", "--config", corpus.config, "--probes", "--json", "--junit", folder.url("report.xml"), "--html", folder.url("report.html"))
        #expect(probed.status == 1)
        let report = try JSONDecoder().decode(MigrationReport.self, from: Data(probed.standardOutput.utf8))
        let checks = try #require(report.paths.first?.checks)
        #expect(checks.filter { !$0.passed }.map(\.kind) == [.probe(kind: "order")])
        #expect(checks.last?.kind == .probe(kind: "order"))
        #expect(checks.contains { $0.kind == .dataPreserved && $0.passed })
        #expect(probed.standardOutput.contains(#""kind" : {"#) || probed.standardOutput.contains(#""probe" : "order""#))
        let junit = try String(contentsOfFile: folder.url("report.xml"), encoding: .utf8)
        #expect(junit.contains(#"<testcase classname="migrate.1.0.0" name="1.0.0 -&gt; 2.0.0: probe order" time=""#))
        #expect(junit.contains(#"<failure message="the stages&apos; result depends on the order of unordered SELECTs: it differs under reverse_unordered_selects">"#))
        let html = try String(contentsOfFile: folder.url("report.html"), encoding: .utf8)
        #expect(html.contains("probe order"))
        #expect(html.contains("positions.note_id: 6 of 6 rows differ"))
    }

    /// Every copy a probe made is removed, passed or failed.
    @Test func noCopyIsLeftBehind() throws {
        let corpus = try orderDependentCorpus()
        let scratch = try TemporaryFolder()
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = scratch.url("")
        let result = try run([toolExecutable, "probe", "--config", corpus.config], environment: environment)
        #expect(result.status == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url("")) == [])
    }

    /// The example corpus: its program stage runs on a raw fixture whose `-wal`
    /// already holds commits, which are not the program's (it commits once: nothing to interrupt).
    @Test func theExampleCorpusPassesEveryProbe() throws {
        let config = repositoryRoot.appendingPathComponent("MigrationFixtures/fixturekit.json").path
        let result = fixturekit("probe", "--config", config, "--jobs", "1")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.hasSuffix("probe: 3 of 3 passed\n"))
    }

    @Test(arguments: [
        (#"{"probes": []}"#, "probes must be an object"),
        (#"{"probes": {"zones": []}}"#, "probes: unknown key \"zones\" (one of locales, maxPoints, run, size, timeZones)"),
        (#"{"probes": {"run": ["order", "sizes"]}}"#, "probes.run: \"sizes\" is not one of \"order\", \"zones\", \"interrupted\", \"size\""),
        (#"{"probes": {"size": []}}"#, "probes.size must be an object"),
        (#"{"probes": {"timeZones": ["Mars/Olympus"]}}"#, "probes.timeZones: \"Mars/Olympus\" is not a time zone this system knows (a name of the tz database: UTC, Pacific/Auckland)"),
        (#"{"probes": {"timeZones": []}}"#, "probes.timeZones is empty: name the zones to compare, or leave it out"),
        (#"{"probes": {"maxPoints": 0}}"#, "probes.maxPoints is 0: it must be at least 1"),
    ])
    func badProbeSettingsAreRefused(probes: String, why: String) throws {
        let base = #"{"store": "App.sqlite", "current": "1.0.0", "#
        let text = base + probes.dropFirst()
        #expect(throws: FormatError.self) { try CorpusConfiguration.parse(Array(text.utf8), path: "fixturekit.json") }
        do { _ = try CorpusConfiguration.parse(Array(text.utf8), path: "fixturekit.json") } catch {
            #expect(error.description.hasSuffix(why), "\(error.description)")
        }
    }
}

/// A cancellation during the probes ends the probe running and starts no other.
@Suite struct ProbeCancellationTests {
    @Test func aCancelledProbeRunsNoOther() throws {
        let corpus = try FoldersCorpus()
        try corpus.writeConfig(stage: ["swift": "Migrator"])
        let cancellation = Cancellation()
        let runs = Mutex(0)
        // The plain run passes; the order probe's run is cancelled in its stage.
        let migrator = SwiftStage { context in
            let run = runs.withLock { count in
                count += 1
                return count
            }
            if run == 2 { cancellation.cancel() }
            let database = try Database(path: context.storePath)
            try database.execute("CREATE TABLE IF NOT EXISTS done (run INTEGER)")
            try database.close()
        }
        var options = MigrationRunner.Options(jobs: 1, cancellation: cancellation)
        (options.probes, options.checks) = (ProbeKind.allCases, false)
        let report = try MigrationRunner.runMatrix(config: corpus.config, options: options, swiftStages: ["Migrator": migrator])
        #expect(report.interrupted == "cancelled")
        let checks = try #require(report.paths.first?.checks)
        // The order probe's run ended (a Swift stage ends when it returns); the zones probe did not start.
        #expect(checks.map(\.name) == ["fixture 1.0.0 verifies", "stage 1.0.0 -> 2.0.0", "probe order", "probe zones"])
        #expect(checks.last?.message == "not run: cancelled by its caller")
        #expect(runs.withLock { $0 } == 2)
    }
}
