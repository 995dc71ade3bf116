import Foundation
import FixtureKitSystem

/// A probe of a stage: the stage run again, on a fresh copy of the fixture,
/// under a condition a single run never meets, its result compared with the
/// plain run's by content hash (see docs/commands/probe.md).
public enum ProbeKind: String, CaseIterable, Codable, Hashable, Sendable {
    /// The stages again with `PRAGMA reverse_unordered_selects = ON`: a result
    /// that depends on the order of an unordered `SELECT`.
    case order
    /// The stages again under each of ``ProbeSettings/timeZones``: a result that
    /// depends on the zone of the device that ran it.
    case zones
    /// A folder stage stopped after each of its first files in turn, then run
    /// again from the start as the app would at its next launch.
    case interrupted
    /// The fixture's tables grown ×2, ×4, ×8 with new keys, the stages timed at
    /// each size, their growth exponent fitted and their time predicted at the
    /// size ``SizeProbeSettings`` declares.
    case size
}

/// `"probes"` of `fixturekit.json`: which probes `migrate --probes` and
/// `probe` run, and how.
public struct ProbeSettings: Codable, Hashable, Sendable {
    /// The probes run; every kind when `nil`.
    public var run: [ProbeKind]?
    /// The zones the `zones` probe runs each path in (`TZ` values);
    /// ``defaultTimeZones`` when `nil`.
    public var timeZones: [String]?
    /// The most points a stage is interrupted at, chosen evenly among its
    /// commits; ``defaultMaxPoints`` when `nil`.
    public var maxPoints: Int?
    /// The `size` probe's settings; its defaults when `nil`.
    public var size: SizeProbeSettings?
    /// The `LC_ALL` values the `zones` probe also runs each path's program
    /// stages under; ``defaultLocales`` when `nil`.
    public var locales: [String]?

    public init(run: [ProbeKind]? = nil, timeZones: [String]? = nil, maxPoints: Int? = nil, size: SizeProbeSettings? = nil, locales: [String]? = nil) {
        (self.run, self.timeZones, self.maxPoints, self.size, self.locales) = (run, timeZones, maxPoints, size, locales)
    }

    /// UTC, and a zone far from it with daylight saving (+12 in July, +13 in January).
    public static let defaultTimeZones = ["UTC", "Pacific/Auckland"]
    public static let defaultMaxPoints = 20
    /// `C.UTF-8` (the plain run's, unless the connection declares another), `C`
    /// (bytes, not characters: a length or a case of `é` differs), and
    /// `de_DE.UTF-8` (another collation, `,` as the decimal separator) where
    /// the system has it.
    public static let defaultLocales = ["C.UTF-8", "C", "de_DE.UTF-8"]

    /// Whether the C library can load `locale` (`newlocale`): glibc falls back
    /// to `C` for a locale it lacks, which would make the probe pass unseen.
    package static func systemHasLocale(_ locale: String) -> Bool { POSIX.hasLocale(locale) }

    static let keys: Set<String> = ["run", "timeZones", "maxPoints", "size", "locales"]
}

extension CorpusConfiguration {
    /// The probes `migrate --probes` runs: `"probes"."run"`, else every kind.
    public var configuredProbes: [ProbeKind] { probes?.run ?? ProbeKind.allCases }

    /// The zones of the `zones` probe.
    package var probeTimeZones: [String] { probes?.timeZones ?? ProbeSettings.defaultTimeZones }

    /// The most interruption points of one stage.
    package var probeMaxPoints: Int { probes?.maxPoints ?? ProbeSettings.defaultMaxPoints }

    /// The `size` probe's settings.
    package var probeSize: SizeProbeSettings { probes?.size ?? SizeProbeSettings() }

    /// The locales of the `zones` probe's program stages: the declared ones, or
    /// those of ``ProbeSettings/defaultLocales`` the system has.
    package var probeLocales: [String] {
        probes?.locales ?? ProbeSettings.defaultLocales.filter(ProbeSettings.systemHasLocale)
    }

    /// Refuses unknown keys and kinds inside `probes`, before decoding.
    static func checkProbeKeys(_ dictionary: [String: Any], _ fail: (String) -> FormatError) throws(FormatError) {
        guard let object = dictionary["probes"] else { return }
        guard let entries = object as? [String: Any] else { throw fail("probes must be an object") }
        if let unknown = entries.keys.filter({ !ProbeSettings.keys.contains($0) }).sorted().first {
            throw fail("probes: unknown key \"\(unknown)\" (one of \(ProbeSettings.keys.sorted().joined(separator: ", ")))")
        }
        if let size = entries["size"] {
            guard let keys = (size as? [String: Any])?.keys else { throw fail("probes.size must be an object") }
            if let unknown = keys.filter({ !SizeProbeSettings.keys.contains($0) }).sorted().first {
                throw fail("probes.size: unknown key \"\(unknown)\" (one of \(SizeProbeSettings.keys.sorted().joined(separator: ", ")))")
            }
        }
        for case let name as String in (entries["run"] as? [Any]) ?? [] where ProbeKind(rawValue: name) == nil {
            throw fail("probes.run: \"\(name)\" is not one of \(ProbeKind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))")
        }
    }

    /// Checks `probes`: zones the system knows (glibc takes an unknown `TZ` for
    /// UTC, which would make the probe pass unseen), and at least one point.
    func validateProbes(_ fail: (String) -> FormatError) throws(FormatError) {
        guard let probes else { return }
        for zone in probes.timeZones ?? [] where TimeZone(identifier: zone) == nil || zone.contains("\0") {
            throw fail("probes.timeZones: \"\(zone)\" is not a time zone this system knows (a name of the tz database: UTC, Pacific/Auckland)")
        }
        if probes.timeZones?.isEmpty == true { throw fail("probes.timeZones is empty: name the zones to compare, or leave it out") }
        if let points = probes.maxPoints, points < 1 { throw fail("probes.maxPoints is \(points): it must be at least 1") }
        if probes.locales?.isEmpty == true { throw fail("probes.locales is empty: name the locales to compare, or leave it out") }
        for locale in probes.locales ?? [] where !ProbeSettings.systemHasLocale(locale) {
            throw fail("probes.locales: \"\(locale)\" is not a locale this system has (locale -a lists them: C.UTF-8, de_DE.UTF-8)")
        }
        try probes.size?.validate(fail)
    }
}
