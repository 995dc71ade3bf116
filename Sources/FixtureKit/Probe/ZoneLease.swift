import Foundation
import FixtureKitSystem

/// The process' time zone, held by the runs that need it: SQLite's
/// `localtime` and `utc` read `TZ` of the whole process, so an SQL or Swift
/// stage run in one zone must not overlap one run in another.
///
/// Any number of runs hold the same zone at once; a run that wants another
/// waits until they end, and once one waits no new run takes the current zone
/// (so a waiting zone is not starved). A run holds one lease at a time.
final class ZoneLease: @unchecked Sendable {
    /// The process' one lease.
    static let shared = ZoneLease()

    private let condition = NSCondition()
    private var zone: String?
    private var holders = 0
    /// The runs waiting, by the zone they want.
    private var waiting: [String: Int] = [:]

    /// The zone the lease is held in now; `nil` when no run holds it.
    var heldZone: String? {
        condition.lock()
        defer { condition.unlock() }
        return holders > 0 ? zone : nil
    }

    /// Runs `body` with the process' time zone `zone` (a `TZ` value).
    func with<T>(_ zone: String, _ body: () throws -> T) rethrows -> T {
        condition.lock()
        waiting[zone, default: 0] += 1
        while !(holders == 0 || (self.zone == zone && !waiting.contains { $0.key != zone && $0.value > 0 })) {
            condition.wait()
        }
        waiting[zone, default: 1] -= 1
        // Alone, it sets the zone even when it thinks it holds it: a caller outside may have changed it.
        if holders == 0 {
            ProcessTimeZone.use(zone)
            self.zone = zone
        }
        holders += 1
        condition.unlock()
        defer {
            condition.lock()
            holders -= 1
            condition.broadcast()
            condition.unlock()
        }
        return try body()
    }
}
