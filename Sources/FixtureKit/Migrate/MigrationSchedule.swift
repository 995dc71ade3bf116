import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

/// Which paths of the matrix a run takes (`--shard`), and in what order they
/// start (`--jobs`): by each path's expected cost, so that the shares of a
/// split matrix take about the same time, and parallel workers finish together.
///
/// Every machine of a split CI job computes the same shares from the same
/// corpus: the costs come from the fixtures' file sizes, ties go to the matrix
/// order.
enum MigrationSchedule {
    /// A path's expected cost, in bytes read and written: its source fixture's
    /// size times its stages, plus two more passes over the store (the copy and
    /// the checks, each of which reads the whole migrated store).
    static func expectedCost(_ path: MigrationPath, fixtureSize: UInt64) -> Double {
        Double(fixtureSize) * Double(path.stages.count + 2)
    }

    /// The size of a version's fixture: its folder's files, or its archive when
    /// the corpus holds only that; 0 when it has neither (the path fails at once).
    static func fixtureSize(_ version: String, configuration: CorpusConfiguration) -> UInt64 {
        let folder = configuration.resolve(version)
        if let items = try? FolderListing.items(below: folder) {
            return items.reduce(0) { total, item in
                if case .file(let size) = item.kind { return total + size }
                return total
            }
        }
        if let archive = configuration.archivePath(of: version), let status = try? POSIX.lstatIfPresent(archive) {
            return UInt64(max(0, status.size))
        }
        return 0
    }

    /// The positions (in `costs`' order, the matrix order) of share `index`
    /// of `count` (from 1): the paths are dealt out most expensive first, each
    /// to the share with the least cost so far (the first such share on a
    /// tie). Each path is in exactly one share.
    static func share(_ index: Int, of count: Int, costs: [Double]) -> [Int] {
        var totals = Array(repeating: 0.0, count: count)
        var chosen: [Int] = []
        for position in startOrder(costs) {
            let lightest = totals.indices.min { (totals[$0], $0) < (totals[$1], $1) } ?? 0
            totals[lightest] += costs[position]
            if lightest == index - 1 { chosen.append(position) }
        }
        return chosen.sorted()
    }

    /// The positions in the order the paths start: most expensive first, the
    /// matrix order on a tie (the longest work is not left to the end, where
    /// one worker would run it alone).
    static func startOrder(_ costs: [Double]) -> [Int] {
        costs.indices.sorted { (-costs[$0], $0) < (-costs[$1], $1) }
    }
}
