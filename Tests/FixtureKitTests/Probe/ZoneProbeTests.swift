import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// The zone probe: each path again in each declared zone; a stage that reads
/// local time (`strftime('%s', x, 'utc')` takes `x` as local) differs, one
/// pinned to UTC does not. SQL stages read the process' zone, held per run
/// (``ZoneLease``); a program reads `TZ` from its environment.
@Suite struct ZoneProbeTests {
    static let local = """
        ALTER TABLE notes ADD COLUMN created INTEGER;
        UPDATE notes SET created = strftime('%s', '2024-07-0' || (id % 9 + 1) || ' 12:00:00', 'utc');
        """

    @Test func localTimeFailsNamingTheRows() throws {
        let corpus = try FoldersCorpus()
        try corpus.write("stage.sql", Self.local)
        try corpus.writeConfig(stage: ["sql": "stage.sql"])
        let probe = try corpus.probe([.zones]).probe(.zones)
        #expect(probe.passed == false)
        #expect(probe.message == """
            the stages' result depends on the time zone: it differs under TZ=Pacific/Auckland from the plain run's (TZ=UTC)
            under TZ=Pacific/Auckland: notes.created: 12 of 12 rows differ (rowid 1: 1719921600 -> 1719878400; rowid 2: 1720008000 -> 1719964800; rowid 3: 1720094400 -> 1720051200; rowid 4: 1720180800 -> 1720137600; rowid 5: 1720267200 -> 1720224000) (fixtures: 1.0.0 12 rows)
            """)
    }

    @Test func pinnedToUTCPasses() throws {
        let corpus = try FoldersCorpus()
        try corpus.write("stage.sql", Self.local.replacingOccurrences(of: ", 'utc')", with: ")"))
        try corpus.writeConfig(stage: ["sql": "stage.sql"])
        let result = try corpus.probe([.zones])
        #expect(try result.probe(.zones) == CheckResult(.probe(kind: "zones"), passed: true))
        #expect(result.passed)
    }

    /// Every declared zone, each named; the corpus' own zone is the plain run's.
    @Test func eachDeclaredZoneIsRun() throws {
        let corpus = try FoldersCorpus()
        try corpus.write("stage.sql", Self.local)
        try corpus.writeConfig(stage: ["sql": "stage.sql"]) { object in
            object["connection"] = ["environment": ["TZ": "Asia/Kolkata"]]
            object["probes"] = ["timeZones": ["UTC", "Asia/Kolkata", "America/Los_Angeles"]]
        }
        let probe = try corpus.probe([.zones]).probe(.zones)
        #expect(probe.message?.split(separator: "\n").first == "the stages' result depends on the time zone: it differs under TZ=UTC, TZ=America/Los_Angeles from the plain run's (TZ=Asia/Kolkata)")
        #expect(probe.findings?.map { $0.message.prefix(while: { $0 != ":" }) } == ["under TZ=UTC", "under TZ=America/Los_Angeles"])
    }

    /// A program stage gets the zone in `TZ`, over the one its connection declares.
    @Test(arguments: [false, true])
    func programStageGetsTheZoneInItsEnvironment(pinned: Bool) throws {
        let corpus = try FoldersCorpus()
        let modifier = pinned ? "" : ", 'utc'"
        try corpus.write("stage.sh", """
            #!/bin/sh
            exec sqlite3 "$FIXTUREKIT_STORE" "CREATE TABLE stamps (id INTEGER PRIMARY KEY, at INTEGER);
            INSERT INTO stamps (at) VALUES (strftime('%s', '2024-01-15 08:00:00'\(modifier)));"
            """)
        chmod(corpus.corpus + "/stage.sh", 0o755)
        try corpus.writeConfig(stage: ["exec": ["./stage.sh"]])
        let probe = try corpus.probe([.zones]).probe(.zones)
        #expect(probe.passed == pinned)
        #expect(probe.findings?.map(\.message) == (pinned ? nil : ["under TZ=Pacific/Auckland: stamps.at: 1 of 1 rows differ (rowid 1: 1705305600 -> 1705258800)"]))
    }

    /// Paths run at once in different zones do not see each other's: each run holds its zone.
    @Test func parallelRunsKeepTheirZones() throws {
        let corpus = try FoldersCorpus()
        try corpus.make("1.5.0", schema: FoldersCorpus.schema1.replacingOccurrences(of: "title TEXT)", with: "title TEXT, created INTEGER)")) { database in
            try database.execute("INSERT INTO folders VALUES (1, 'Inbox'); INSERT INTO notes VALUES (1, 1, 'One', NULL)")
        }
        try corpus.write("stage.sql", Self.local)
        try corpus.write("stage2.sql", String(Self.local.split(separator: "\n")[1]))
        try corpus.writeConfig(stage: ["sql": "stage.sql"]) { object in
            object["supported"] = ["1.0.0", "1.5.0"]
            object["stages"] = [
                ["from": "1.0.0", "to": "1.5.0", "sql": "stage.sql"], ["from": "1.5.0", "to": "2.0.0", "sql": "stage2.sql"],
            ]
            object["probes"] = ["timeZones": ["UTC", "Pacific/Auckland", "America/Los_Angeles", "Asia/Kolkata"]]
        }
        func messages(jobs: Int) throws -> [String] {
            var options = MigrationRunner.Options(jobs: jobs)
            (options.probes, options.checks) = ([.zones], false)
            let report = try MigrationRunner.runMatrix(config: corpus.config, options: options)
            return report.paths.flatMap { path in path.checks.map { "\(path.id): \($0.name): \($0.message ?? "passed")" } }
        }
        // One path at a time: each run's zone is the only one in the process.
        let alone = try messages(jobs: 1)
        #expect(alone.count == 10)
        #expect(alone.filter { $0.contains("probe zones: the stages' result depends on the time zone") }.count == 3)
        // Paths at once, probes in other zones among them: the same values, or a zone leaked into another run.
        for _ in 0..<3 {
            let together = try messages(jobs: 4)
            #expect(together == alone, "\(together.filter { !alone.contains($0) })")
        }
    }

    /// A program that counts characters the locale's way: `wc -m` counts bytes
    /// under `LC_ALL=C`, characters under `C.UTF-8` (the plain run's): the
    /// locale variant names it. One that counts bytes (`wc -c`) passes.
    @Test(arguments: [false, true])
    func programStageReadingTheLocaleFails(independent: Bool) throws {
        let corpus = try FoldersCorpus()
        try corpus.write("stage.sh", """
            #!/bin/sh
            length=$(printf '%s' 'déjà vu' | wc -\(independent ? "c" : "m") | tr -d ' ')
            exec sqlite3 "$FIXTUREKIT_STORE" "CREATE TABLE lengths (id INTEGER PRIMARY KEY, n INTEGER); INSERT INTO lengths (n) VALUES ($length);"
            """)
        chmod(corpus.corpus + "/stage.sh", 0o755)
        try corpus.writeConfig(stage: ["exec": ["./stage.sh"]]) { $0["probes"] = ["timeZones": ["UTC"], "locales": ["C.UTF-8", "C"]] }
        let probe = try corpus.probe([.zones]).probe(.zones)
        #expect(probe.passed == independent)
        #expect(probe.message == (independent ? nil : """
            the program stages' result depends on the locale: it differs under LC_ALL=C from the plain run's (LC_ALL=C.UTF-8)
            under LC_ALL=C: lengths.n: 1 of 1 rows differ (rowid 1: 7 -> 9) (fixtures: 1.0.0 1 row)
            """))
    }
}
