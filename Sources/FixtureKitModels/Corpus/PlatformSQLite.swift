/// The SQLite a platform bundles, by platform version: what `"platforms"`
/// (`["iOS 15.0", "Android 30"]`) means as the oldest SQLite the app runs on.
/// docs/commands/lint.md carries the same table with its sources.
///
/// Android's rows are the `android.database.sqlite` package summary's (the SQLite
/// version per API level; a level not listed has the level before it). Apple
/// publishes none for iOS: its rows are community measurements (`sqlite_version()`
/// run on devices and simulators). A version between two rows takes the row before
/// it, the newest SQLite that version is known to have at least; a version before
/// the first row or past the last one is not known, and is refused.
package enum PlatformSQLite {
    /// One row: from `since` on (an Android API level, an iOS version), the platform bundles `sqlite`.
    struct Row {
        var since: [Int]
        var sqlite: String
    }

    /// A platform the table knows: its name as written in `"platforms"`, its rows, and how far they are known.
    struct Platform {
        var name: String
        /// What a version of it looks like, for the error: `an API level, "Android 30"`.
        var form: String
        var rows: [Row]
        /// The last version the rows are known to cover (its major number): past it, nothing is known.
        var through: Int
    }

    static let platforms: [Platform] = [
        Platform(name: "Android", form: "an API level, \"Android 30\"", rows: [
            Row(since: [1], sqlite: "3.4.0"), Row(since: [3], sqlite: "3.5.0"), Row(since: [8], sqlite: "3.6.0"),
            Row(since: [11], sqlite: "3.7.0"), Row(since: [21], sqlite: "3.8.0"), Row(since: [24], sqlite: "3.9.0"),
            Row(since: [26], sqlite: "3.18.0"), Row(since: [27], sqlite: "3.19.0"), Row(since: [28], sqlite: "3.22.0"),
            Row(since: [30], sqlite: "3.28.0"), Row(since: [31], sqlite: "3.32.0"), Row(since: [34], sqlite: "3.39.0"),
        ], through: 34),
        Platform(name: "iOS", form: "a version, \"iOS 15.0\"", rows: [
            Row(since: [7, 0], sqlite: "3.7.13"), Row(since: [8, 2], sqlite: "3.8.5"), Row(since: [9, 0], sqlite: "3.8.8"),
            Row(since: [9, 3], sqlite: "3.8.10"), Row(since: [10, 0], sqlite: "3.14.0"), Row(since: [10, 3], sqlite: "3.16.0"),
            Row(since: [11, 0], sqlite: "3.19.3"), Row(since: [12, 0], sqlite: "3.24.0"), Row(since: [13, 0], sqlite: "3.28.0"),
            Row(since: [14, 1], sqlite: "3.32.3"), Row(since: [15, 0], sqlite: "3.36.0"), Row(since: [15, 4], sqlite: "3.37.0"),
            Row(since: [16, 0], sqlite: "3.39.0"), Row(since: [26, 0], sqlite: "3.51.0"),
        ], through: 26),
    ]

    /// The oldest SQLite `platform` (`"Android 30"`, `"iOS 15.0"`) bundles.
    /// - Returns: the SQLite version, or why the platform is not known.
    package static func sqlite(of platform: String) -> Result<String, PlatformError> {
        let words = platform.split(separator: " ", omittingEmptySubsequences: true)
        let names = platforms.map(\.name).joined(separator: ", ")
        guard words.count == 2, let known = platforms.first(where: { $0.name.lowercased() == words[0].lowercased() }) else {
            return .failure(PlatformError(message: "\"\(platform)\" is not a platform the table knows (\(names), with a version: \"iOS 15.0\", \"Android 30\"); give \"minimumSQLite\" instead"))
        }
        let parts = words[1].split(separator: ".", omittingEmptySubsequences: false)
        let numbers = parts.compactMap { part in part.allSatisfy({ $0.isASCII && $0.isNumber }) && part.count <= 4 ? Int(part) : nil }
        let single = known.rows[0].since.count == 1
        guard !parts.isEmpty, numbers.count == parts.count, single ? numbers.count == 1 : numbers.count <= 3 else {
            return .failure(PlatformError(message: "\"\(platform)\": \(known.name) takes \(known.form)"))
        }
        let version = numbers + Array(repeating: 0, count: max(0, 2 - numbers.count))
        guard let row = known.rows.last(where: { !version.lexicographicallyPrecedes($0.since) }), version[0] <= known.through else {
            let first = known.rows[0].since.map(String.init).joined(separator: ".")
            return .failure(PlatformError(message: "\"\(platform)\": the table of the SQLite \(known.name) bundles covers \(known.name) \(first) to \(known.through) only; give \"minimumSQLite\" instead"))
        }
        return .success(row.sqlite)
    }

    /// Why a platform is not known: one line.
    package struct PlatformError: Error, Equatable {
        package var message: String
    }
}

extension CorpusConfiguration {
    /// The oldest SQLite the app runs on, and what says so (`"minimumSQLite"`, or
    /// `Android 30, "platforms"`): the lower of `minimumSQLite` and the oldest SQLite
    /// `platforms` bundle; `nil` when the configuration gives neither.
    package var oldestSQLite: (version: String, source: String)? {
        var candidates: [(version: String, source: String)] = []
        if let minimumSQLite, Version(minimumSQLite) != nil { candidates.append((minimumSQLite, "\"minimumSQLite\"")) }
        for platform in platforms ?? [] {
            if case .success(let sqlite) = PlatformSQLite.sqlite(of: platform) { candidates.append((sqlite, "\(platform), \"platforms\"")) }
        }
        return candidates.min { lhs, rhs in
            guard let left = Version(lhs.version), let right = Version(rhs.version) else { return false }
            return left < right
        }
    }

    /// Refuses a `"platforms"` that is not a list of platforms the table knows.
    static func checkPlatforms(_ dictionary: [String: Any], _ fail: (String) -> FormatError) throws(FormatError) {
        guard let value = dictionary["platforms"] else { return }
        guard let list = value as? [Any], let platforms = list as? [String], !platforms.isEmpty else {
            throw fail("\"platforms\" must be a list of platforms, [\"iOS 15.0\", \"Android 30\"]")
        }
        for platform in platforms {
            if case .failure(let error) = PlatformSQLite.sqlite(of: platform) { throw fail("platforms: \(error.message)") }
        }
    }
}
