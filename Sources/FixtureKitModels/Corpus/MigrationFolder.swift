import Foundation
import FixtureKitSystem

/// A folder stage's migrations, in the convention of the tool the app uses,
/// and in the order that tool runs them:
///
/// - **Diesel**: a folder per migration, `2024-01-31-120000_add_notes/up.sql`
///   (`down.sql` and `metadata.toml` beside it are not run); ordered by the
///   version, the name up to its first `_` without dashes, compared as text,
///   as Diesel compares it.
/// - **Numbered** (sqlx, golang-migrate, GRDB-style files): `0003_add_notes.sql`
///   (or `.up.sql`; `.down.sql` is not run); ordered by the number, as a number:
///   `10_x` after `9_x`.
/// - **Flyway** (and refinery): `V3__add_notes.sql`, `V1.2__x.sql`, `V1_2__x.sql`;
///   ordered by the version's numbers, part by part: `V10` after `V9`, `V1.10` after `V1.9`.
///
/// Names that start with `.` and files that do not end in `.sql` are not
/// migrations (`README.md`); a `.sql` file that fits no convention, or two
/// conventions in one folder, is refused, and so are two migrations of one version.
package struct MigrationFolder: Sendable, Equatable {
    package enum Convention: String, Sendable {
        case diesel, numbered, flyway
    }

    /// One migration: its name, the version its tool reads, and its SQL file.
    package struct Migration: Sendable, Equatable {
        /// The Diesel folder's name, or the file's without `.sql` (`.up.sql`).
        package var name: String
        /// The version as its tool records it: `20240131120000`, `0003`, `1.2`.
        package var version: String
        /// The SQL file, relative to the corpus, as the configuration names the folder.
        package var file: String
        /// What it is ordered by.
        fileprivate var key: [String]
    }

    package var convention: Convention
    /// In the order they run.
    package var migrations: [Migration]

    /// Why a folder's migrations cannot be told.
    package struct Problem: Error, Sendable, Equatable {
        package var message: String
    }

    /// Reads the migrations of `folder` (relative to `corpus`), up to and
    /// including the one named `through` when given.
    /// - Throws: ``Problem`` naming the folder or the file that is wrong.
    package static func read(_ folder: String, corpus: String, through: String? = nil) throws(Problem) -> MigrationFolder {
        let path = folder.hasPrefix("/") ? folder : corpus.appendingPath(folder)
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: path).filter { !$0.hasPrefix(".") }.sorted() } catch {
            throw Problem(message: "\(folder): cannot be read as a folder of migrations")
        }
        var diesel: [Migration] = []
        var files: [(name: String, convention: Convention, migration: Migration)] = []
        for name in names {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path.appendingPath(name), isDirectory: &isFolder) else { continue }
            if isFolder.boolValue {
                guard FileManager.default.fileExists(atPath: path.appendingPath(name).appendingPath("up.sql")) else {
                    throw Problem(message: "\(folder.appendingPath(name)): a Diesel migration folder holds up.sql, and this one does not")
                }
                let version = String(name.prefix { $0 != "_" }).replacingOccurrences(of: "-", with: "")
                diesel.append(Migration(name: name, version: version, file: folder.appendingPath(name).appendingPath("up.sql"), key: [version]))
            } else if name.hasSuffix(".sql") && !name.hasSuffix(".down.sql") {
                guard let (convention, migration) = fileMigration(name, folder: folder) else {
                    throw Problem(message: "\(folder.appendingPath(name)): not a migration of a known convention (Diesel NAME/up.sql, numbered 0001_name.sql, Flyway V1__name.sql)")
                }
                files.append((name, convention, migration))
            }
        }
        if !diesel.isEmpty, let file = files.first {
            throw Problem(message: "\(folder.appendingPath(file.name)): a file among Diesel migration folders")
        }
        let conventions = Set(files.map(\.convention))
        if conventions.count > 1, let odd = files.first(where: { $0.convention != files[0].convention }) {
            throw Problem(message: "\(folder.appendingPath(odd.name)): \(odd.convention.rawValue), where \(files[0].name) is \(files[0].convention.rawValue): one folder holds one convention")
        }
        let convention = diesel.isEmpty ? (conventions.first ?? .numbered) : .diesel
        // Two of one version are refused below; the names make the order total meanwhile.
        var migrations = (diesel.isEmpty ? files.map(\.migration) : diesel).sorted {
            order($0.key, $1.key, convention) || (!order($1.key, $0.key, convention) && $0.name < $1.name)
        }
        for (first, second) in zip(migrations, migrations.dropFirst()) where !order(first.key, second.key, convention) {
            throw Problem(message: "\(folder): \(first.name) and \(second.name) have the same version \(first.version)")
        }
        if let through {
            guard let last = migrations.firstIndex(where: { $0.name == through || $0.file.hasSuffix("/" + through) }) else {
                throw Problem(message: "\(folder): \"through\" names \(through), which is not one of its migrations")
            }
            migrations = Array(migrations[...last])
        }
        return MigrationFolder(convention: convention, migrations: migrations)
    }

    /// A numbered or Flyway file's migration; `nil` when the name fits neither.
    private static func fileMigration(_ name: String, folder: String) -> (Convention, Migration)? {
        let stem = String(name.dropLast(name.hasSuffix(".up.sql") ? 7 : 4))
        let file = folder.appendingPath(name)
        if stem.first == "V", let separator = stem.range(of: "__") {
            let version = stem[stem.index(after: stem.startIndex)..<separator.lowerBound]
            let parts = version.split(separator: "_", omittingEmptySubsequences: false).flatMap { $0.split(separator: ".", omittingEmptySubsequences: false) }
            guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }) else { return nil }
            let key = parts.map { number(String($0)) }
            return (.flyway, Migration(name: stem, version: parts.joined(separator: "."), file: file, key: key))
        }
        let digits = stem.prefix { $0.isASCIIDigit }
        guard !digits.isEmpty, stem.dropFirst(digits.count).first == "_" else { return nil }
        return (.numbered, Migration(name: stem, version: String(digits), file: file, key: [number(String(digits))]))
    }

    /// A number's digits without leading zeros: numbers of any length compare as numbers by length, then as text.
    private static func number(_ digits: String) -> String {
        let trimmed = String(digits.drop { $0 == "0" })
        return trimmed.isEmpty ? "0" : trimmed
    }

    /// Whether `a` runs before `b`.
    private static func order(_ a: [String], _ b: [String], _ convention: Convention) -> Bool {
        if convention == .diesel { return a.lexicographicallyPrecedes(b) { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) } }
        // Numbers part by part; a missing part is 0 (Flyway's 1 and 1.0 are one version).
        for index in 0..<max(a.count, b.count) {
            let x = index < a.count ? a[index] : "0"
            let y = index < b.count ? b[index] : "0"
            if x != y { return x.count != y.count ? x.count < y.count : x < y }
        }
        return false
    }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
