import Foundation
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// The pages of every b-tree of a fixture's reference copy (overflow pages
/// included, as SQLite's `dbstat` walks them), found once for every path that
/// compares with it, on a thread of its own while the first path copies the
/// fixture and runs its stages (the source does not change; the stages keep
/// one core busy), like ``SourceKeys``.
///
/// ``UnchangedTables`` compares these pages with the migrated store's pages of
/// the same numbers instead of walking the migrated store's b-trees after the
/// stages: it does so only for tables whose statements and root pages are the
/// same in both stores, and there the two walks visit the same pages whenever
/// the pages are identical (each page, byte for byte the same, points to the
/// same children; a page that differs is reached through identical pages, so
/// both walks hold its number). Walking the 340 MiB of untouched tables of the
/// 500 MiB benchmark store took about 0.3 s of the data diff.
///
/// The reference copy is only read. When the walk fails, ``wait()`` answers
/// `nil` and the migrated store's b-trees are walked as before.
final class SourcePages: Sendable {
    /// Page numbers by object name, as `sqlite_schema` spells it.
    private let pages: ThreadedValue<[String: [Int]]?>

    /// Starts walking `reference`, a store no one writes.
    init(reference: String) {
        pages = ThreadedValue { try? Self.walk(reference) }
    }

    /// Waits for the walk; the pages by object name, or `nil` when it failed.
    func wait() -> [String: [Int]]? {
        pages.wait() ?? nil
    }

    private static func walk(_ reference: String) throws(SQLiteError) -> [String: [Int]] {
        let database = try Database(path: reference, options: .init(readOnly: true))
        defer { try? database.close() }
        let statement = try database.prepare("SELECT name, pageno FROM dbstat('main')")
        var found: [String: [Int]] = [:]
        while try statement.step() {
            guard let name = statement.column(0).text, let page = statement.column(1).integer else { continue }
            found[name, default: []].append(Int(page))
        }
        return found
    }
}
