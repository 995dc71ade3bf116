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
            lines.append("\(check.passed ? "PASS" : "FAIL")  \(check.name)")
            guard !check.passed else { continue }
            for text in (check.message ?? "failed").split(separator: "\n") { lines.append("      \(text)") }
            if let statement = check.statement { lines.append("      statement: \(statement.escapingControlCharacters())") }
        }
        if let restore = result.restore { lines.append(line(restore)) }
        switch result.outcome {
        case .upgraded: lines.append("upgrade: \(result.store): upgraded to \(result.to)\(removed)")
        case .restored: lines.append("upgrade: \(result.store): not upgraded, back at \(result.from ?? "?")\(removed)")
        case .current: break
        }
        return lines
    }

    static func line(_ restore: RestoreResult) -> String {
        let removed = restore.removed.isEmpty ? "" : "; removed \(restore.removed.joined(separator: ", "))"
        let content = restore.contentHash.map { "; content hash \($0.prefix(12))…" } ?? ""
        return "restore: \(restore.store): restored \(restore.files.joined(separator: ", ")) from \(restore.archive), verified\(removed)\(content)"
    }

    static func line(_ recovery: PendingRecovery, store: String) -> String {
        let upgrade = "interrupted \(recovery.phase == "restoring" && recovery.from == nil ? "restore" : "upgrade")" + (recovery.from.map { " \($0) -> \(recovery.to ?? "?")" } ?? "")
        switch recovery.outcome {
        case .confirmed:
            return "\(store): \(upgrade): the migration had committed and passes its checks: kept"
        case .restored:
            return "\(store): \(upgrade): restored the backup \(recovery.backup)" + (recovery.reason.map { " (\($0))" } ?? "")
        }
    }
}
