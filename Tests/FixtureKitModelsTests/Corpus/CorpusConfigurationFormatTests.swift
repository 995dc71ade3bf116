import Foundation
import Testing
@testable import FixtureKitModels
@testable import FixtureKitSystem

/// The corpus configuration's format errors as values: the JSON fault's line
/// and column, the key that is missing or unknown, the file that cannot be read.
@Suite struct CorpusConfigurationFormatTests {
    static func error(_ text: String) -> FormatError? {
        do { _ = try CorpusConfiguration.parse(Array(text.utf8), path: "c/fixturekit.json"); return nil } catch { return error }
    }

    @Test func aSyntaxFaultHasItsLineAndColumn() throws {
        let error = try #require(Self.error("{\"store\": \"App.sqlite\",\n  \"current\": \"1.0.0\",\n}"))
        #expect(error.format == .configuration)
        #expect(error.file == "c/fixturekit.json")
        #expect(error.line == 3)
        #expect(error.column == 1)
        #expect(error.expected == "a trailing comma before \"}\"")
        #expect(error.why == "line 3, column 1: a trailing comma before \"}\"")
        #expect(error.what == "read configuration")
    }

    @Test func aMissingOrUnknownField() throws {
        let missing = try #require(Self.error(#"{"store": "App.sqlite"}"#))
        #expect(missing.line == nil)
        #expect(missing.expected == "current is missing")
        let unknown = try #require(Self.error(#"{"store": "App.sqlite", "current": "1.0.0", "x": 1}"#))
        #expect(unknown.expected == "unknown key \"x\"")
        #expect(Self.error(#"{"store": "App.sqlite", "current": "1.0.0"}"#) == nil)
    }

    @Test func aMissingFileKeepsItsErrno() throws {
        let store = try TestStore()
        let path = store.folder + "/fixturekit.json"
        do { _ = try CorpusConfiguration.read(path); Issue.record("read a missing file") } catch {
            #expect(error.expected == "no such file")
            #expect(error.remedy == .initCorpus)
            #expect((error.cause as? FileSystemError)?.errno == ENOENT)
        }
    }
}
