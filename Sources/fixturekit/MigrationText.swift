import Foundation
import FixtureKit

/// The human report of `migrate`.
enum MigrationText {
    /// Each line, and whether it tells of a failure (which `--quiet` keeps).
    /// - Parameter command: the command the lines name: `migrate`, `probe`.
    static func lines(_ report: MigrationReport, config: String, command: String = "migrate") -> [(String, Bool)] {
        let hops = report.paths.filter { $0.kind == .hop }.count
        var lines: [(String, Bool)] = []
        func add(_ line: String, _ failed: Bool = false) { lines.append((line, failed)) }
        add("\(command): \(config): \(Formatting.count(report.paths.count - hops, "path")) to \(report.current) and \(Formatting.count(hops, "hop"))" + (report.shard.map { ", shard \($0)" } ?? ""))
        // The settings each stage ran with, in every path that ran it.
        for (stage, connection) in report.stageConnections { add("\(command): \(stage) ran with \(connection.summary)") }
        let width = report.paths.map { label($0).count }.max() ?? 0
        for result in report.paths {
            let stages = result.checks.filter(\.kind.isStage).count
            let status = result.passed ? "PASS" : result.couldNotRun == true ? "ERROR" : "FAIL"
            add("\(status)  \(label(result).padding(toLength: width, withPad: " ", startingAt: 0))  \(Formatting.count(stages, "stage")), \(String(format: "%.2f", result.seconds)) s (data diff \(String(format: "%.2f", result.preservationSeconds)) s)", !result.passed)
            // A stage that passed may still have had to end processes it left.
            // The size probe says its exponents though it passed: a line each, as a
            // failure's, but ordinary lines, which --quiet leaves out.
            for check in result.checks where check.passed && check.message != nil {
                var problem = true
                if case .probe = check.kind { problem = false }
                let message = (check.message ?? "").split(separator: "\n", omittingEmptySubsequences: false)
                add("      \(check.name): \(message.first ?? "")", problem)
                for more in message.dropFirst() { add("        \(more)", problem) }
            }
            // Statements that did nothing where they stand: warnings, unless "strictStages".
            for check in result.checks { for warning in check.warnings ?? [] { add("      \(check.name): warning: \(warning)", true) } }
            // Where the time went, after the failure's lines; an ordinary line, which --quiet leaves out.
            defer { if let times = times(result) { add("      " + times) } }
            // What the value checks could not see, before it: ordinary lines too.
            defer {
                let unchecked = result.unchecked ?? []
                for entry in unchecked.prefix(MigrationReport.shownLines) { add("      unchecked: " + entry.line) }
                if unchecked.count > MigrationReport.shownLines { add("      and \(unchecked.count - MigrationReport.shownLines) more unchecked") }
            }
            guard let failure = result.firstFailure else { continue }
            let message = (failure.message ?? "failed").split(separator: "\n", omittingEmptySubsequences: false)
            add("      \(failure.name): \(message.first ?? "")", true)
            for more in message.dropFirst().prefix(MigrationReport.shownLines - 1) { add("        \(more)", true) }
            if message.count > MigrationReport.shownLines { add("        and \(Formatting.count(message.count - MigrationReport.shownLines, "more line")) (--json has them all)", true) }
            for line in statementLines(failure.statement) { add(line, true) }
            if let connection = failure.connection { add("      connection: \(connection.summary)", true) }
            let others = result.checks.filter { !$0.passed }.count - 1
            if others > 0 { add("      and \(Formatting.count(others, "more failed check"))", true) }
        }
        let failed = report.failedCount - report.couldNotRunCount
        let couldNotRun = report.couldNotRunCount > 0 ? ", \(report.couldNotRunCount) could not run" : ""
        add("\(command): \(report.paths.count - report.failedCount) of \(report.paths.count) passed" + (failed > 0 ? ", \(failed) failed" : "") + couldNotRun, report.failedCount > 0)
        return lines
    }

    /// `time: verify and copy 0.01 s, stage 1.0.0 -> 2.0.0 0.02 s, ..., data diff 0.02 s`:
    /// where the path's time went, in the order it was spent. The
    /// configuration's checks are summed as `checks`; `user_version` and `row
    /// counts` compare numbers already read and are left out (every check's
    /// own time is in `--json`, JUnit and `--verbose`).
    static func times(_ result: PathResult) -> String? {
        var parts: [String] = []
        var configured: Double?
        func seconds(_ value: Double) -> String { String(format: "%.2f s", value) }
        for check in result.checks {
            guard let time = check.seconds else { continue }
            switch check.kind {
            case .fixtureVerifies where check.passed: parts.append("verify and copy " + seconds(time))
            case .dataPreserved: parts.append("data diff " + seconds(time))
            case .userVersion, .rowCounts: continue
            case .stage, .integrity, .foreignKeys, .probe: parts.append("\(check.name) " + seconds(time))
            case .schema: parts.append("schema " + seconds(time))
            // With the configuration's checks: what ended a path early (a fixture
            // that did not verify, a copy that failed, a store that could not be
            // read), and the checks of lint.
            case .fixtureVerifies, .copyFixture, .chainOfStages, .openMigratedStore, .readMigratedStore, .lockMigratedStore, .version, .configured, .upgrade, .lint:
                configured = (configured ?? 0) + time
            }
        }
        if let configured { parts.append("checks " + seconds(configured)) }
        return parts.isEmpty ? nil : "time: " + parts.joined(separator: ", ")
    }

    /// `      statement: ...` and the statement's next lines below it, as written.
    static func statementLines(_ statement: String?) -> [String] {
        (statement?.split(separator: "\n", omittingEmptySubsequences: false) ?? []).enumerated().map { index, line in
            (index == 0 ? "      statement: " : "                 ") + written(line)
        }
    }

    /// A line of a statement as written: its tabs and backslashes as they are,
    /// a CR before the line end dropped, other control characters as `\u{1b}`.
    static func written(_ line: Substring) -> String {
        var text = ""
        for scalar in (line.hasSuffix("\r") ? line.dropLast() : line).unicodeScalars {
            if (scalar.value < 0x20 && scalar != "\t") || scalar.value == 0x7F {
                text += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    private static func label(_ result: PathResult) -> String {
        let also = result.alsoFor.map { " (also \($0.joined(separator: ", ")))" } ?? ""
        return (result.kind == .hop ? "hop " + result.id : result.id) + also
    }
}
