import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// The size probe's growth: every table copied to `factor` times its rows with
/// new keys, every UNIQUE constraint and FOREIGN KEY kept (`foreign_key_check`
/// and `integrity_check` of the grown store are clean), and what cannot be
/// grown said.
@Suite struct StoreGrowthTests {
    /// Keys of every kind: INTEGER PRIMARY KEY with AUTOINCREMENT, text UNIQUE, a
    /// composite primary key WITHOUT ROWID pointing at two parents, a key at
    /// 2^63 - 1 (no room above), negative keys, a table without key, a
    /// self-reference, a foreign key to a text key, a generated column, hostile
    /// names, a trigger, a virtual table.
    static let schema = """
        CREATE TABLE folders (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, parent_id INTEGER REFERENCES folders(id));
        CREATE TABLE "we""ird tab" ("col ""1" INTEGER PRIMARY KEY, "sel ect" TEXT UNIQUE, folder INTEGER REFERENCES folders);
        CREATE TABLE notes (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, folder_id INTEGER NOT NULL REFERENCES folders(id), title TEXT,
            length INTEGER GENERATED ALWAYS AS (length(title)) STORED);
        CREATE TABLE tags (label TEXT PRIMARY KEY, score REAL UNIQUE) WITHOUT ROWID;
        CREATE TABLE note_tags (note_id INTEGER REFERENCES notes(id), label TEXT REFERENCES tags(label), position INTEGER,
            PRIMARY KEY (note_id, label)) WITHOUT ROWID;
        CREATE UNIQUE INDEX note_positions ON note_tags (note_id, position);
        CREATE TABLE big (id INTEGER PRIMARY KEY, note_uuid TEXT REFERENCES notes(uuid));
        CREATE TABLE log (line TEXT);
        CREATE TABLE counts (folder_id INTEGER PRIMARY KEY, notes INTEGER);
        CREATE TRIGGER count_notes AFTER INSERT ON notes BEGIN
            INSERT INTO counts VALUES (NEW.folder_id, 1) ON CONFLICT (folder_id) DO UPDATE SET notes = notes + 1;
        END;
        CREATE VIRTUAL TABLE search USING fts5(title);
        """

    static func fill(_ database: Database) throws {
        try database.execute("""
            INSERT INTO folders (id, name, parent_id) VALUES (-3, 'Inbox', NULL), (5, 'Work', -3), (6, 'Home', 5);
            INSERT INTO "we""ird tab" VALUES (1, 'a', 5), (2, NULL, 6), (3, 'c', NULL);
            INSERT INTO notes (id, uuid, folder_id, title) VALUES (1, 'u-1', 5, 'One'), (2, 'u-2', 6, 'Two'), (40, 'u-40', -3, 'Forty');
            INSERT INTO tags VALUES ('red', 1.5), ('blue', 2.25), ('green', NULL);
            INSERT INTO note_tags VALUES (1, 'red', 1), (1, 'blue', 2), (40, 'red', 1), (2, 'green', NULL);
            INSERT INTO big VALUES (9223372036854775807, 'u-1'), (1, 'u-2'), (-5, NULL);
            INSERT INTO log VALUES ('x'), ('x');
            INSERT INTO search VALUES ('One');
            """)
    }

    /// A store built from `schema`, its copy to grow, and the grown copy's outcome.
    static func grown(factor: Int, wal: Bool, schema: String = schema, fill: (Database) throws -> Void = fill) throws -> (TemporaryFolder, Database, StoreGrowth.Outcome) {
        let folder = try TemporaryFolder()
        let original = folder.url("original.sqlite")
        let database = try Database(path: original, options: .init(create: true))
        try database.execute(schema)
        try fill(database)
        try database.close()
        try FileManager.default.copyItem(atPath: original, toPath: folder.url("grown.sqlite"))
        let grown = try Database(path: folder.url("grown.sqlite"))
        if wal { try grown.execute("PRAGMA journal_mode = WAL") }
        let outcome = try StoreGrowth.grow(grown, original: original, factor: factor)
        return (folder, grown, outcome)
    }

    @Test(arguments: [2, 4, 8], [false, true])
    func keysStayUniqueAndForeignKeysHold(factor: Int, wal: Bool) throws {
        let (_, database, outcome) = try Self.grown(factor: factor, wal: wal)
        #expect(try database.rows("PRAGMA foreign_key_check").isEmpty)
        #expect(try database.scalar("PRAGMA integrity_check") == .text("ok"))
        #expect(outcome.rows == [
            "folders": 3 * factor, "we\"ird tab": 3 * factor, "notes": 3 * factor, "tags": 3 * factor, "note_tags": 4 * factor, "big": 3 * factor,
            "log": 2 * factor, "counts": 3 * factor,
        ])
        #expect(outcome.notGrown == ["search": "a virtual table"])
        // Each copy's child points at the same copy's parent.
        let copies = try database.rows("SELECT n.uuid, f.name FROM notes n JOIN folders f ON f.id = n.folder_id WHERE n.uuid LIKE 'u-40%' ORDER BY n.id")
        #expect(copies.map { $0.map(\.description) } == (0..<factor).map { ["u-40" + ($0 == 0 ? "" : "~\($0)"), "Inbox" + ($0 == 0 ? "" : "~\($0)")] })
        // AUTOINCREMENT: sqlite_sequence moved on with the explicit keys.
        #expect(try database.scalar("SELECT seq FROM sqlite_sequence WHERE name = 'folders'") == database.scalar("SELECT max(id) FROM folders"))
        // The trigger is back, and did not fire for the copies.
        #expect(try database.scalar("SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND name = 'count_notes'") == .integer(1))
        #expect(try database.scalar("SELECT count(*) FROM notes WHERE length IS NOT length(title)") == .integer(0))
        // The key at 2^63 - 1 leaves no room above: the copies got ranks below the smallest. NULLs stayed NULL.
        #expect(try database.scalar("SELECT count(DISTINCT id) FROM big") == .integer(Int64(3 * factor)))
        #expect(try database.scalar("SELECT count(*) FROM \"we\"\"ird tab\" WHERE \"sel ect\" IS NULL") == .integer(Int64(factor)))
    }

    /// The key columns the foreign key joins share one offset: child and parent move together.
    @Test func parentNotGrownKeepsItsChildrenAsTheyAre() throws {
        let schema = """
            CREATE TABLE parents (id INTEGER PRIMARY KEY, n INTEGER CHECK (id < 100));
            CREATE TABLE children (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parents(id));
            CREATE TABLE "odd ""name"" t" ("k""ey" TEXT PRIMARY KEY);
            """
        let (_, database, outcome) = try Self.grown(factor: 4, wal: false, schema: schema) { database in
            try database.execute("INSERT INTO parents VALUES (1, 0), (90, 0); INSERT INTO children VALUES (1, 1), (2, 90); INSERT INTO \"odd \"\"name\"\" t\" VALUES ('k~1'), ('k')")
        }
        #expect(outcome.notGrown == [
            "parents": "SQLite refuses a copy of its rows: CHECK constraint failed: id < 100",
            "children": "its parent parents is not grown",
            "odd \"name\" t": "SQLite refuses a copy of its rows: UNIQUE constraint failed: odd \"name\" t.k\"ey",
        ])
        #expect(outcome.rows.isEmpty)
        #expect(try database.scalar("SELECT count(*) FROM children") == .integer(2))
        #expect(try database.rows("PRAGMA foreign_key_check").isEmpty)
    }
}
