import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// A UNIQUE or NOT NULL failure in a stage names its file and line, and the
/// rows behind it: the keys held twice, the rows that would be NULL, at most 5
/// with their count, whichever statement raised it.
@Suite struct ConstraintFindingTests {
    /// Folders named A, B, C, D twice, Inbox twice, Work three times: six names held by more than one row.
    static func corpus(_ stage: String, nullTitles: Bool = false, rules: String? = nil) throws -> FoldersCorpus {
        let corpus = try FoldersCorpus { database in
            try database.execute("INSERT INTO folders VALUES (3, 'Inbox'), (4, 'Work'), (5, 'Work'), (6, 'A'), (7, 'A'), (8, 'B'), (9, 'B'), (10, 'C'), (11, 'C'), (12, 'D'), (13, 'D')")
            if nullTitles { try database.execute("UPDATE notes SET title = NULL WHERE id % 2 = 1") }
        }
        try corpus.write("migrations/1.0.0-2.0.0.sql", stage)
        if let rules { try corpus.write("rules.json", rules) }
        try corpus.writeConfig(stage: ["sql": "migrations/1.0.0-2.0.0.sql"]) { object in
            if rules != nil { object["anonymize"] = "rules.json" }
        }
        return corpus
    }

    static func message(_ stage: String, nullTitles: Bool = false, rules: String? = nil) throws -> String? {
        try corpus(stage, nullTitles: nullTitles, rules: rules).migrate().check("stage 1.0.0 -> 2.0.0")?.message
    }

    static let duplicateNames = "'A' (2 rows); 'B' (2 rows); 'C' (2 rows); 'D' (2 rows); 'Inbox' (2 rows)"

    @Test func aRebuildThatCopiesDuplicatesIntoAUniqueColumn() throws {
        let stage = """
            CREATE TABLE folders_new (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, color TEXT);
            INSERT INTO folders_new (id, name)
              SELECT id, name FROM folders;
            DROP TABLE folders;
            ALTER TABLE folders_new RENAME TO folders;
            """
        let message = try Self.message(stage)
        #expect(message == """
            migrations/1.0.0-2.0.0.sql:2: SQLite error 19: UNIQUE constraint failed: folders_new.name
            folders_new.name: 6 keys held by more than one row, the first 5: \(Self.duplicateNames)
            """)
    }

    @Test func aUniqueIndexOverRowsAlreadyThere() throws {
        let message = try Self.message("ALTER TABLE folders ADD COLUMN color TEXT;\n\nCREATE UNIQUE INDEX folders_by_name ON folders (name);")
        #expect(message == """
            migrations/1.0.0-2.0.0.sql:3: SQLite error 19: UNIQUE constraint failed: folders.name
            folders.name: 6 keys held by more than one row, the first 5: \(Self.duplicateNames)
            """)
    }

    @Test func anUpdateThatMakesKeysCollide() throws {
        let stage = """
            ALTER TABLE folders ADD COLUMN color TEXT;
            CREATE UNIQUE INDEX notes_by_title ON notes (title);
            UPDATE notes SET title = 'Note ' || (id % 3) WHERE id > 6;
            """
        let message = try Self.message(stage)
        #expect(message == """
            migrations/1.0.0-2.0.0.sql:3: SQLite error 19: UNIQUE constraint failed: notes.title
            notes.title: 3 keys held by more than one row: 'Note 0' (2 rows); 'Note 1' (3 rows); 'Note 2' (3 rows)
            """)
    }

    @Test func aPersonalKeyIsCountedNotShown() throws {
        let rules = #"{"tables": {"folders": {"name": {"strategy": "fake", "kind": "name"}}}}"#
        let message = try Self.message("CREATE UNIQUE INDEX folders_by_name ON folders (name);", rules: rules)
        #expect(message == """
            migrations/1.0.0-2.0.0.sql:1: SQLite error 19: UNIQUE constraint failed: folders.name
            folders.name: 6 keys held by more than one row, the first 5: (personal) (2 rows); (personal) (2 rows); (personal) (2 rows); (personal) (2 rows); (personal) (2 rows)
            """)
    }

    @Test func aRebuildThatCopiesNullsIntoANotNullColumnNamesTheRowsByKey() throws {
        let stage = """
            ALTER TABLE folders ADD COLUMN color TEXT;
            CREATE TABLE notes_new (id INTEGER PRIMARY KEY, folder_id INTEGER REFERENCES folders(id), title TEXT NOT NULL);
            INSERT INTO notes_new SELECT id, folder_id, title FROM notes;
            """
        let message = try Self.message(stage, nullTitles: true)
        #expect(message == """
            migrations/1.0.0-2.0.0.sql:3: SQLite error 19: NOT NULL constraint failed: notes_new.title
            notes_new.title: 6 rows would hold NULL, the first 5: id 1; id 3; id 5; id 7; id 9
            """)
    }
}
