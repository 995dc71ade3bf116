import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport
@testable import FixtureKitModels
@testable import FixtureKitSQLite

/// The names `fixturekit.json` gives tables and columns (`counts`, `keys`,
/// `changes`) match them as SQLite does: ASCII letters without case, every
/// other character exactly.
@Suite struct ConfigurationNamesTests {
    /// The 1.0.0 -> 2.0.0 hop of the Notes corpus, with `extra` after its stage
    /// and `edit` applied to its configuration.
    static func hop(_ extra: String, _ edit: @escaping (inout [String: Any]) -> Void) throws -> PathResult {
        let notes = try NotesCorpus()
        try notes.folder.write("MigrationFixtures/migrations/1.0.0-2.0.0.sql", NotesCorpus.stage1to2 + "\n" + extra + "\n")
        try notes.writeConfig(edit)
        let report = try MigrationRunner.runMatrix(config: notes.config, options: .init(from: "1.0.0"))
        return try #require(report.paths.first { $0.kind == .hop })
    }

    @Test func aCountRuleNamesTheTableInAnyCase() throws {
        for spelling in ["notes", "NOTES", "Notes"] {
            let path = try Self.hop("DELETE FROM notes WHERE id = 3;") {
                $0["counts"] = ["drafts": "dropped", "folders": "changes", spelling: "changes"]
            }
            #expect(path.check("row counts")?.passed == true, "\(spelling): \(path.check("row counts")?.message ?? "")")
        }
        // Without the rule the deleted row fails the check: the rule is what passes it.
        let path = try Self.hop("DELETE FROM notes WHERE id = 3;") { _ in }
        #expect(path.check("row counts")?.message == "notes: 40 rows in 1.0.0, 39 after the migration")
    }

    @Test func aKeyNamesTheTableAndColumnsInAnyCase() throws {
        let change = "UPDATE notes SET title = 'x' WHERE id = 3;"
        let byRowid = try Self.hop(change) { _ in }.check("data preserved")?.message
        #expect(byRowid == "notes.title: 1 changed of 40 values (key 3: 'Note 3' -> 'x')")
        for (table, column) in [("notes", "uuid"), ("NOTES", "UUID"), ("Notes", "Uuid")] {
            let finding = try Self.hop(change) { $0["keys"] = [table: [column]] }.check("data preserved")?.message
            #expect(finding == "notes.title: 1 changed of 40 values (key 'K3': 'Note 3' -> 'x')", "\(table).\(column)")
        }
    }

    /// Only ASCII letters fold: `Été` and `été` are two tables to SQLite, and a
    /// rule or a key for one is not one for the other.
    @Test func nonASCIILettersKeepTheirCase() throws {
        let counts = { (rule: String) in
            MigrationChecks.countProblems(rules: [rule: .changes], source: "1.0.0", before: ["Été": 3], after: ["ÉTé": 2], atCurrent: false)
        }
        #expect(counts("ÉTé") == [])
        #expect(counts("été") == ["Été: 3 rows in 1.0.0, 2 after the migration"])
        let database = try Database(path: ":memory:", options: .init(create: true))
        try database.execute(#"CREATE TABLE "Été" (id INTEGER PRIMARY KEY, code TEXT); CREATE TABLE "été" (id INTEGER PRIMARY KEY, code TEXT)"#)
        let schema = try SchemaSnapshot(database: database)
        let upper = try #require(schema.tables.first { $0.name == "Été" }), lower = try #require(schema.tables.first { $0.name == "été" })
        #expect(SourceKeys.key(of: upper, keys: ["ÉTé": ["CODE"]]) == ["CODE"])
        #expect(SourceKeys.key(of: lower, keys: ["ÉTé": ["CODE"]]) == ["id"])
        #expect(SourceKeys.key(of: lower, keys: ["été": ["code"], "ÉTé": ["CODE"]]) == ["code"])
    }

    /// The look-up every rule of the configuration goes through: a key in any
    /// ASCII case, the exact spelling first where two keys fold to one name (so
    /// that the answer does not depend on the dictionary's order).
    @Test func aNamedValueIsFoundAsSQLiteMatchesTheName() {
        let rules = ["Notes": 1, "folders": 2, "Été": 3]
        #expect(rules.value(forName: "NOTES") == 1)
        #expect(rules.value(forName: "Folders") == 2)
        #expect(rules.value(forName: "ÉTé") == 3)
        #expect(rules.value(forName: "ÉTÉ") == nil)
        #expect(rules.value(forName: "été") == nil)
        #expect(rules.value(forName: "drafts") == nil)
        for _ in 0..<20 {
            let twice = Dictionary(uniqueKeysWithValues: [("NOTES", 1), ("notes", 2), ("Notes", 3)].shuffled())
            #expect(twice.value(forName: "notes") == 2)
            #expect(twice.value(forName: "Notes") == 3)
        }
    }

    /// Names are folded by `identifierKey` alone: Swift's `lowercased()` and
    /// Foundation's case-insensitive comparisons fold every letter. The files
    /// that still call them fold text that is not a name.
    @Test func noSourceFoldsANameOtherwise() throws {
        let notNames: [String: Int] = [
            "FixtureKitModels/Corpus/SizeProbeSettings.swift": 1, // a size's unit
            "FixtureKitModels/Corpus/PlatformSQLite.swift": 2, // a platform's name
            "FixtureKit/Init/CorpusInit.swift": 1, // the words of a suggested name
            "FixtureKit/Anonymize/AnonymizationEngine.swift": 2, // `PRAGMA journal_mode`'s answer
            "FixtureKit/Lint/LintWatcher+Schema.swift": 1, // a statement's text
            "FixtureKitArchiveIO/ArchiveError.swift": 2, // libarchive's messages
            "FixtureKitSystem/Files/Errno.swift": 1, // strerror's text
        ]
        let sources = repositoryRoot.appendingPathComponent("Sources")
        let enumerator = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var found: [String: Int] = [:]
        for case let file as URL in enumerator where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            let count = ["lowercased()", "caseInsensitiveCompare", ".caseInsensitive"].reduce(0) { $0 + text.components(separatedBy: $1).count - 1 }
            if count > 0 { found[String(file.path.dropFirst(sources.path.count + 1)), default: 0] += count }
        }
        // SQLQuoting.swift names `lowercased()` in the comment that says why.
        found["FixtureKitSQLite/SQLQuoting.swift"] = nil
        #expect(found == notNames)
    }
}
