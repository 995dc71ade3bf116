import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// The migration matrix on a Notes corpus built in code.
@Suite struct MigrateTests {
    @Test func multiHopDirectAndSingleHopPathsPass() throws {
        let notes = try NotesCorpus()
        let result = fixturekit("migrate", "--config", notes.config, "--jobs", "2")
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardError.split(separator: "\n").map(String.init)
        #expect(lines.first == "migrate: \(notes.config): 2 paths to 3.0.0 and 1 hop")
        #expect(lines.contains { $0.hasPrefix("PASS  1.0.0 -> 2.0.0 -> 3.0.0  2 stages, ") })
        #expect(lines.contains { $0.hasPrefix("PASS  2.0.0 -> 3.0.0           1 stage, ") })
        #expect(lines.contains { $0.hasPrefix("PASS  hop 1.0.0 -> 2.0.0       1 stage, ") })
        #expect(lines.last == "migrate: 3 of 3 passed")

        let report = try MigrationRunner.runMatrix(config: notes.config)
        let direct = try #require(report.paths.first { $0.id == "1.0.0 -> 2.0.0 -> 3.0.0" })
        #expect(direct.checks.map(\.name) == [
            "fixture 1.0.0 verifies", "stage 1.0.0 -> 2.0.0", "stage 2.0.0 -> 3.0.0", "integrity_check", "foreign_key_check",
            "user_version", "schema matches 3.0.0", "row counts", "data preserved", "no orphan notes", "note K1 keeps its title",
        ])
        // The fixtures are never touched.
        #expect(fixturekit("verify", notes.corpus).status == 0)
    }

    @Test func aStageThatDeletesRowsFailsTheCountCheck() throws {
        let notes = try NotesCorpus()
        try notes.folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", NotesCorpus.stage1to2 + "\nDELETE FROM notes WHERE id > 38;\n")
        let report = try MigrationRunner.runMatrix(config: notes.config)
        let hop = try #require(report.paths.first { $0.kind == .hop })
        #expect(!hop.passed)
        #expect(hop.firstFailure == CheckResult(.rowCounts, passed: false, message: "notes: 40 rows in 1.0.0, 38 after the migration"))
        #expect(report.paths.first { $0.id == "2.0.0 -> 3.0.0" }?.passed == true)
    }

    @Test func aColumnLeftWithAnotherTypeFailsTheSchemaCheckReadably() throws {
        let notes = try NotesCorpus()
        let stage = NotesCorpus.stage2to3.replacingOccurrences(of: "created_at INTEGER, folder_id", with: "created_at TEXT, folder_id")
        try notes.writeProgramStage(stage)
        let result = fixturekit("migrate", "--config", notes.config)
        #expect(result.status == 1)
        #expect(result.standardError.contains("      schema matches 3.0.0: notes.created_at: TEXT here, INTEGER in 3.0.0\n"), "\(result.standardError)")
        let report = try MigrationRunner.runMatrix(config: notes.config)
        #expect(report.paths.first { $0.id == "2.0.0 -> 3.0.0" }?.schemaDifferences == ["notes.created_at: TEXT here, INTEGER in 3.0.0"])
    }

    @Test func aMissingIndexIsNamed() throws {
        let notes = try NotesCorpus()
        try notes.writeProgramStage(NotesCorpus.stage2to3.replacingOccurrences(of: "CREATE INDEX notes_by_folder ON notes(folder_id);\n", with: ""))
        let report = try MigrationRunner.runMatrix(config: notes.config, options: .init(from: "2.0.0"))
        #expect(report.paths.map(\.id) == ["2.0.0 -> 3.0.0"])
        #expect(report.paths[0].schemaDifferences == ["index notes_by_folder: missing (3.0.0 has it)"])
    }

    @Test func aMissingFixtureFailsAndNeverPassesSilently() throws {
        let notes = try NotesCorpus()
        try FileManager.default.removeItem(atPath: notes.corpus + "/1.0.0")
        let result = fixturekit("migrate", "--config", notes.config)
        #expect(result.status == 1)
        #expect(result.standardError.contains("FAIL  1.0.0 -> 2.0.0 -> 3.0.0  0 stages, "))
        #expect(result.standardError.contains("      fixture 1.0.0: no fixture of 1.0.0: \(notes.corpus)/1.0.0 does not exist, nor its archive\n"))
    }

    @Test func aFixtureKeptOnlyAsItsArchiveIsUnpackedVerifiedAndMigrated() throws {
        let notes = try NotesCorpus()
        #expect(fixturekit("pack", "--quiet", notes.corpus + "/1.0.0").status == 0)
        try FileManager.default.removeItem(atPath: notes.corpus + "/1.0.0")
        let report = try MigrationRunner.runMatrix(config: notes.config, options: .init(from: "1.0.0"))
        #expect(report.paths.count == 2)
        #expect(report.passed, "\(report.paths.map { String(describing: $0.firstFailure) })")
        // A damaged archive fails before any stage, naming what is wrong.
        var bytes = try notes.folder.read("MigrationFixtures/App-1.0.0.tar.zst")
        bytes[bytes.count / 2] ^= 0xFF
        try notes.folder.write("MigrationFixtures/App-1.0.0.tar.zst", bytes)
        let damaged = try MigrationRunner.runMatrix(config: notes.config, options: .init(from: "1.0.0"))
        #expect(damaged.paths.allSatisfy { $0.checks.count == 1 && !$0.passed })
        let message = damaged.paths[0].checks[0].message ?? ""
        #expect(message.hasPrefix("unpack: ") || message.hasPrefix("\(notes.corpus)/App-1.0.0.tar.zst does not verify: "), "\(message)")
    }

    @Test func aCorruptedFixtureFailsBeforeAnyStageRuns() throws {
        let notes = try NotesCorpus()
        var bytes = try notes.folder.read("MigrationFixtures/1.0.0/App.sqlite")
        bytes[5000] ^= 0xFF
        try notes.folder.write("MigrationFixtures/1.0.0/App.sqlite", bytes)
        let report = try MigrationRunner.runMatrix(config: notes.config, options: .init(from: "1.0.0"))
        for path in report.paths {
            #expect(path.checks.count == 1)
            #expect(path.checks[0] == CheckResult(.fixtureVerifies(version: "1.0.0"), passed: false, message: "\(notes.corpus)/1.0.0 does not verify: App.sqlite: changed"))
        }
    }

    /// The first path's copy is made while the fixture verifies: it is the
    /// path's own (the second path from the fixture copies for itself), and
    /// no copy outlives the run, whether the fixture verifies or not.
    @Test func theCopyMadeWhileAFixtureVerifiesIsOnePathsAndNoneOutlivesTheRun() throws {
        let notes = try NotesCorpus()
        let tmp = try TemporaryFolder()
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = tmp.path
        let passed = try ToolProcess(["migrate", "--config", notes.config, "--from", "1.0.0", "--jobs", "1"], folder: notes.folder.path, environment: environment).wait()
        #expect(passed.status == 0, "\(passed.standardError)")
        #expect(passed.standardError.hasSuffix("migrate: 2 of 2 passed\n"), "\(passed.standardError)")
        // (Listed first, so that a failure shows what was left.)
        let leftByPassing = try FileManager.default.contentsOfDirectory(atPath: tmp.path)
        #expect(leftByPassing == [])

        var bytes = try notes.folder.read("MigrationFixtures/1.0.0/App.sqlite")
        bytes[5000] ^= 0xFF
        try notes.folder.write("MigrationFixtures/1.0.0/App.sqlite", bytes)
        let failed = try ToolProcess(["migrate", "--config", notes.config, "--from", "1.0.0", "--jobs", "1"], folder: notes.folder.path, environment: environment).wait()
        #expect(failed.status == 1, "\(failed.standardError)")
        #expect(failed.standardError.contains("      fixture 1.0.0: \(notes.corpus)/1.0.0 does not verify: App.sqlite: changed\n"), "\(failed.standardError)")
        let leftByFailing = try FileManager.default.contentsOfDirectory(atPath: tmp.path)
        #expect(leftByFailing == [])
    }

    /// The spare copy holds the verified store's bytes, goes to one taker, and
    /// is made only when asked, for a fixture that verifies.
    @Test func aSpareCopyHoldsTheVerifiedBytesForOneTaker() throws {
        let notes = try NotesCorpus()
        let store = try notes.folder.read("MigrationFixtures/1.0.0/App.sqlite")
        let runner = MigrationRunner(configuration: try CorpusConfiguration.load(notes.config))
        #expect(runner.fixture("2.0.0").spare == nil)
        let source = runner.fixture("1.0.0", spare: true)
        let copy = try #require(try source.spare?.take()?.get())
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: copy.path))) == store)
        #expect(copy.path.hasPrefix(source.folder) == false)
        #expect(source.spare?.take() == nil)
        #expect(runner.fixture("1.0.0", spare: true).spare?.take() == nil)

        var bytes = store
        bytes[5000] ^= 0xFF
        try notes.folder.write("MigrationFixtures/1.0.0/App.sqlite", bytes)
        let damaged = MigrationRunner(configuration: try CorpusConfiguration.load(notes.config)).fixture("1.0.0", spare: true)
        #expect(damaged.problem != nil)
        #expect(damaged.spare == nil)
    }

    @Test func aFailingStatementIsReportedWithItsText() throws {
        let notes = try NotesCorpus()
        try notes.folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", "CREATE TABLE folders (id INTEGER PRIMARY KEY);\nUPDATE notes SET colour = 'red';\n")
        let result = fixturekit("migrate", "--config", notes.config, "--from", "1.0.0")
        #expect(result.status == 1)
        #expect(result.standardError.contains("      stage 1.0.0 -> 2.0.0: migrations/1.0.0-2.0.0.sql:2: SQLite error 1: no such column: colour\n      statement: UPDATE notes SET colour = 'red';\n"), "\(result.standardError)")
    }

    @Test func anExecStageReceivesTheStoreAndTheVersions() throws {
        let notes = try NotesCorpus()
        let record = notes.folder.url("environment.txt")
        try notes.writeProgramStage(NotesCorpus.stage2to3 + "\necho \"$FIXTUREKIT_STORE|$FIXTUREKIT_FROM|$FIXTUREKIT_TO|$(pwd)\" > '\(record)'\n")
        let report = try MigrationRunner.runMatrix(config: notes.config, options: .init(from: "2.0.0"))
        #expect(report.passed)
        let fields = String(decoding: try notes.folder.read("environment.txt"), as: UTF8.self).trimmingCharacters(in: .newlines).split(separator: "|").map(String.init)
        #expect(fields.count == 4)
        #expect(fields[0].hasSuffix("/App.sqlite") && !fields[0].hasPrefix(notes.corpus))
        #expect(Array(fields[1...2]) == ["2.0.0", "3.0.0"])
        #expect(fields[3] == notes.corpus)
    }

    @Test func aFailingProgramIsReportedWithItsStatusAndLastLine() throws {
        let notes = try NotesCorpus()
        try notes.writeProgramStage("#!/bin/sh\necho 'cannot migrate: model missing' >&2\nexit 3\n")
        let report = try MigrationRunner.runMatrix(config: notes.config, options: .init(from: "2.0.0"))
        #expect(report.paths[0].firstFailure?.message == "migrations/2.0.0-3.0.0.sh exited with status 3: cannot migrate: model missing")
    }

    @Test func aProgramThatIsNotExecutableIsNamed() throws {
        let notes = try NotesCorpus()
        chmod(notes.corpus + "/migrations/2.0.0-3.0.0.sh", 0o644)
        let report = try MigrationRunner.runMatrix(config: notes.config, options: .init(from: "2.0.0"))
        #expect(report.paths[0].firstFailure?.message == "migrations/2.0.0-3.0.0.sh: not executable (chmod +x it)")
    }

    @Test func junitIsWellFormedAndItsCountsMatch() throws {
        let notes = try NotesCorpus()
        try notes.folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", NotesCorpus.stage1to2 + "\nDELETE FROM notes WHERE id = 1;\n")
        let junit = notes.folder.url("report.xml")
        let result = fixturekit("migrate", "--config", notes.config, "--junit", junit)
        #expect(result.status == 1)
        let data = Data(try notes.folder.read("report.xml"))
        let counter = JUnitCounter()
        let parser = XMLParser(data: data)
        parser.delegate = counter
        #expect(parser.parse(), "\(String(decoding: data, as: UTF8.self))")
        let report = try MigrationRunner.runMatrix(config: notes.config)
        let checks = report.paths.flatMap(\.checks)
        #expect(counter.testcases == checks.count)
        #expect(counter.failures == checks.filter { !$0.passed }.count)
        #expect(counter.failures > 0)
        #expect(counter.suites == ["1.0.0", "2.0.0"])
        #expect(counter.declaredTests == checks.count)
    }

    @Test func shardsCoverTheMatrixExactlyOnce() throws {
        let notes = try NotesCorpus()
        let first = try MigrationRunner.runMatrix(config: notes.config, options: .init(shard: (1, 2)))
        let second = try MigrationRunner.runMatrix(config: notes.config, options: .init(shard: (2, 2)))
        let all = try MigrationRunner.runMatrix(config: notes.config)
        #expect(first.paths.count + second.paths.count == all.paths.count)
        #expect(Set(first.paths.map(\.id) + second.paths.map(\.id)) == Set(all.paths.map(\.id)))
        #expect(Set(first.paths.map(\.id)).isDisjoint(with: second.paths.map(\.id)))
        #expect(fixturekit("migrate", "--config", notes.config, "--shard", "3/2").status == 64)
    }

    @Test func keepFailedLeavesTheCopyTheLogAndTheFindings() throws {
        let notes = try NotesCorpus()
        try notes.folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", NotesCorpus.stage1to2 + "\nDELETE FROM notes WHERE id = 1;\n")
        let kept = notes.folder.url("failed")
        #expect(fixturekit("migrate", "--config", notes.config, "--keep-failed", kept).status == 1)
        let folder = kept + "/hop_1.0.0_to_2.0.0"
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder)).isSuperset(of: ["App.sqlite", "statements.log", "checks.json", "schema-diff.txt"]))
        #expect(String(decoding: try notes.folder.read("failed/hop_1.0.0_to_2.0.0/statements.log"), as: UTF8.self).contains("DELETE FROM notes WHERE id = 1;"))
        #expect(try rowCount(ofStoreAt: folder + "/App.sqlite") == 39)
    }

    @Test func configurationProblemsExit2WithOneLine() throws {
        let notes = try NotesCorpus()
        try notes.writeConfig { $0["suported"] = ["1.0.0"] }
        let unknown = fixturekit("migrate", "--config", notes.config)
        #expect(unknown.status == 2)
        #expect(unknown.standardError == "fixturekit: read configuration: \(notes.config): unknown key \"suported\"\n")
        try notes.writeConfig { $0["stages"] = [["from": "2.0.0", "to": "1.0.0", "sql": "x.sql"]] }
        #expect(fixturekit("migrate", "--config", notes.config).standardError == "fixturekit: read configuration: \(notes.config): stages[0] goes from 2.0.0 to 1.0.0, which is not forward\n")
        try notes.writeConfig { $0.removeValue(forKey: "current") }
        #expect(fixturekit("migrate", "--config", notes.config).standardError == "fixturekit: read configuration: \(notes.config): current is missing\n")
        try notes.writeConfig { $0["stages"] = [["from": "1.0.0", "to": "2.0.0", "sql": "migrations/1.0.0-2.0.0.sql"]] }
        let gap = try MigrationRunner.runMatrix(config: notes.config)
        #expect(gap.paths.first { $0.source == "2.0.0" }?.firstFailure?.message == "no stage from 2.0.0 (the chain to 3.0.0 stops there)")
    }

    @Test func driftListsDifferencesAndExits1() throws {
        let notes = try NotesCorpus()
        let same = fixturekit("drift", notes.corpus + "/3.0.0/App.sqlite", "--against", notes.corpus + "/3.0.0")
        #expect(same.status == 0)
        // Both content hashes are reported; here the store is the fixture's own.
        let hash = try ContentHash.of(notes.corpus + "/3.0.0").hex.prefix(12)
        #expect(same.standardError.hasSuffix("content hash: \(hash)… here, \(hash)… in \(notes.corpus)/3.0.0: the same content\n"), "\(same.standardError)")
        let different = fixturekit("drift", notes.corpus + "/2.0.0/App.sqlite", "--against", notes.corpus + "/3.0.0")
        #expect(different.status == 1)
        #expect(different.standardError.hasPrefix("  table drafts: extra (not in 3.0.0)\n  notes.created_at: TEXT here, INTEGER in 3.0.0\n"), "\(different.standardError)")
        #expect(different.standardError.hasSuffix("content hash: \(try ContentHash.of(notes.corpus + "/2.0.0").hex.prefix(12))… here, \(hash)… in \(notes.corpus)/3.0.0\n"))
    }

    @Test func verifiedCopyRefusesAChangedFixture() throws {
        let notes = try NotesCorpus()
        let count = try VerifiedCopy.withCopy(of: notes.corpus + "/1.0.0") { try $0.scalar("SELECT count(*) FROM notes") }
        #expect(count == .integer(40))
        try notes.folder.write("MigrationFixtures/1.0.0/extra", "x")
        #expect(throws: FixtureKitError.self) { try VerifiedCopy.withCopy(of: notes.corpus + "/1.0.0") { _ in 0 } }
    }
}

/// Counts what a JUnit file holds.
final class JUnitCounter: NSObject, XMLParserDelegate {
    var testcases = 0
    var failures = 0
    var suites: [String] = []
    var declaredTests = 0

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        switch name {
        case "testcase": testcases += 1
        case "failure": failures += 1
        case "testsuite": suites.append(attributes["name"] ?? "")
        case "testsuites": declaredTests = Int(attributes["tests"] ?? "") ?? -1
        default: break
        }
    }
}
