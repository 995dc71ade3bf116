import Foundation
import Testing
@testable import FixtureKitModels
@testable import FixtureKitSQLite
@testable import FixtureKitSystem

/// ``ScratchCopy``: the one way to take a private temporary copy of a store set
/// or of a fixture folder.
@Suite struct ScratchCopyTests {
    /// The permission bits of `path`.
    func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    func bytes(_ path: String) throws -> [UInt8] { try POSIX.readFile(path, limit: 1 << 30) }

    @Test(arguments: [false, true]) func copiesAStoreSetByteForByteIntoAPrivateFolderAndRemovesIt(sync: Bool) throws {
        // A WAL store held open: its -wal and -shm stay, with committed frames in -wal.
        let store = try TestStore(wal: true)
        try store.commit(["CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT)", "INSERT INTO notes (title) VALUES ('a'), ('b')"])
        let set = try StoreSet(storePath: store.path)
        #expect(set.memberNames == ["App.sqlite", "App.sqlite-wal", "App.sqlite-shm"])
        let originals = try set.memberNames.map { try bytes(store.folder.appendingPath($0)) }

        var copy: ScratchCopy? = try ScratchCopy(storeSet: set, sync: sync)
        let folder = try #require(copy).folder
        #expect(try #require(copy).path == folder.appendingPath("App.sqlite"))
        #expect(try mode(folder) == 0o700)
        #expect(folder.hasPrefix(ScratchFolder.systemFolder.appendingPath(".fixturekit-")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == set.memberNames.sorted())
        for (name, original) in zip(set.memberNames, originals) {
            #expect(try bytes(folder.appendingPath(name)) == original, "\(name)")
        }
        // The original is untouched by the copy.
        #expect(try set.memberNames.map { try bytes(store.folder.appendingPath($0)) } == originals)
        copy = nil
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    @Test func copiesAFixtureFolderWithItsSubfoldersUnderTheNameAsked() throws {
        let source = try ScratchFolder(prefix: "fixturekit-models-test")
        let fixture = source.path.appendingPath("1.0.0")
        let files = ["App.sqlite": [UInt8]("SQLite format 3\0".utf8) + [0, 0xFF], "SHA256SUMS": Array("x  App.sqlite\n".utf8),
                     ".App_SUPPORT/_EXTERNAL_DATA/blob": [1, 2, 3], "empty": []]
        try FileManager.default.createDirectory(atPath: fixture.appendingPath(".App_SUPPORT/_EXTERNAL_DATA"), withIntermediateDirectories: true)
        for (name, content) in files { try AtomicFile.write(content, to: fixture.appendingPath(name)) }
        var copy: ScratchCopy? = try ScratchCopy(fixture: fixture, named: "1.0.0")
        let folder = try #require(copy).folder
        #expect(try #require(copy).path == folder.appendingPath("1.0.0"))
        #expect(try mode(folder) == 0o700)
        for (name, content) in files {
            #expect(try bytes(folder.appendingPath("1.0.0").appendingPath(name)) == content, "\(name)")
        }
        let defaultName = try ScratchCopy(fixture: fixture)
        #expect(defaultName.path == defaultName.folder.appendingPath("fixture"))
        copy = nil
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    @Test func aFolderHoldingSomethingElseThanFilesFailsToCopyAndLeavesNothing() throws {
        let source = try ScratchFolder(prefix: "fixturekit-models-test")
        let fixture = source.path.appendingPath("fixture")
        try FileManager.default.createDirectory(atPath: fixture, withIntermediateDirectories: true)
        try AtomicFile.write([1], to: fixture.appendingPath("App.sqlite"))
        #expect(mkfifo(fixture.appendingPath("pipe"), 0o600) == 0)
        // Into a folder of the test's own, to see that the partial copy is removed with the value.
        let parent = try ScratchFolder(prefix: "fixturekit-models-test")
        var scratch: ScratchFolder? = try ScratchFolder(in: parent.path)
        do throws(ScratchCopy.Failure) {
            _ = try ScratchCopy(fixture: fixture, in: scratch!)
            Issue.record("a FIFO was copied")
        } catch {
            guard case .copy(let cause) = error else { Issue.record("\(error)"); return }
            #expect(cause.operation == "copy")
            #expect(cause.path == fixture.appendingPath("pipe"))
            #expect(cause.message == "not a regular file")
        }
        scratch = nil
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == [])
    }

    @Test func aFolderThatCannotBeMadeIsTold() throws {
        do throws(FileSystemError) {
            _ = try ScratchFolder(in: "/nonexistent-fixturekit-folder")
            Issue.record("made a folder in a missing one")
        } catch {
            #expect(error.operation == "create temporary folder")
            #expect(error.path == "/nonexistent-fixturekit-folder")
        }
    }
}
