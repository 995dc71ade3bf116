#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import FixtureKitModels
@testable import FixtureKitSystem

/// fixturekit.lock's format errors as values: the line, what was expected there.
@Suite struct CorpusLockFormatTests {
    static let digest = String(repeating: "ab", count: 32)

    static func error(_ text: String) -> FormatError? {
        do { _ = try CorpusLock(parsing: Array(text.utf8), path: "corpus/fixturekit.lock"); return nil } catch { return error }
    }

    @Test func aBadLineIsNamedByNumber() throws {
        let good = "sums 1.0.0 \(Self.digest)\n"
        let error = try #require(Self.error("# reviewed\n" + good + "sums 2.0.0 \(Self.digest.uppercased())\n"))
        #expect(error.format == .lock)
        #expect(error.file == "corpus/fixturekit.lock")
        #expect(error.line == 3)
        #expect(error.column == nil)
        #expect(error.expected == "not a SHA-256 (64 lower-case hexadecimal digits) at the end")
        #expect(error.remedy == .rewriteLock)
        #expect(error.what == "read lock")
        #expect(error.why == "line 3: not a SHA-256 (64 lower-case hexadecimal digits) at the end")

        #expect(Self.error(good + good)?.line == 2)
        #expect(Self.error(good + good)?.expected == "sums 1.0.0 is given again (first on line 1)")
        #expect(Self.error("\n\n\n\nsums 1.0.0 \(Self.digest)\r\n")?.line == 5)
        #expect(Self.error(good) == nil)
    }

    @Test func aLockThatIsNotARegularFile() throws {
        let store = try TestStore()
        let path = store.folder + "/" + CorpusLock.fileName
        #expect(mkfifo(path, 0o600) == 0)
        do { _ = try CorpusLock.load(corpus: store.folder); Issue.record("a FIFO was read") } catch {
            #expect(error == FormatError(.lock, file: path, expected: "is a FIFO, not a regular file", remedy: .rewriteLock))
            #expect(error.line == nil)
        }
        unlink(path)
        #expect(try CorpusLock.load(corpus: store.folder) == nil)
    }
}
