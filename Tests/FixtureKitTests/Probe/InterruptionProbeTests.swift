import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// The interruption probe: a folder stage stopped after its k-th file, then
/// run again from the start as the app would at its next launch, must end
/// where it ends uninterrupted.
@Suite struct InterruptionProbeTests {
    /// The second file repeated after the first would not be: the rerun fails.
    @Test func rerunThatFailsIsReportedAtK1() throws {
        let corpus = try FoldersCorpus()
        try corpus.writeFolderStage([
            ("0001_color.sql", "ALTER TABLE folders ADD COLUMN color TEXT;\n"),
            ("0002_paint.sql", "UPDATE folders SET color = 'red';\n"),
        ])
        let probe = try corpus.probe([.interrupted]).probe(.interrupted)
        #expect(probe.passed == false)
        #expect(probe.error == nil)
        #expect(probe.message == """
            a stage interrupted and run again does not end where it ends uninterrupted: at k=1
            stage 1.0.0 -> 2.0.0 stopped after k=1 (migrations/app/0001_color.sql) and run again: stage 1.0.0 -> 2.0.0 fails: migrations/app/0001_color.sql:1: SQLite error 1: duplicate column name: color
            """)
    }

    /// The first file run again adds its rows again: the store ends elsewhere, its rows named.
    @Test func rerunThatDuplicatesRowsIsReported() throws {
        let corpus = try FoldersCorpus()
        try corpus.writeFolderStage([
            ("0001_tags.sql", "CREATE TABLE IF NOT EXISTS tags (id INTEGER PRIMARY KEY, name TEXT);\nINSERT INTO tags (name) SELECT name FROM folders;\n"),
            ("0002_more.sql", "INSERT INTO tags (name) VALUES ('later');\n"),
            ("0003_last.sql", "UPDATE tags SET name = upper(name);\n"),
        ])
        let probe = try corpus.probe([.interrupted]).probe(.interrupted)
        #expect(probe.findings?.map(\.message) == [
            "stage 1.0.0 -> 2.0.0 stopped after k=1 (migrations/app/0001_tags.sql) and run again: tags.name: 1 of 3 rows differ (rowid 3: 'LATER' -> 'INBOX')",
            "stage 1.0.0 -> 2.0.0 stopped after k=1 (migrations/app/0001_tags.sql) and run again: tags: 2 rows only in the interrupted run (rowid 4; rowid 5)",
            "stage 1.0.0 -> 2.0.0 stopped after k=2 (migrations/app/0002_more.sql) and run again: tags: 3 rows only in the interrupted run (rowid 4; rowid 5; rowid 6)",
        ])
        #expect(probe.message?.split(separator: "\n").first == "a stage interrupted and run again does not end where it ends uninterrupted: at k=1, k=2")
    }

    @Test func idempotentFolderPasses() throws {
        let corpus = try FoldersCorpus()
        try corpus.writeFolderStage([
            ("0001_tags.sql", "CREATE TABLE IF NOT EXISTS tags (id INTEGER PRIMARY KEY, name TEXT UNIQUE);\nINSERT OR IGNORE INTO tags (name) SELECT name FROM folders ORDER BY id;\n"),
            ("0002_more.sql", "INSERT OR IGNORE INTO tags (name) VALUES ('later');\n"),
        ])
        let result = try corpus.probe([.interrupted])
        #expect(try result.probe(.interrupted) == CheckResult(.probe(kind: "interrupted"), passed: true))
    }

    /// With `"record"`, the rerun skips what the bookkeeping table says ran: files that could not run twice pass.
    @Test func recordedFolderSkipsWhatRan() throws {
        let corpus = try FoldersCorpus(extraSchema: "\nCREATE TABLE schema_migrations (version TEXT PRIMARY KEY);")
        try corpus.writeFolderStage([
            ("0001_color.sql", "ALTER TABLE folders ADD COLUMN color TEXT;\n"),
            ("0002_paint.sql", "UPDATE folders SET color = 'red';\n"),
            ("0003_tags.sql", "CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT);\n"),
        ], record: true)
        let probe = try corpus.probe([.interrupted]).probe(.interrupted)
        #expect(probe == CheckResult(.probe(kind: "interrupted"), passed: true))
    }

    /// One file, a whole-stage transaction, a single SQL file: nothing commits twice, nothing to interrupt.
    @Test func stagesThatCommitOnceHaveNoPoints() throws {
        let corpus = try FoldersCorpus()
        try corpus.writeFolderStage([
            ("0001_color.sql", "ALTER TABLE folders ADD COLUMN color TEXT;\n"),
            ("0002_paint.sql", "UPDATE folders SET color = 'red';\n"),
        ]) { object in
            var stages = object["stages"] as? [[String: Any]] ?? []
            stages[0]["transaction"] = "whole stage"
            object["stages"] = stages
        }
        #expect(try corpus.probe([.interrupted]).probe(.interrupted).passed)
    }

    @Test func pointsAreSpreadEvenly() {
        #expect(MigrationRunner.interruptionPoints(commits: 1, max: 20) == [])
        #expect(MigrationRunner.interruptionPoints(commits: 2, max: 20) == [1])
        #expect(MigrationRunner.interruptionPoints(commits: 21, max: 20) == Array(1...20))
        #expect(MigrationRunner.interruptionPoints(commits: 50, max: 5) == [1, 13, 25, 37, 49])
        #expect(MigrationRunner.interruptionPoints(commits: 50, max: 1) == [1])
        for commits in 2...60 {
            for max in 1...25 {
                let points = MigrationRunner.interruptionPoints(commits: commits, max: max)
                #expect(points.count == min(max, commits - 1))
                #expect(points.first == 1)
                #expect(points.allSatisfy { (1..<commits).contains($0) })
                #expect(points == points.sorted() && Set(points).count == points.count)
            }
        }
    }
}

/// The interruption probe on a program stage: killed with SIGKILL once its k-th
/// commit is seen (in its `-wal`, or its store's change counter), then run again
/// from the start on the store the kill left.
@Suite struct ProgramKillProbeTests {
    /// Three commits, a pause after each so that the watch sees it before the next.
    static func program(idempotent: Bool) -> String {
        let insert = idempotent ? "INSERT OR IGNORE" : "INSERT"
        return """
            #!/bin/sh
            exec sqlite3 "$FIXTUREKIT_STORE" <<'SQL'
            CREATE TABLE IF NOT EXISTS tags (id INTEGER PRIMARY KEY, name TEXT UNIQUE);
            .shell sleep 0.3
            \(insert) INTO tags (name) SELECT name || '' FROM folders ORDER BY id;
            .shell sleep 0.3
            UPDATE notes SET title = upper(title);
            .shell sleep 0.3
            SQL
            """
    }

    @Test(arguments: [false, true], [false, true])
    func aProgramKilledAtEachCommitAndRunAgain(wal: Bool, idempotent: Bool) throws {
        let corpus = try FoldersCorpus(wal: wal)
        // Without UNIQUE, the insert run again adds its rows again.
        try corpus.write("stage.sh", Self.program(idempotent: idempotent).replacingOccurrences(of: idempotent ? "\0" : " UNIQUE", with: ""))
        chmod(corpus.corpus + "/stage.sh", 0o755)
        try corpus.writeConfig(stage: ["exec": ["./stage.sh"]])
        let probe = try corpus.probe([.interrupted]).probe(.interrupted)
        if idempotent {
            #expect(probe == CheckResult(.probe(kind: "interrupted"), passed: true))
        } else {
            #expect(probe.message == """
                a stage interrupted and run again does not end where it ends uninterrupted: at k=2
                stage 1.0.0 -> 2.0.0 killed at commit k=2 of 3 and run again: tags: 2 rows only in the interrupted run (rowid 3; rowid 4) (fixtures: 1.0.0 2 rows)
                """)
            // The finding counts the rows per fixture; its message leaves that to its counts.
            #expect(probe.findings?.map(\.counts) == [["1.0.0": 2]])
        }
    }
}
