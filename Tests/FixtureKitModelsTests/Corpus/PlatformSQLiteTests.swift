import Foundation
import Testing
@testable import FixtureKitModels

/// `"platforms"`: each platform's bundled SQLite from the table (a version between
/// rows takes the row before it), the oldest of them and `"minimumSQLite"` as the
/// floor, and a platform the table does not know refused with one line.
@Suite struct PlatformSQLiteTests {
    static func text(_ extra: String) -> [UInt8] {
        Array((#"{"store": "App.sqlite", "current": "1.0.0", "# + extra + "}").utf8)
    }

    /// The configuration with `extra` in it.
    static func parse(_ extra: String) throws -> CorpusConfiguration {
        try CorpusConfiguration.parse(text(extra), path: "f.json")
    }

    /// Why the configuration with `extra` in it is refused; `nil` when it is taken.
    static func refusal(_ extra: String) -> String? {
        do { _ = try CorpusConfiguration.parse(text(extra), path: "f.json"); return nil } catch { return error.description }
    }

    @Test(arguments: [
        ("Android 30", "3.28.0"), ("Android 29", "3.22.0"), ("Android 31", "3.32.0"), ("Android 33", "3.32.0"), ("Android 34", "3.39.0"),
        ("Android 21", "3.8.0"), ("Android 25", "3.9.0"), ("android 28", "3.22.0"),
        ("iOS 15.0", "3.36.0"), ("iOS 15", "3.36.0"), ("iOS 15.4", "3.37.0"), ("iOS 15.7.1", "3.37.0"), ("iOS 16.0", "3.39.0"),
        ("iOS 14.0", "3.28.0"), ("iOS 14.1", "3.32.3"), ("iOS 13.0", "3.28.0"), ("ios 12.1", "3.24.0"), ("iOS 17.0", "3.39.0"), ("iOS 26.0", "3.51.0"),
    ])
    func eachPlatformsBundledSQLite(platform: String, sqlite: String) {
        #expect(PlatformSQLite.sqlite(of: platform) == .success(sqlite))
    }

    @Test(arguments: [
        ("Windows 11", #""Windows 11" is not a platform the table knows (Android, iOS, with a version: "iOS 15.0", "Android 30"); give "minimumSQLite" instead"#),
        ("Android", #""Android" is not a platform the table knows (Android, iOS, with a version: "iOS 15.0", "Android 30"); give "minimumSQLite" instead"#),
        ("iOS 15.0 beta", #""iOS 15.0 beta" is not a platform the table knows (Android, iOS, with a version: "iOS 15.0", "Android 30"); give "minimumSQLite" instead"#),
        ("Android 30.1", #""Android 30.1": Android takes an API level, "Android 30""#),
        ("Android R", #""Android R": Android takes an API level, "Android 30""#),
        ("iOS 15..0", #""iOS 15..0": iOS takes a version, "iOS 15.0""#),
        ("iOS 15.0.0.1", #""iOS 15.0.0.1": iOS takes a version, "iOS 15.0""#),
        ("Android 35", #""Android 35": the table of the SQLite Android bundles covers Android 1 to 34 only; give "minimumSQLite" instead"#),
        ("iOS 6.1", #""iOS 6.1": the table of the SQLite iOS bundles covers iOS 7.0 to 26 only; give "minimumSQLite" instead"#),
        ("iOS 27.0", #""iOS 27.0": the table of the SQLite iOS bundles covers iOS 7.0 to 26 only; give "minimumSQLite" instead"#),
    ])
    func aPlatformTheTableDoesNotKnowIsRefused(platform: String, message: String) {
        #expect(PlatformSQLite.sqlite(of: platform) == .failure(PlatformSQLite.PlatformError(message: message)))
        let json = try? JSONSerialization.data(withJSONObject: [platform])
        let list = json.map { String(decoding: $0, as: UTF8.self) } ?? "[]"
        #expect(Self.refusal(#""platforms": "# + list) == "read configuration: f.json: platforms: " + message)
    }

    @Test func platformsMustBeAListOfNames() {
        let message = #"read configuration: f.json: "platforms" must be a list of platforms, ["iOS 15.0", "Android 30"]"#
        for value in [#""iOS 15.0""#, "[]", "[15]", "{}"] {
            #expect(Self.refusal(#""platforms": "# + value) == message)
        }
    }

    @Test func theFloorIsTheOldestOfThePlatformsAndTheMinimum() throws {
        let both = try Self.parse(#""platforms": ["iOS 15.0", "Android 30"]"#)
        #expect(both.platforms == ["iOS 15.0", "Android 30"])
        #expect(both.oldestSQLite?.version == "3.28.0")
        #expect(both.oldestSQLite?.source == #"Android 30, "platforms""#)
        let lower = try Self.parse(#""platforms": ["iOS 15.0", "Android 30"], "minimumSQLite": "3.24.0""#)
        #expect(lower.oldestSQLite?.version == "3.24.0")
        #expect(lower.oldestSQLite?.source == #""minimumSQLite""#)
        let higher = try Self.parse(#""platforms": ["iOS 16.0"], "minimumSQLite": "3.40.0""#)
        #expect(higher.oldestSQLite?.version == "3.39.0")
        #expect(higher.oldestSQLite?.source == #"iOS 16.0, "platforms""#)
        // 3.8.10 is older than 3.28.0, though bytewise it sorts after it.
        let old = try Self.parse(#""platforms": ["Android 30", "iOS 9.3"]"#)
        #expect(old.oldestSQLite?.version == "3.8.10")
        #expect(try Self.parse(#""minimumSQLite": "3.32.0""#).oldestSQLite?.source == #""minimumSQLite""#)
        #expect(try Self.parse(#""supported": []"#).oldestSQLite == nil)
    }
}
