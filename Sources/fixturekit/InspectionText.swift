import FixtureKit

/// The human report of `inspect`.
enum InspectionText {
    /// Each line, and whether it is a diagnostic (which `--quiet` keeps).
    static func lines(_ inspection: StoreInspection) -> [(String, Bool)] {
        let header = inspection.header
        var lines: [String] = []
        let files = inspection.files.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            .map { "\($0.key) \(Formatting.bytes($0.value))" }.joined(separator: ", ")
        lines.append("\(inspection.store)")
        lines.append("  files: \(files)")
        lines.append("  SQLite: page size \(header.pageSize), \(header.pageCount) pages, \(header.freelistPageCount) free, journal mode \(header.journalMode), \(header.textEncodingName), last written by SQLite \(header.sqliteVersion)")
        lines.append("  user_version \(header.userVersion), application_id \(header.applicationID)")
        if let wal = inspection.wal {
            var text = "  WAL: \(Formatting.count(wal.frameCount, "frame")), \(Formatting.count(wal.commits, "commit")), \(inspection.walFramesNotInMainFile) committed frames not yet in the main file"
            if wal.tornTailBytes > 0 { text += ", torn tail of \(Formatting.count(wal.tornTailBytes, "byte"))" }
            if wal.framesAfterInvalid > 0 { text += ", \(wal.framesAfterInvalid) frames after an invalid one" }
            lines.append(text)
        }
        if let shm = inspection.shm {
            lines.append("  -shm: \(shm.isConsistent ? "consistent" : "not consistent"), last frame \(shm.maxFrame), \(shm.backfilledFrames) frames checkpointed")
        }
        if let contents = inspection.contents {
            lines.append("  schema: \(Formatting.count(contents.objectCount, "object")), structural hash \(contents.schemaHash.prefix(16))")
            let tables = contents.tables.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            lines.append("  rows: " + (tables.isEmpty ? "no tables" : tables.joined(separator: ", ")))
            if let model = contents.model {
                let identifiers = model.versionIdentifiers.map { $0.isEmpty ? "\"\"" : $0 }.joined(separator: ", ")
                lines.append("  Core Data model: version identifiers [\(identifiers)], checksum \(model.versionChecksum ?? "none"), \(Formatting.count(model.entityVersionHashes.count, "entity", "entities"))")
                for (entity, hash) in model.entityVersionHashes.sorted(by: { $0.key < $1.key }) {
                    lines.append("    \(entity): \(hash)")
                }
            }
        }
        var result = lines.map { ($0, false) }
        for diagnostic in inspection.diagnostics {
            result.append(("\(diagnostic.severity.rawValue): \(diagnostic.message)", diagnostic.severity != .note))
        }
        return result
    }
}
