import Testing
@testable import FixtureKitModels
@testable import FixtureKitSQLite
@testable import FixtureKitSystem

/// Schema differences between two databases SQLite built from SQL, as the
/// lines `SchemaDiff` returns, in its order: tables, indexes, views, triggers.
@Suite struct SchemaDiffTests {
    static let base = """
        CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT DEFAULT '', folder INTEGER REFERENCES folders(id) ON DELETE CASCADE);
        CREATE TABLE folders (id INTEGER PRIMARY KEY, name TEXT);
        CREATE INDEX notes_by_title ON notes(title);
        CREATE VIEW titles AS SELECT title FROM notes;
        CREATE TRIGGER notes_touch AFTER UPDATE ON notes BEGIN SELECT 1; END;
        """

    func snapshot(_ sql: String) throws -> SchemaSnapshot {
        let database = try Database(path: ":memory:", options: .init(create: true))
        try database.execute(sql)
        return try SchemaSnapshot(database: database)
    }

    func diff(_ sql: String, from reference: String = base) throws -> [String] {
        SchemaDiff.differences(try snapshot(sql), from: try snapshot(reference), referenceName: "3.0.0")
    }

    func base(replacing old: String, with new: String) -> String {
        precondition(Self.base.contains(old))
        return Self.base.replacingOccurrences(of: old, with: new)
    }

    @Test func equalSchemasHaveNoDifferences() throws {
        #expect(try diff(Self.base) == [])
        // Spacing, the order of statements and the case of column names are not structure.
        let respaced = """
            CREATE TABLE folders (id   INTEGER PRIMARY KEY,
                name TEXT);
            CREATE TABLE notes (ID INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT DEFAULT '', folder INTEGER REFERENCES folders(id) ON DELETE CASCADE);
            CREATE TRIGGER notes_touch   AFTER UPDATE ON notes
            BEGIN SELECT 1; END;
            CREATE VIEW titles AS   SELECT title FROM notes;
            CREATE INDEX notes_by_title ON notes(title);
            """
        #expect(try diff(respaced) == [])
        #expect(try snapshot(respaced).objectCount == 5)
        #expect(try snapshot(Self.base).structuralHash == snapshot(Self.base).structuralHash)
        #expect(try snapshot(Self.base).structuralHash != snapshot(base(replacing: "name TEXT", with: "name BLOB")).structuralHash)
    }

    /// Column names are compared without case, as SQLite resolves them, and
    /// so are the columns of an index (SQLite reports them as the table spells
    /// them) and those of a foreign key.
    @Test func columnNamesDifferingOnlyInCase() throws {
        #expect(try diff(base(replacing: "body TEXT", with: "Body TEXT")) == [])
        #expect(try diff(base(replacing: "title TEXT NOT NULL", with: "Title TEXT NOT NULL")) == [])
        #expect(try diff(base(replacing: "folder INTEGER REFERENCES folders(id)", with: "FOLDER INTEGER REFERENCES folders(ID)")) == [])
        // A real change is still found, and shown as each schema spells it.
        #expect(try diff(base(replacing: "title TEXT NOT NULL", with: "Title TEXT NOT NULL").replacingOccurrences(of: "notes(title)", with: "notes(Title DESC)"))
            == ["index notes_by_title: on notes(Title DESC) here, on notes(title) in 3.0.0"])
        #expect(try diff(base(replacing: "REFERENCES folders(id) ON DELETE CASCADE", with: "REFERENCES folders(ID) ON DELETE SET NULL")) == [
            "table notes: foreign key (folder) -> folders(id) ON UPDATE NO ACTION ON DELETE CASCADE missing (3.0.0 has it)",
            "table notes: foreign key (folder) -> folders(ID) ON UPDATE NO ACTION ON DELETE SET NULL extra (not in 3.0.0)",
        ])
    }

    /// Tables, indexes, views and triggers are named without case too, and an
    /// index's collation; SQLite folds ASCII letters only, so `É` and `é` are
    /// two names, as they are to SQLite. A view or a trigger is compared by
    /// its statement, whose text holds its name as spelled.
    @Test func objectNamesDifferingOnlyInCase() throws {
        let renamed = Self.base
            .replacingOccurrences(of: "TABLE notes", with: "TABLE Notes")
            .replacingOccurrences(of: "REFERENCES folders", with: "REFERENCES FOLDERS")
            .replacingOccurrences(of: "INDEX notes_by_title ON notes", with: "INDEX Notes_By_Title ON NOTES")
        #expect(try diff(renamed) == [])
        let statements = Self.base
            .replacingOccurrences(of: "VIEW titles", with: "VIEW Titles")
            .replacingOccurrences(of: "TRIGGER notes_touch", with: "TRIGGER Notes_Touch")
        #expect(try diff(statements) == [
            "view Titles: CREATE VIEW Titles AS SELECT title FROM notes here, CREATE VIEW titles AS SELECT title FROM notes in 3.0.0",
            "trigger Notes_Touch: CREATE TRIGGER Notes_Touch AFTER UPDATE ON notes BEGIN SELECT 1; END here, CREATE TRIGGER notes_touch AFTER UPDATE ON notes BEGIN SELECT 1; END in 3.0.0",
        ])
        #expect(try diff(Self.base + "CREATE INDEX folders_by_name ON folders(name COLLATE nocase);",
                         from: Self.base + "CREATE INDEX folders_by_name ON folders(name COLLATE NOCASE);") == [])
        #expect(try diff(Self.base + "CREATE INDEX folders_by_name ON folders(name COLLATE nocase);",
                         from: Self.base + "CREATE INDEX folders_by_name ON folders(name COLLATE RTRIM);")
            == ["index folders_by_name: on folders(name COLLATE nocase) here, on folders(name COLLATE RTRIM) in 3.0.0"])
        #expect(try diff(Self.base + "CREATE TABLE Été (x);", from: Self.base + "CREATE TABLE été (x);")
            == ["table Été: extra (not in 3.0.0)", "table été: missing (3.0.0 has it)"])
        #expect(try diff(Self.base + "CREATE TABLE tags (Étiquette TEXT);", from: Self.base + "CREATE TABLE tags (étiquette TEXT);")
            == ["tags.étiquette: missing (3.0.0 has it)", "tags.Étiquette: extra (not in 3.0.0)"])
    }

    @Test func tablesAddedAndRemoved() throws {
        #expect(try diff(Self.base + "CREATE TABLE tags (id INTEGER PRIMARY KEY);") == ["table tags: extra (not in 3.0.0)"])
        #expect(try diff(Self.base, from: Self.base + "CREATE TABLE tags (id INTEGER PRIMARY KEY);") == ["table tags: missing (3.0.0 has it)"])
        // Internal tables are not the model's.
        #expect(try diff(Self.base + "CREATE TABLE seq (id INTEGER PRIMARY KEY AUTOINCREMENT);", from: Self.base + "CREATE TABLE seq (id INTEGER PRIMARY KEY);") == [])
    }

    @Test func tableKinds() throws {
        #expect(try diff(Self.base + "CREATE TABLE kv (k TEXT PRIMARY KEY, v) WITHOUT ROWID;", from: Self.base + "CREATE TABLE kv (k TEXT PRIMARY KEY, v);")
            == ["table kv: WITHOUT ROWID here, rowid in 3.0.0", "kv.k: NOT NULL here, nullable in 3.0.0"])
        #expect(try diff(Self.base + "CREATE TABLE kv (k TEXT, v ANY) STRICT;", from: Self.base + "CREATE TABLE kv (k TEXT, v ANY);")
            == ["table kv: STRICT here, not STRICT in 3.0.0"])
    }

    @Test func columnsAddedRemovedAndChanged() throws {
        let columns = [
            ("body TEXT DEFAULT ''", "body TEXT DEFAULT '', pinned INTEGER", ["notes.pinned: extra (not in 3.0.0)"]),
            ("body TEXT DEFAULT '', ", "", ["notes.body: missing (3.0.0 has it)"]),
            ("body TEXT DEFAULT ''", "body BLOB DEFAULT ''", ["notes.body: BLOB here, TEXT in 3.0.0"]),
            ("body TEXT DEFAULT ''", "body DEFAULT ''", ["notes.body: no type here, TEXT in 3.0.0"]),
            ("title TEXT NOT NULL", "title TEXT", ["notes.title: nullable here, NOT NULL in 3.0.0"]),
            ("body TEXT DEFAULT ''", "body TEXT", ["notes.body: default none here, '' in 3.0.0"]),
            ("body TEXT DEFAULT ''", "body TEXT DEFAULT 'x'", ["notes.body: default 'x' here, '' in 3.0.0"]),
            ("notes (id INTEGER PRIMARY KEY", "notes (id INTEGER", ["notes.id: not in the primary key here, primary key column 1 in 3.0.0"]),
            ("body TEXT DEFAULT ''", "body TEXT GENERATED ALWAYS AS (title) STORED", [
                "notes.body: default none here, '' in 3.0.0", "notes.body: generated (stored) here, ordinary in 3.0.0",
            ]),
            ("title TEXT NOT NULL, body TEXT DEFAULT ''", "body TEXT DEFAULT '', title TEXT NOT NULL", [
                "table notes: columns in another order (id, body, title, folder here, id, title, body, folder in 3.0.0)",
            ]),
        ]
        for (old, new, expected) in columns {
            let lines = try diff(base(replacing: old, with: new))
            #expect(lines == expected, "\(new)")
        }
    }

    @Test func foreignKeys() throws {
        #expect(try diff(base(replacing: "ON DELETE CASCADE", with: "")) == [
            "table notes: foreign key (folder) -> folders(id) ON UPDATE NO ACTION ON DELETE CASCADE missing (3.0.0 has it)",
            "table notes: foreign key (folder) -> folders(id) ON UPDATE NO ACTION ON DELETE NO ACTION extra (not in 3.0.0)",
        ])
        #expect(try diff(base(replacing: "REFERENCES folders(id)", with: "REFERENCES folders")) == [
            "table notes: foreign key (folder) -> folders(id) ON UPDATE NO ACTION ON DELETE CASCADE missing (3.0.0 has it)",
            "table notes: foreign key (folder) -> folders(<primary key>) ON UPDATE NO ACTION ON DELETE CASCADE extra (not in 3.0.0)",
        ])
    }

    @Test func indexes() throws {
        #expect(try diff(Self.base + "CREATE INDEX notes_by_body ON notes(body DESC);") == ["index notes_by_body: extra (not in 3.0.0)"])
        #expect(try diff(base(replacing: "CREATE INDEX notes_by_title ON notes(title);", with: "")) == ["index notes_by_title: missing (3.0.0 has it)"])
        #expect(try diff(base(replacing: "CREATE INDEX notes_by_title ON notes(title)", with: "CREATE UNIQUE INDEX notes_by_title ON notes(title COLLATE NOCASE, body DESC)"))
            == ["index notes_by_title: UNIQUE on notes(title COLLATE NOCASE, body DESC) here, on notes(title) in 3.0.0"])
        #expect(try diff(base(replacing: "ON notes(title)", with: "ON notes(title) WHERE body <> ''"))
            == ["index notes_by_title: on notes(title) WHERE … [CREATE INDEX notes_by_title ON notes(title) WHERE body <> ''] here, on notes(title) in 3.0.0"])
        // An automatic index for a UNIQUE constraint is compared as any other.
        #expect(try diff(base(replacing: "name TEXT", with: "name TEXT UNIQUE")) == ["index sqlite_autoindex_folders_1: extra (not in 3.0.0)"])
    }

    @Test func viewsAndTriggers() throws {
        #expect(try diff(base(replacing: "SELECT title FROM notes", with: "SELECT title, body FROM notes"))
            == ["view titles: CREATE VIEW titles AS SELECT title, body FROM notes here, CREATE VIEW titles AS SELECT title FROM notes in 3.0.0"])
        #expect(try diff(Self.base + "CREATE TRIGGER folders_touch AFTER DELETE ON folders BEGIN SELECT 2; END;") == ["trigger folders_touch: extra (not in 3.0.0)"])
        #expect(try diff(base(replacing: "CREATE TRIGGER notes_touch AFTER UPDATE ON notes BEGIN SELECT 1; END;", with: "")) == ["trigger notes_touch: missing (3.0.0 has it)"])
        #expect(try diff(base(replacing: "AFTER UPDATE", with: "BEFORE UPDATE"))
            == ["trigger notes_touch: CREATE TRIGGER notes_touch BEFORE UPDATE ON notes BEGIN SELECT 1; END here, CREATE TRIGGER notes_touch AFTER UPDATE ON notes BEGIN SELECT 1; END in 3.0.0"])
        // Quoted text keeps its spacing: it is data, not layout.
        #expect(try diff(base(replacing: "SELECT title FROM notes", with: "SELECT 'a  b' AS title FROM notes"), from: base(replacing: "SELECT title FROM notes", with: "SELECT 'a b' AS title FROM notes")).count == 1)
    }

    @Test func linesComeInAStableOrder() throws {
        let changed = """
            CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT, body TEXT DEFAULT '', folder INTEGER REFERENCES folders(id) ON DELETE CASCADE);
            CREATE TABLE zebras (id INTEGER PRIMARY KEY);
            CREATE TABLE aardvarks (id INTEGER PRIMARY KEY);
            CREATE VIEW titles AS SELECT title FROM notes;
            CREATE TRIGGER notes_touch AFTER UPDATE ON notes BEGIN SELECT 1; END;
            CREATE INDEX a_index ON zebras(id);
            """
        #expect(try diff(changed) == [
            "table aardvarks: extra (not in 3.0.0)",
            "table folders: missing (3.0.0 has it)",
            "notes.title: nullable here, NOT NULL in 3.0.0",
            "table zebras: extra (not in 3.0.0)",
            "index a_index: extra (not in 3.0.0)",
            "index notes_by_title: missing (3.0.0 has it)",
        ])
    }
}
