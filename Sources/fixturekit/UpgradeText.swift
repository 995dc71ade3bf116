import Foundation
import FixtureKit

/// The human report of `upgrade`, `restore` and `restore --pending`.
enum UpgradeText {
    static func lines(_ result: UpgradeResult) -> [String] {
        var lines: [String] = []
        if let recovery = result.recovery { lines.append(line(recovery, store: result.store)) }
        let removed = result.removedBackups.isEmpty ? "" : ", removed \(Formatting.count(result.removedBackups.count, "older backup"))"
        guard result.outcome != .current else {
            return lines + ["upgrade: \(result.store): already at \(result.to): nothing to do\(removed)"]
        }
        lines.append("upgrade: \(result.store): \(result.from ?? "?") -> \(result.to), \(Formatting.count(result.stages.count, "stage"))")
        if let backup = result.backup {
            lines.append("backup: \(backup.path): \(Formatting.count(backup.files.count, "file")), \(Formatting.bytes(backup.bytes)) packed into \(Formatting.bytes(backup.size)), verified")
        }
        for check in result.checks {
            let time = check.kind == .dataPreserved ? result.preservationSeconds.map { " (data diff \(String(format: "%.2f", $0)) s)" } ?? "" : ""
            lines.append("\(check.passed ? "PASS" : "FAIL")  \(check.name)\(time)")
            // A stage that passed may still have had to end processes it left.
            for text in (check.message ?? (check.passed ? "" : "failed")).split(separator: "\n") { lines.append("      \(text)") }
            for warning in check.warnings ?? [] { lines.append("      warning: \(warning)") }
            if !check.passed { lines += MigrationText.statementLines(check.statement) }
            // The settings a stage ran with.
            if let connection = check.connection { lines.append("      connection: \(connection.summary)") }
        }
        if result.outcome == .upgraded, !result.valuesCompared {
            lines.append("SKIP  \(CheckKind.dataPreserved.name): values were not compared with the backup (--no-data-diff)")
        }
        if let restore = result.restore { lines += self.lines(restore) }
        switch result.outcome {
        case .upgraded: lines.append("upgrade: \(result.store): upgraded to \(result.to)\(removed)\(result.valuesCompared ? "" : " (values not compared)")")
        case .restored: lines.append("upgrade: \(result.store): not upgraded, back at \(result.from ?? "?")\(removed)")
        case .current: break
        }
        return lines + result.warnings.map { "upgrade: \(result.store): warning: \($0)" }
    }

    static func line(_ restore: RestoreResult) -> String {
        // A sidecar the backup put back was replaced, not removed: only those it lacks are gone.
        let gone = restore.removed.filter { !restore.files.contains($0) }
        let removed = gone.isEmpty ? "" : "; removed \(gone.joined(separator: ", ")), which the backup does not hold"
        let content = restore.contentHash.map { "; content hash \($0.prefix(12))…" } ?? ""
        return "restore: \(restore.store): restored \(restore.files.joined(separator: ", ")) from \(restore.archive), verified\(removed)\(content)"
    }

    /// The restore's line, then what of the files' owners and modes it could not put back.
    static func lines(_ restore: RestoreResult) -> [String] {
        [line(restore)] + restore.warnings.map { "restore: \(restore.store): warning: \($0)" }
    }

    static func line(_ recovery: PendingRecovery, store: String) -> String {
        let upgrade = "interrupted \(recovery.phase == "restoring" && recovery.from == nil ? "restore" : "upgrade")" + (recovery.from.map { " \($0) -> \(recovery.to ?? "?")" } ?? "")
        switch recovery.outcome {
        case .confirmed:
            return "\(store): \(upgrade): the migration had committed and passes its checks: kept"
        case .restored:
            let warnings = (recovery.restore?.warnings ?? []).map { "; warning: \($0)" }.joined()
            return "\(store): \(upgrade): restored the backup \(recovery.backup)" + (recovery.reason.map { " (\($0))" } ?? "") + warnings
        }
    }
}
