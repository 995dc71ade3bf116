import FixtureKit

/// The human report of `migrate`.
enum MigrationText {
    static func lines(_ report: MigrationReport, config: String) -> [String] {
        let hops = report.paths.filter { $0.kind == .hop }.count
        var lines = ["migrate: \(config): \(Formatting.count(report.paths.count - hops, "path")) to \(report.current) and \(Formatting.count(hops, "hop"))" + (report.shard.map { ", shard \($0)" } ?? "")]
        let width = report.paths.map { label($0).count }.max() ?? 0
        for result in report.paths {
            let stages = result.checks.filter { $0.name.hasPrefix("stage ") }.count
            let status = result.passed ? "PASS" : result.couldNotRun == true ? "ERROR" : "FAIL"
            lines.append("\(status)  \(label(result).padding(toLength: width, withPad: " ", startingAt: 0))  \(Formatting.count(stages, "stage")), \(String(format: "%.2f", result.seconds)) s (data diff \(String(format: "%.2f", result.preservationSeconds)) s)")
            // A stage that passed may still have had to end processes it left.
            for check in result.checks where check.passed && check.message != nil { lines.append("      \(check.name): \(check.message ?? "")") }
            guard let failure = result.firstFailure else { continue }
            let message = (failure.message ?? "failed").split(separator: "\n", omittingEmptySubsequences: false)
            lines.append("      \(failure.name): \(message.first ?? "")")
            for more in message.dropFirst() { lines.append("        \(more)") }
            if let statement = failure.statement { lines.append("      statement: \(statement.escapingControlCharacters())") }
            let others = result.checks.filter { !$0.passed }.count - 1
            if others > 0 { lines.append("      and \(Formatting.count(others, "more failed check"))") }
        }
        let failed = report.failedCount - report.couldNotRunCount
        let couldNotRun = report.couldNotRunCount > 0 ? ", \(report.couldNotRunCount) could not run" : ""
        lines.append("migrate: \(report.paths.count - report.failedCount) of \(report.paths.count) passed" + (failed > 0 ? ", \(failed) failed" : "") + couldNotRun)
        return lines
    }

    private static func label(_ result: PathResult) -> String {
        let also = result.alsoFor.map { " (also \($0.joined(separator: ", ")))" } ?? ""
        return (result.kind == .hop ? "hop " + result.id : result.id) + also
    }
}
