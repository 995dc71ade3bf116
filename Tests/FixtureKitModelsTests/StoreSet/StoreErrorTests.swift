#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import FixtureKitModels
@testable import FixtureKitSystem

/// What ``StoreSet`` says is wrong with a store path, as values: the kind of a
/// file that is not a regular one, the header's problem, the failed call.
@Suite struct StoreErrorTests {
    static func problem(_ path: String) -> StoreError.Problem? {
        do { _ = try StoreSet(storePath: path); return nil } catch { return error.problem }
    }

    static func headerProblem(_ bytes: [UInt8], in folder: String) throws -> StoreError.Problem? {
        let path = folder + "/store-\(bytes.count).sqlite"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do { _ = try StoreSet(storePath: path).readHeader(); return nil } catch { return error.problem }
    }

    @Test func everyKindOfFileThatIsNotAStore() throws {
        let store = try TestStore()
        let folder = store.folder
        #expect(Self.problem(folder + "/missing.sqlite") == .missing)
        #expect(Self.problem(folder) == .notRegularFile(.folder))
        try FileManager.default.createSymbolicLink(atPath: folder + "/link.sqlite", withDestinationPath: store.path)
        #expect(Self.problem(folder + "/link.sqlite") == .notRegularFile(.symbolicLink))
        #expect(mkfifo(folder + "/fifo.sqlite", 0o600) == 0)
        #expect(Self.problem(folder + "/fifo.sqlite") == .notRegularFile(.fifo))
        #expect(Self.problem("/dev/null") == .notRegularFile(.device))
        // A path through a file names no file; a name too long fails the call, which is kept.
        #expect(Self.problem(store.path + "/App.sqlite") == .missing)
        let long = folder + "/" + String(repeating: "n", count: 300)
        #expect(Self.problem(long) == .unreadable(FileSystemError("stat", path: long, errno: ENAMETOOLONG)))
        #expect(Self.problem(store.path) == nil)
    }

    @Test func theLineStaysWhatTheToolPrinted() throws {
        let store = try TestStore()
        #expect(mkfifo(store.folder + "/fifo.sqlite", 0o600) == 0)
        do { _ = try StoreSet(storePath: store.folder + "/fifo.sqlite") } catch {
            #expect(error.description == "open store: \(store.folder)/fifo.sqlite: is a FIFO, not a regular file")
            #expect(error.category == .couldNotWork)
            #expect(error.cause == nil)
            let wrapped = FixtureKitError.wrapping(error, what: "capture")
            #expect(wrapped.description == "capture: open store: \(store.folder)/fifo.sqlite: is a FIFO, not a regular file")
            #expect(wrapped.underlying(StoreError.self)?.problem == .notRegularFile(.fifo))
        }
    }

    @Test func headersThatAreNotSQLites() throws {
        let store = try TestStore()
        #expect(try Self.headerProblem([], in: store.folder) == .header(.empty))
        #expect(try Self.headerProblem(Array("SQLite format 3\u{0}".utf8) + Array(repeating: 0, count: 24), in: store.folder) == .header(.tooShort(40)))
        #expect(try Self.headerProblem(Array(repeating: 0, count: 40), in: store.folder) == .header(.notSQLite))
        #expect(try Self.headerProblem(Array(repeating: 0x41, count: 100), in: store.folder) == .header(.notSQLite))
        try store.commit(["CREATE TABLE notes (id INTEGER PRIMARY KEY)"])
        #expect(try Self.headerProblem(Array(try store.bytes().prefix(100)), in: store.folder) == nil)
        let path = store.folder + "/store-0.sqlite"
        do { _ = try StoreSet(storePath: path).readHeader() } catch {
            #expect(error.description == "read header: \(path): empty file, not an SQLite database")
            #expect(error.cause as? DatabaseHeader.Problem == .empty)
        }
    }
}
