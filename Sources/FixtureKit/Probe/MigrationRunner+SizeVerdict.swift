import Foundation
import FixtureKitModels

/// The `size` probe's verdict from what the stages cost at each size.
extension MigrationRunner {
    /// Each stage's exponent (by its SQL's VM steps where it has them, else by
    /// wall time) against ``SizeProbeSettings/exponentLimit``, and the path's
    /// predicted time at the declared size against `"budget"`.
    /// - Parameter costs: by size (``SizeProbeSettings/factors``), by stage.
    /// - Parameter rows: the source fixture's rows, by table.
    func sizeVerdict(_ path: MigrationPath, costs: [[StageCost]], growth: StoreGrowth.Outcome, rows: [String: Int]) -> CheckResult {
        let settings = configuration.probeSize
        let sizes = SizeProbeSettings.factors.map(Double.init)
        let largest = sizes.last ?? 8
        let target = sizeTarget(path.source, settings: settings, rows: rows)
        var lines: [String] = [], failures: [String] = []
        var predictedSeconds = 0.0, predictedSteps = 0.0
        for (index, stage) in path.stages.enumerated() {
            let seconds = costs.map { max($0[index].seconds, 1e-6) }
            let steps = costs.compactMap { $0[index].steps }.map(Double.init)
            let byTime = SizeFit.exponent(sizes: sizes, costs: seconds)
            let bySteps = steps.count == sizes.count ? SizeFit.exponent(sizes: sizes, costs: steps) : nil
            let name = "stage \(stage.from) -> \(stage.to)"
            let times = zip(SizeProbeSettings.factors, seconds).map { "×\($0) " + String(format: "%.4f s", $1) }.joined(separator: ", ")
            var line = "\(name): "
            if let bySteps {
                let counts = zip(SizeProbeSettings.factors, steps).map { "×\($0) \(Int($1))" }.joined(separator: ", ")
                line += "exponent \(Self.fixed(bySteps)) by VM steps (\(counts)), \(byTime.map(Self.fixed) ?? "none") by wall time (\(times))"
            } else {
                let why = stage.runsSQL ? "its SQL ran no VM step"
                    : stage.exec != nil ? "a program stage: its connection is its own, no VM steps counted"
                    : "a Swift stage whose connections SQLite did not tell of: no VM steps counted"
                line += "exponent \(byTime.map(Self.fixed) ?? "none") by wall time (\(times)); \(why)"
            }
            lines.append(line)
            let exponent = bySteps ?? byTime
            if let exponent, exponent > SizeProbeSettings.exponentLimit {
                failures.append("\(name) grows as rows^\(Self.fixed(exponent)) (by \(bySteps == nil ? "wall time" : "VM steps")), above \(SizeProbeSettings.exponentLimit)")
            }
            if let target {
                predictedSeconds += SizeFit.predict(seconds.last ?? 0, at: largest, to: target.factor, exponent: exponent ?? 1)
                if let bySteps, let last = steps.last { predictedSteps += SizeFit.predict(last, at: largest, to: target.factor, exponent: bySteps) }
            }
        }
        if let target {
            var line = "predicted " + String(format: "%.2f s", predictedSeconds) + " at ×\(Self.factor(target.factor)) (\(target.label))"
            if predictedSteps > 0 { line += ", \(Self.count(predictedSteps)) VM steps of SQL" }
            line += MachineSpeed.stepsPerSecond.map { "; this machine runs \(Self.count($0)) SQLite VM steps/s" } ?? ""
            if let budget = settings.budgetSeconds {
                line += "; budget \(settings.budget ?? "")"
                if predictedSeconds > budget {
                    failures.append("predicted " + String(format: "%.2f s", predictedSeconds) + " at ×\(Self.factor(target.factor)), over the budget of \(settings.budget ?? "")")
                }
            }
            lines.append(line)
        }
        lines += sizeNotes(path.source, settings: settings, rows: rows)
        let grown = growth.rows.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        if !grown.isEmpty { lines.append("rows at ×\(Int(largest)): " + grown.joined(separator: ", ")) }
        lines += growth.notGrown.sorted { $0.key < $1.key }.map { "not grown: \($0.key) (\($0.value))" }
        let headline = failures.isEmpty
            ? "the stages' time grows with their rows within exponent \(SizeProbeSettings.exponentLimit)" + (target != nil && settings.budget != nil ? " and the budget" : "")
            : "the stages' time grows too fast with their rows: " + failures.joined(separator: "; ")
        var result = CheckResult(.probe(kind: ProbeKind.size.rawValue), passed: failures.isEmpty, message: ([headline] + lines).joined(separator: "\n"))
        result.findings = lines.map { CheckResult.Finding(message: $0) }
        return result
    }

    /// The factor users' stores have over the fixture, and how it was found:
    /// `"factor"`, or the largest of `"rows"` over the fixture's rows of that table.
    private func sizeTarget(_ version: String, settings: SizeProbeSettings, rows: [String: Int]) -> (factor: Double, label: String)? {
        if let factor = settings.factor { return (factor, "\"factor\": \(Self.factor(factor))") }
        var best: (factor: Double, label: String)?
        for (table, wanted) in (settings.rows ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let have = rows.value(forName: table), have > 0 else { continue }
            let factor = max(1, Double(wanted) / Double(have))
            if factor > (best?.factor ?? 0) { best = (factor, "\(table): \(wanted) rows, \(have) in \(version)") }
        }
        return best
    }

    /// The declared tables the fixture gives no rows to scale by.
    private func sizeNotes(_ version: String, settings: SizeProbeSettings, rows: [String: Int]) -> [String] {
        (settings.rows ?? [:]).keys.sorted().compactMap { table in
            let have = rows.value(forName: table)
            guard have == nil || have == 0 else { return nil }
            return "rows.\(table): \(have == nil ? "no such table" : "no rows") in \(version) to scale by"
        }
    }

    /// `1.98`.
    static func fixed(_ value: Double) -> String { String(format: "%.2f", value) }

    /// `16666.7`, `50`.
    private static func factor(_ value: Double) -> String {
        value == value.rounded() && value < 1e15 ? String(Int64(value)) : String(format: "%.1f", value)
    }

    /// `85.3 M`, `1.2 G`, `950`.
    private static func count(_ value: Double) -> String {
        for (scale, unit) in [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")] where value >= scale {
            return String(format: "%.1f", value / scale) + " " + unit
        }
        return String(Int(value))
    }
}
