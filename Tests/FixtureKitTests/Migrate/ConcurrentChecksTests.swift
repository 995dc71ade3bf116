import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// After the stages, `integrity_check` runs on threads of its own, each with a
/// read-only connection to the migrated copy, while the path's thread diffs the
/// data: the reports are the same whatever the number of integrity workers, and
/// a path that fails both has both failures reported, in the usual order.
@Suite struct ConcurrentChecksTests {
    /// A stage that changes a title (the data diff fails) and leaves an index
    /// whose entries do not match its definition (`integrity_check` fails).
    static let breakingStage = NotesCorpus.stage1to2 + """

        UPDATE notes SET title = 'changed' WHERE id = 3;
        CREATE INDEX notes_by_title ON notes(title);
        PRAGMA writable_schema = ON;
        UPDATE sqlite_schema SET sql = 'CREATE INDEX notes_by_title ON notes(body)' WHERE name = 'notes_by_title';
        PRAGMA writable_schema = OFF;

        """

    /// The checks of every path, without their times.
    static func checks(_ report: MigrationReport) -> [String] {
        report.paths.flatMap { path in
            path.checks.map { "\(path.id): \($0.name): \($0.passed ? "pass" : "FAIL") \($0.message ?? "")" }
        }
    }

    @Test func anIntegrityFailureAndADataDiffFailureAreBothReported() throws {
        let notes = try NotesCorpus()
        try notes.folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", Self.breakingStage)
        // One path at a time: two integrity workers beside the data diff; three
        // at once: one worker each.
        let alone = try MigrationRunner.runMatrix(config: notes.config, options: .init(jobs: 1))
        let together = try MigrationRunner.runMatrix(config: notes.config, options: .init(jobs: 3))
        #expect(Self.checks(alone) == Self.checks(together))
        let hop = try #require(alone.paths.first { $0.kind == .hop })
        let names = hop.checks.map(\.name)
        let integrity = try #require(hop.checks.first { $0.name == "integrity_check" })
        let preserved = try #require(hop.checks.first { $0.name == "data preserved" })
        #expect(!integrity.passed && integrity.message?.contains("missing from index notes_by_title") == true, "\(integrity)")
        #expect(!preserved.passed && preserved.message?.contains("changed") == true, "\(preserved)")
        // integrity_check keeps its place, right after the stages.
        #expect(names.firstIndex(of: "integrity_check") == names.firstIndex(of: "stage 1.0.0 -> 2.0.0").map { $0 + 1 })
        #expect(names.firstIndex(of: "integrity_check")! < names.firstIndex(of: "data preserved")!)
    }
}
