import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// The order probe: a stage run again with `PRAGMA reverse_unordered_selects =
/// ON` must leave the same content; one that numbers rows from an unordered
/// `INSERT ... SELECT` does not, and the finding names the table and column.
@Suite struct OrderProbeTests {
    /// Positions given from an unordered select: the rowids follow the scan's order.
    static let unordered = """
        CREATE TABLE positions (position INTEGER PRIMARY KEY, note_id INTEGER NOT NULL);
        INSERT INTO positions (note_id) SELECT id FROM notes WHERE folder_id = 1;
        """

    @Test(arguments: [false, true])
    func unorderedInsertSelectFailsNamingTheTable(wal: Bool) throws {
        let corpus = try FoldersCorpus(wal: wal)
        try corpus.write("stage.sql", Self.unordered)
        try corpus.writeConfig(stage: ["sql": "stage.sql"])
        let result = try corpus.probe([.order])
        let probe = try result.probe(.order)
        #expect(!result.passed)
        #expect(probe.passed == false)
        #expect(probe.message == """
            the stages' result depends on the order of unordered SELECTs: it differs under reverse_unordered_selects
            positions.note_id: 6 of 6 rows differ (rowid 1: 2 -> 12; rowid 2: 4 -> 10; rowid 3: 6 -> 8; rowid 4: 8 -> 6; rowid 5: 10 -> 4) (fixtures: 1.0.0 6 rows)
            """)
        #expect(probe.findings?.map(\.message) == [
            "positions.note_id: 6 of 6 rows differ (rowid 1: 2 -> 12; rowid 2: 4 -> 10; rowid 3: 6 -> 8; rowid 4: 8 -> 6; rowid 5: 10 -> 4)",
        ])
        #expect(probe.findings?.map(\.counts) == [["1.0.0": 6]])
        #expect(probe.seconds != nil)
        #expect(probe.error == nil)
    }

    @Test func orderedInsertSelectPasses() throws {
        let corpus = try FoldersCorpus()
        try corpus.write("stage.sql", Self.unordered.replacingOccurrences(of: "folder_id = 1;", with: "folder_id = 1 ORDER BY id;"))
        try corpus.writeConfig(stage: ["sql": "stage.sql"])
        let result = try corpus.probe([.order])
        #expect(result.passed)
        #expect(try result.probe(.order) == CheckResult(.probe(kind: "order"), passed: true))
        // The plain run's stage, then the probe: no migration check runs.
        #expect(result.checks.map(\.name) == ["fixture 1.0.0 verifies", "stage 1.0.0 -> 2.0.0", "probe order"])
    }

    /// A program stage is told by FIXTUREKIT_REVERSE_UNORDERED_SELECTS, which its own connection honours.
    @Test(arguments: [false, true])
    func programStageIsToldThroughItsEnvironment(ordered: Bool) throws {
        let corpus = try FoldersCorpus()
        let order = ordered ? " ORDER BY id" : ""
        try corpus.write("stage.sh", """
            #!/bin/sh
            exec sqlite3 "$FIXTUREKIT_STORE" "PRAGMA reverse_unordered_selects = ${FIXTUREKIT_REVERSE_UNORDERED_SELECTS:-0};
            CREATE TABLE positions (position INTEGER PRIMARY KEY, title TEXT);
            INSERT INTO positions (title) SELECT title FROM notes\(order);"
            """)
        chmod(corpus.corpus + "/stage.sh", 0o755)
        try corpus.writeConfig(stage: ["exec": ["./stage.sh"]])
        let probe = try corpus.probe([.order]).probe(.order)
        #expect(probe.passed == ordered)
        if !ordered {
            #expect(probe.findings?.map(\.message) == [
                "positions.title: 12 of 12 rows differ (rowid 1: 'Note 1' -> 'Note 12'; rowid 2: 'Note 2' -> 'Note 11'; rowid 3: 'Note 3' -> 'Note 10'; rowid 4: 'Note 4' -> 'Note 9'; rowid 5: 'Note 5' -> 'Note 8')",
            ])
        }
    }

    /// Rows only in one run, a table only in one run: each named.
    @Test func rowsAndTablesOnlyInOneRunAreNamed() throws {
        let corpus = try FoldersCorpus()
        // The first note of the scan decides what is created and what is kept.
        try corpus.write("stage.sql", """
            CREATE TABLE first (id INTEGER PRIMARY KEY);
            INSERT INTO first SELECT id FROM notes LIMIT 1;
            DELETE FROM notes WHERE id > (SELECT id FROM first) + 9;
            """)
        try corpus.writeConfig(stage: ["sql": "stage.sql"])
        let probe = try corpus.probe([.order]).probe(.order)
        #expect(probe.findings?.map(\.message) == [
            "first: 1 row only in the plain run (rowid 1)",
            "first: 1 row only under reverse_unordered_selects (rowid 12)",
            "notes: 2 rows only under reverse_unordered_selects (rowid 11; rowid 12)",
        ])
    }
}
