import FixtureKit

/// The human report of `migrate`.
enum MigrationText {
    static func lines(_ report: MigrationReport, config: String) -> [String] {
        let hops = report.paths.filter { $0.kind == .hop }.count
        var lines = ["migrate: \(config): \(Formatting.count(report.paths.count - hops, "path")) to \(report.current) and \(Formatting.count(hops, "hop"))" + (report.shard.map { ", shard \($0)" } ?? "")]
        let width = report.paths.map { label($0).count }.max() ?? 0
        for result in report.paths {
            let stages = result.checks.filter { $0.name.hasPrefix("stage ") }.count
            let status = result.passed ? "PASS" : "FAIL"
            lines.append("\(status)  \(label(result).padding(toLength: width, withPad: " ", startingAt: 0))  \(Formatting.count(stages, "stage")), \(String(format: "%.2f", result.seconds)) s (data diff \(String(format: "%.2f", result.preservationSeconds)) s)")
            defer { if let times = times(result) { lines.append("      " + times) } }
            guard let failure = result.firstFailure else { continue }
            let message = (failure.message ?? "failed").split(separator: "\n", omittingEmptySubsequences: false)
            lines.append("      \(failure.name): \(message.first ?? "")")
            for more in message.dropFirst() { lines.append("        \(more)") }
            if let statement = failure.statement { lines.append("      statement: \(statement.escapingControlCharacters())") }
            let others = result.checks.filter { !$0.passed }.count - 1
            if others > 0 { lines.append("      and \(Formatting.count(others, "more failed check"))") }
        }
        let failed = report.failedCount
        lines.append("migrate: \(report.paths.count - failed) of \(report.paths.count) passed" + (failed > 0 ? ", \(failed) failed" : ""))
        return lines
    }

    /// `time: verify and copy 0.01 s, stage 1.0.0 -> 2.0.0 0.02 s, ..., data diff 0.02 s`:
    /// where the path's time went, check by check, in the order they ran.
    static func times(_ result: PathResult) -> String? {
        let parts = result.checks.compactMap { check -> String? in
            guard let seconds = check.seconds else { return nil }
            var name = check.name
            if name == "fixture \(result.source) verifies" { name = "verify and copy" }
            if name == "data preserved" { name = "data diff" }
            if name.hasPrefix("schema matches ") { name = "schema" }
            return "\(name) \(String(format: "%.2f", seconds)) s"
        }
        return parts.isEmpty ? nil : "time: " + parts.joined(separator: ", ")
    }

    private static func label(_ result: PathResult) -> String {
        result.kind == .hop ? "hop " + result.id : result.id
    }
}
