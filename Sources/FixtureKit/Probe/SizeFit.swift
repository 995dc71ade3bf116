import Foundation
import FixtureKitSQLite

/// The growth exponent of a cost measured at several sizes: the slope of the
/// least-squares line through `(log size, log cost)`. A cost that doubles with
/// the rows fits 1, one that quadruples (a scan per row) fits 2.
enum SizeFit {
    /// The exponent; `nil` with fewer than two sizes or a cost that is not positive.
    static func exponent(sizes: [Double], costs: [Double]) -> Double? {
        guard sizes.count == costs.count, sizes.count > 1, costs.allSatisfy({ $0 > 0 }), sizes.allSatisfy({ $0 > 0 }) else { return nil }
        let x = sizes.map(log), y = costs.map(log)
        let meanX = x.reduce(0, +) / Double(x.count), meanY = y.reduce(0, +) / Double(y.count)
        let spread = x.reduce(0) { $0 + ($1 - meanX) * ($1 - meanX) }
        guard spread > 0 else { return nil }
        return zip(x, y).reduce(0) { $0 + ($1.0 - meanX) * ($1.1 - meanY) } / spread
    }

    /// `cost` measured at `size`, carried to `target` along `exponent`.
    static func predict(_ cost: Double, at size: Double, to target: Double, exponent: Double) -> Double {
        cost * pow(target / size, exponent)
    }
}

/// The speed of this machine, as the size probe says it beside its
/// predictions: SQLite virtual-machine operations a second, measured once per
/// process on a fixed workload (a recursive CTE of 200,000 rows summed, in an
/// in-memory database, the best of three runs). A device that runs fewer
/// steps a second takes longer for the same stage, in proportion.
enum MachineSpeed {
    static let stepsPerSecond: Double? = measure()

    private static func measure() -> Double? {
        guard let database = try? Database(path: ":memory:") else { return nil }
        var best: Double?
        for _ in 0..<3 {
            guard let statement = try? database.prepare("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000) SELECT sum(x % 7) FROM c")
            else { return nil }
            let start = ContinuousClock.now
            while (try? statement.step()) == true {}
            let seconds = start.secondsSince
            guard seconds > 0 else { continue }
            let speed = Double(statement.virtualMachineSteps) / seconds
            best = max(best ?? 0, speed)
        }
        return best
    }
}
