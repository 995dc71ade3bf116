import Foundation
import Testing
@testable import FixtureKitModels
@testable import FixtureKitSQLite
@testable import FixtureKitSystem

/// Which files make a store set, and their sizes, from a store held open in WAL
/// mode with Core Data's external-storage folder beside it.
@Suite struct StoreSetTests {
    @Test func findsTheMainFileAndEverySidecar() throws {
        let store = try TestStore(pageSize: 1024, wal: true)
        try store.commit(["CREATE TABLE notes (id INTEGER PRIMARY KEY)", "INSERT INTO notes VALUES (1)"])
        try FileManager.default.createDirectory(atPath: store.folder + "/.App_SUPPORT/_EXTERNAL_DATA", withIntermediateDirectories: true)
        try Data(count: 300).write(to: URL(fileURLWithPath: store.folder + "/.App_SUPPORT/_EXTERNAL_DATA/A"))
        try Data(count: 45).write(to: URL(fileURLWithPath: store.folder + "/.App_SUPPORT/B"))

        let set = try StoreSet(storePath: store.path)
        #expect(set.folder == store.folder)
        #expect(set.storeName == "App.sqlite")
        #expect(set.storeSize == UInt64(try store.bytes().count))
        #expect(set.present == [
            .wal: UInt64(try store.bytes("-wal").count), .shm: UInt64(try store.bytes("-shm").count), .support: 345,
        ])
        #expect(set.memberNames == ["App.sqlite", "App.sqlite-wal", "App.sqlite-shm", ".App_SUPPORT"])
        #expect(set.path(of: .journal) == store.folder + "/App.sqlite-journal")
        #expect(!set.has(.journal))
        #expect(try set.readHeader().pageSize == 1024)
        #expect(try set.readHeader().isWAL)
    }

    @Test func sidecarsOfTheWrongKindAreNotMembers() throws {
        let store = try TestStore()
        try store.commit(["CREATE TABLE notes (id INTEGER PRIMARY KEY)"])
        try FileManager.default.createDirectory(atPath: store.path + "-wal", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: store.path + "-shm", withDestinationPath: store.path)
        try Data(count: 10).write(to: URL(fileURLWithPath: store.folder + "/.App_SUPPORT"))
        try Data(count: 512).write(to: URL(fileURLWithPath: store.path + "-journal"))
        let set = try StoreSet(storePath: store.path)
        #expect(set.present == [.journal: 512])
        #expect(set.memberNames == ["App.sqlite", "App.sqlite-journal"])
    }

    @Test(arguments: [("App.sqlite", ".App_SUPPORT"), ("store", ".store_SUPPORT"), ("a.b.sqlite", ".a.b_SUPPORT"), (".hidden", "..hidden_SUPPORT")])
    func namesTheSupportFolderAfterTheStore(name: String, folder: String) {
        #expect(StoreSet.fileName(of: .support, storeName: name) == folder)
        #expect(StoreSet.fileName(of: .wal, storeName: name) == name + "-wal")
    }

    @Test func refusesWhatIsNotAFile() throws {
        let store = try TestStore()
        #expect(throws: (any Error).self) { try StoreSet(storePath: store.folder + "/missing.sqlite") }
        #expect(throws: (any Error).self) { try StoreSet(storePath: store.folder) }
        try FileManager.default.createSymbolicLink(atPath: store.folder + "/link.sqlite", withDestinationPath: store.path)
        #expect(throws: (any Error).self) { try StoreSet(storePath: store.folder + "/link.sqlite") }
    }
}
