import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// L001: the views, triggers and indexes of a table that a stage rebuilds or
/// renames, under the `legacy_alter_table` the stage runs with and under the
/// other (a second run on a fresh copy). Each hazard and its safe form.
@Suite struct LintReferenceRuleTests {
    /// users with an index, a trigger of its own, a view, and a trigger of another table that writes it.
    static let schema = """
        CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT, name TEXT);
        CREATE TABLE log (entry TEXT);
        CREATE INDEX users_email ON users (email);
        CREATE VIEW active_users AS SELECT email FROM users WHERE email LIKE '%@%';
        CREATE TRIGGER users_log AFTER INSERT ON users BEGIN INSERT INTO log VALUES (NEW.email); END;
        CREATE TRIGGER log_touch AFTER INSERT ON log BEGIN UPDATE users SET name = name WHERE 0; END;
        """
    static let rows = ["1.0.0": "INSERT INTO users VALUES (1, 'a@x', 'A'), (2, 'b@x', 'B')", "1.1.0": "INSERT INTO users VALUES (1, 'a@x', 'A')"]
    /// The old table renamed away, the new one created under its name and filled.
    static let renameAway = """
        ALTER TABLE users RENAME TO users_old;
        CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT, name TEXT);
        INSERT INTO users SELECT id, email, name FROM users_old;

        """
    static let newTable = "CREATE TABLE users_new (id INTEGER PRIMARY KEY, email TEXT, name TEXT);"

    @Test func aRebuildThatRenamesTheNewTableOverAView() throws {
        // legacy_alter_table OFF refuses the rename (the view names the dropped table); ON lets it through, and the index and trigger are gone.
        let corpus = try LintCorpus(schema: Self.schema, rows: Self.rows, stage: """
            \(Self.newTable)
            INSERT INTO users_new SELECT id, email, name FROM users;
            DROP TABLE users;
            ALTER TABLE users_new RENAME TO users;
            """)
        let texts = try corpus.lint().findings.map(\.text)
        #expect(texts == [
            "L001 migrations/b.sql:3: index users_email of users goes with DROP TABLE users, and the stage does not create it again (fixtures: 1.0.0, 1.1.0)",
            "L001 migrations/b.sql:3: trigger users_log of users goes with DROP TABLE users, and the stage does not create it again (fixtures: 1.0.0, 1.1.0)",
            "L001 migrations/b.sql:4: ALTER TABLE users_new fails: error in view active_users: no such table: main.users (legacy_alter_table OFF) (fixtures: 1.0.0, 1.1.0)",
        ])
    }

    @Test func aRebuildThatRenamesTheOldTableAwayBreaksWhatReferredToIt() throws {
        // OFF: the RENAME rewrites the view and the trigger to users_old, which the DROP then takes away.
        let corpus = try LintCorpus(schema: Self.schema, rows: Self.rows, stage: Self.renameAway + "DROP TABLE users_old;\n")
        let findings = try corpus.lint().findings
        #expect(findings.map(\.text) == [
            "L001 migrations/b.sql:1: trigger log_touch no longer compiles: no such table: main.users_old (legacy_alter_table OFF) (fixtures: 1.0.0, 1.1.0)",
            "L001 migrations/b.sql:1: view active_users no longer compiles: no such table: main.users_old (legacy_alter_table OFF) (fixtures: 1.0.0, 1.1.0)",
            "L001 migrations/b.sql:4: index users_email of users goes with DROP TABLE users_old, and the stage does not create it again (fixtures: 1.0.0, 1.1.0)",
            "L001 migrations/b.sql:4: trigger users_log of users goes with DROP TABLE users_old, and the stage does not create it again (fixtures: 1.0.0, 1.1.0)",
        ])
        #expect(findings.allSatisfy { $0.severity == .error && $0.counts == nil })
    }

    @Test func aRenameUnderLegacyAlterTableLeavesReferencesBehind() throws {
        // Android's setting (ON since API level 30): the view and the trigger still name users.
        let corpus = try LintCorpus(schema: Self.schema, rows: Self.rows, stage: "ALTER TABLE users RENAME TO people;\n") { $0["connection"] = ["legacy_alter_table": true] }
        let texts = try corpus.lint().findings.map(\.text)
        #expect(texts == [
            "L001 migrations/b.sql:1: trigger log_touch no longer compiles: no such table: main.users (legacy_alter_table ON) (fixtures: 1.0.0, 1.1.0)",
            "L001 migrations/b.sql:1: view active_users no longer compiles: no such table: main.users (legacy_alter_table ON) (fixtures: 1.0.0, 1.1.0)",
        ])
    }

    @Test func aRenameThatLeavesReferencesOnTheOldTable() throws {
        // The old table is kept: OFF, the view and the trigger follow it there, away from the new users.
        let corpus = try LintCorpus(schema: Self.schema, rows: Self.rows, stage: Self.renameAway)
        let texts = try corpus.lint().findings.map(\.text)
        #expect(texts == [
            "L001 migrations/b.sql:1: index users_email is on users_old now, no longer on users, which the stage created again (fixtures: 1.0.0, 1.1.0)",
            "L001 migrations/b.sql:1: trigger log_touch refers to users_old, no longer to users, which the stage created again: the RENAME rewrote it (legacy_alter_table OFF) (fixtures: 1.0.0, 1.1.0)",
            "L001 migrations/b.sql:1: trigger users_log is on users_old now, no longer on users, which the stage created again (fixtures: 1.0.0, 1.1.0)",
            "L001 migrations/b.sql:1: view active_users refers to users_old, no longer to users, which the stage created again: the RENAME rewrote it (legacy_alter_table OFF) (fixtures: 1.0.0, 1.1.0)",
        ])
    }

    @Test(arguments: [false, true])
    func aRebuildThatRecreatesWhatReferredToTheTableFindsNothing(legacy: Bool) throws {
        // SQLite's procedure: the view and the other table's trigger dropped first, everything created again after.
        let corpus = try LintCorpus(schema: Self.schema, rows: Self.rows, stage: """
            DROP VIEW active_users;
            DROP TRIGGER log_touch;
            \(Self.newTable)
            INSERT INTO users_new SELECT id, email, name FROM users;
            DROP TABLE users;
            ALTER TABLE users_new RENAME TO users;
            CREATE INDEX users_email ON users (email);
            CREATE TRIGGER users_log AFTER INSERT ON users BEGIN INSERT INTO log VALUES (NEW.email); END;
            CREATE VIEW active_users AS SELECT email FROM users WHERE email LIKE '%@%';
            CREATE TRIGGER log_touch AFTER INSERT ON log BEGIN UPDATE users SET name = name WHERE 0; END;
            """) { $0["connection"] = ["legacy_alter_table": legacy] }
        #expect(try corpus.lint().findings.isEmpty)
    }

    @Test func aRenameThatThisSettingAllowsIsRunUnderTheOtherToo() throws {
        // OFF rewrites the references: fine here; the second run under ON finds them left behind.
        let corpus = try LintCorpus(schema: Self.schema, rows: Self.rows, stage: "ALTER TABLE users RENAME TO people;\nALTER TABLE people ADD COLUMN phone TEXT;\n")
        let texts = try corpus.lint().findings.map(\.text)
        #expect(texts == [
            "L001 migrations/b.sql:1: trigger log_touch no longer compiles: no such table: main.users (legacy_alter_table ON) (fixtures: 1.0.0, 1.1.0)",
            "L001 migrations/b.sql:1: view active_users no longer compiles: no such table: main.users (legacy_alter_table ON) (fixtures: 1.0.0, 1.1.0)",
        ])
    }

    @Test func aRenameThatEndsWhereItStartedFindsNothing() throws {
        let corpus = try LintCorpus(schema: Self.schema, rows: Self.rows, stage: "ALTER TABLE log RENAME TO entries;\nALTER TABLE entries RENAME TO log;\n")
        #expect(try corpus.lint().findings.isEmpty)
    }
}
