import Foundation
import Testing
@testable import FixtureKitModels
@testable import FixtureKitSQLite
@testable import FixtureKitSystem

/// What the models throw when SQLite cannot read a store, its contents are
/// missing or its version cannot be told: a ``StoreError`` with the facts
/// (the SQLite error, the file, the operation), which the operations tell with
/// the same words and keep as the cause.
extension StoreErrorTests {
    /// A rollback-journal store of `pageSize`-byte pages whose first b-tree page
    /// header (just after the 100-byte database header) is not one.
    static func damagedStore(pageSize: Int) throws -> TestStore {
        let store = try TestStore(pageSize: pageSize)
        try store.commit(["CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)", "INSERT INTO notes VALUES (1, 'a')"])
        try store.close()
        var bytes = try store.bytes()
        bytes[100] = 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: store.path))
        return store
    }

    @Test(arguments: [512, 4096, 65536])
    func sqliteRefusingAStoreKeepsItsResultCode(pageSize: Int) throws {
        let store = try Self.damagedStore(pageSize: pageSize)
        let set = try StoreSet(storePath: store.path)
        do {
            _ = try ScratchStore(copying: set, operation: "inspect")
            Issue.record("a damaged store was read")
        } catch {
            guard case .sqlite(let sqlite) = error.problem else {
                Issue.record("\(error.problem)")
                return
            }
            #expect(sqlite.resultCode == .corrupt)
            #expect(error.description == "inspect: \(store.path): \(sqlite.description)")
            #expect(error.underlying(SQLiteError.self) == sqlite)
            // Told by the operations: the same line, the StoreError and its SQLiteError below it.
            let told = FixtureKitError(error)
            #expect(told.description == error.description)
            #expect(told.underlying(StoreError.self) == error)
            #expect(told.underlying(SQLiteError.self)?.resultCode == .corrupt)
        }
        // Read in place (immutable), the same problem, in the model's own words.
        do {
            _ = try ScratchStore.openImmutable(store.path)
            Issue.record("a damaged store was opened")
        } catch {
            let sqlite = try #require(error.underlying(SQLiteError.self))
            #expect(error.problem == .sqlite(sqlite))
            #expect(error.description.hasPrefix("read store: \(store.path): SQLite error 11: "))
        }
        // An inspection reads the files and says what SQLite could not read.
        let inspection = try StoreInspection(storePath: store.path)
        #expect(inspection.contents == nil)
        #expect(inspection.diagnostics.last?.message.hasPrefix("SQLite cannot read the store set: SQLite error 11: ") == true)
        // Its manifest cannot be written: the inspection's last word is why.
        do {
            _ = try Manifest(version: "1.0.0", mode: "snapshot", inspected: inspection)
            Issue.record("a manifest without contents")
        } catch {
            #expect(error.problem == .contentsUnread(try #require(inspection.diagnostics.last?.message)))
            #expect(error.description == "write manifest: \(store.path): \(inspection.diagnostics.last?.message ?? "")")
        }
    }

    @Test func aVersionThatCannotBeToldSaysWhyWithTheSQLiteErrorKept() throws {
        let store = try TestStore()
        try store.commit(["CREATE TABLE meta (version TEXT)", "INSERT INTO meta VALUES ('not-a-version')", "PRAGMA user_version = 7"])
        func configuration(_ keys: String) throws -> CorpusConfiguration {
            try CorpusConfiguration.parse(Array(#"{"store": "App.sqlite", "current": "2.0.0"\#(keys)}"#.utf8), path: "fixturekit.json")
        }
        func unknown(_ keys: String) throws -> StoreError? {
            let configuration = try configuration(keys)
            do { _ = try configuration.storeVersion(of: store.db); return nil } catch { return error }
        }
        let none = try #require(try unknown(""))
        #expect(none.problem == .unknownVersion(.notConfigured))
        #expect(FixtureKitError(none).description == #"read version: \#(store.path): cannot tell the store's version: the configuration has neither "userVersions" nor "versionQuery" (hint: map each version to its user_version in "userVersions")"#)
        let failed = try #require(try unknown(#", "versionQuery": "SELECT version FROM nowhere""#))
        #expect(failed.underlying(SQLiteError.self)?.resultCode == .error)
        #expect(failed.why.hasPrefix("cannot tell the store's version: versionQuery failed: SQLite error 1: no such table: nowhere"))
        #expect(try unknown(#", "versionQuery": "SELECT version FROM meta""#)?.problem == .unknownVersion(.notALabel("not-a-version")))
        #expect(try unknown(#", "versionQuery": "SELECT NULL""#)?.problem == .unknownVersion(.noAnswer))
        let unmapped = try #require(try unknown(#", "userVersions": {"1.0.0": 1, "2.0.0": 9}"#))
        #expect(unmapped.problem == .unknownVersion(.unmappedUserVersion(evidence: "user_version 7")))
        #expect(unmapped.description == #"read version: \#(store.path): cannot tell the store's version: user_version 7 is not one of "userVersions""#)
        #expect(unmapped.cause == nil)
    }
}
